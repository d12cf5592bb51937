package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// runReport implements `rocetrace [report] [--json] FILE...`.
func runReport(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	var c common
	fs := newFlagSet(name, "[report] [--json] [flags] FILE...", stderr)
	jsonOut := fs.Bool("json", false, "print the analysis as one JSON document")
	pauseStorm := fs.Duration("pause-storm", 0, "pause episode length reported as a pause storm (default 100ms)")
	allFlows := fs.Bool("all-flows", false, "list every flow in the human report (default: problems first, at most 50)")
	c.register(fs.FlagSet)
	if code := fs.parse(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	in := openInputs(fs.Args())
	defer in.close()
	if len(in.readers) == 0 {
		return in.report(stderr) // nothing could be opened: no empty report
	}

	rep, err := analyse(ctx, in, &c, analysis.Options{PauseStormNs: pauseStorm.Nanoseconds()})
	if err != nil && err != context.Canceled {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		in.report(stderr)
		return exitFailed
	}
	w := bufio.NewWriter(stdout)
	if *jsonOut {
		err = analysis.WriteJSON(w, rep, true)
	} else {
		opts := analysis.TextOptions{Color: colorWanted(stdout)}
		if *allFlows {
			opts.MaxFlows = -1
		}
		err = analysis.WriteText(w, rep, opts)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace: writing report: %v\n", err)
		in.report(stderr)
		return exitFailed
	}
	return in.report(stderr)
}

// analyse runs capture -> decode -> flows -> analysis over the inputs.
func analyse(ctx context.Context, in *inputs, c *common, opts analysis.Options) (analysis.Report, error) {
	dec := decode.NewDecoder(decode.Config{RoCEPort: c.rocePort})
	table := flows.NewTable(flows.Config{PMTU: c.pmtuVal, LinkSpeedBps: c.linkBps})
	var (
		counter analysis.Counter
		p       decode.Packet
	)
	err := in.each(ctx, func(rec *decode.Record) error {
		dec.DecodeRecord(rec, &p)
		counter.Observe(&p)
		table.Observe(&p)
		return nil
	})
	return analysis.Build(table, counter.Summary(in.names), opts), err
}

// colorWanted reports whether w is a terminal and colour is not disabled
// by NO_COLOR or TERM=dumb.
func colorWanted(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
