package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/csvreport"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/htmlreport"
	"github.com/spf13/pflag"
)

// fileFlags are report's file outputs: --html FILE and --csv DIR. They are
// written besides the report on stdout, each file atomically (a temporary
// file in the same directory, renamed over the final name).
type fileFlags struct {
	html string
	csv  string
	// rates collects the rate windows for the HTML page (set by
	// collect when --html is given).
	rates *htmlRates
}

// collect sets, when --html is given, a RateSink on cfg that keeps the
// bounded series of the page's throughput and CE/CNP plots.
func (o *fileFlags) collect(cfg *flows.Config) {
	if o.html == "" {
		return
	}
	bin := cfg.Bin
	if bin <= 0 {
		bin = flows.DefaultBinNs
	}
	o.rates = newHTMLRates(bin)
	cfg.RateSink = o.rates.add
}

func (o *fileFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML page to `FILE`")
	fs.StringVar(&o.csv, "csv", "", "also write flows.csv, events.csv, findings.csv and pfc.csv into `DIR` (created if missing)")
}

// write writes the files the flags ask for; t is the table rep was built
// from (the page's latency distributions).
func (o *fileFlags) write(rep *analysis.Report, t *flows.Table) error {
	if o.html != "" || o.csv != "" {
		rep.Materialize() // the page and the CSV files index the rows
	}
	if o.html != "" {
		x := &htmlreport.Extra{Latency: latencySets(t, rep)}
		if o.rates != nil {
			x.Rates = o.rates.result()
		}
		if err := writeAtomic(o.html, func(w io.Writer) error { return htmlreport.WriteExtra(w, rep, x) }); err != nil {
			return err
		}
	}
	if o.csv == "" {
		return nil
	}
	if err := os.MkdirAll(o.csv, 0o755); err != nil {
		return fmt.Errorf("--csv: %w", err)
	}
	for _, name := range csvreport.Files {
		path := filepath.Join(o.csv, name)
		if err := writeAtomic(path, func(w io.Writer) error { return csvreport.WriteFile(w, name, rep) }); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes path through fn: into a temporary file of path's
// directory (".NAME.tmp-*"), synced and renamed to path when fn succeeds,
// removed otherwise. An existing path is replaced.
func writeAtomic(path string, fn func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
