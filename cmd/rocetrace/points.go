package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/spf13/pflag"
)

// pointFlags is --point NAME=FILE[,FILE...] (repeatable), on report,
// export and tui.
type pointFlags struct {
	specs []string
	names []string
	files [][]string
}

func (pf *pointFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&pf.specs, "point", nil, "capture point NAME=FILE[,FILE...] (repeatable; instead of FILE arguments): each point analysed on its own, frames matched between them")
}

// active reports whether --point was given.
func (pf *pointFlags) active() bool { return len(pf.specs) > 0 }

// parse parses args like flagSet.parse, with --point in place of FILE
// arguments when given; it returns the exit status to stop with, or -1.
func (pf *pointFlags) parse(fs *flagSet, args []string, c *common, stdout, stderr io.Writer) int {
	if code := fs.parseArgs(args, c, stdout, stderr); code >= 0 {
		return code
	}
	if !pf.active() {
		if fs.NArg() == 0 {
			fmt.Fprintf(stderr, "rocetrace: no capture file given\n")
			fs.Usage()
			return exitUsage
		}
		return -1
	}
	return pf.parseSpecs(fs)
}

// parseSpecs parses the --point values (given: FILE arguments are then a
// usage error); it returns the exit status to stop with, or -1.
func (pf *pointFlags) parseSpecs(fs *flagSet) int {
	if fs.NArg() > 0 {
		return fs.usageError("FILE arguments (%s) are not allowed with --point: name every file in a --point NAME=FILE[,FILE...]", fs.Arg(0))
	}
	seen := map[string]bool{}
	for _, s := range pf.specs {
		name, list, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || list == "" {
			return fs.usageError("invalid --point %q: want NAME=FILE[,FILE...]", s)
		}
		if seen[name] {
			return fs.usageError("--point %q given twice: point names must be unique", name)
		}
		seen[name] = true
		var files []string
		for _, f := range strings.Split(list, ",") {
			if f == "" {
				return fs.usageError("invalid --point %q: an empty file name", s)
			}
			files = append(files, f)
		}
		pf.names = append(pf.names, name)
		pf.files = append(pf.files, files)
	}
	return -1
}

// runReportPoints is report with --point: one engine per point over one
// merged reading, the reference (first) point's report with points, hops,
// hop_loss events and their findings.
func runReportPoints(ctx context.Context, a *analysisFlags, pf *pointFlags, out *reportFlags, files *fileFlags, stdout, stderr io.Writer) int {
	cfg := a.engine(pf.paths())
	files.collect(&cfg.Flows)
	ps := engine.NewPoints(cfg, pf.names, pf.files)
	if files.rates != nil {
		files.rates.only = ps.Engines[0].Table() // every point's table streams windows: keep the reference's
	}
	in := engine.OpenContext(ctx, ps.Paths())
	defer in.Close()
	if in.Opened() == 0 && !in.Interrupted() {
		return inputStatus(in, stderr)
	}
	if err := ps.Run(ctx, in, nil); err != nil && err != context.Canceled {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	rep := ps.Report(in.Interrupted(), a.options())
	if err := out.write(stdout, rep); err != nil {
		writeFailed(stderr, "report", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	if err := files.write(&rep, ps.Engines[0].Table()); err != nil {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	return finalStatus(ctx, in, ps.Frames(), stderr)
}

// sameTrafficHint prints the --point suggestion on stderr when the report
// has a same_traffic_in_several_files finding.
func sameTrafficHint(stderr io.Writer, found bool) {
	if found {
		fmt.Fprintf(stderr, "rocetrace: %s\n", analysis.SameTrafficHint)
	}
}

// points exports the capture points of pf to paths (with points.parquet
// and hops.parquet): packets.parquet holds every point's frames with their
// point, the other tables are the reference point's (as the report).
func (x *exporter) points(ctx context.Context, pf *pointFlags, paths export.Paths) int {
	var msgs strings.Builder
	code := x.exportPoints(ctx, pf, paths, &msgs)
	if _, err := io.WriteString(x.stdout, msgs.String()); err != nil {
		writeFailed(x.stderr, "output", err)
		code = max(code, exitFailed)
	}
	return code
}

func (x *exporter) exportPoints(ctx context.Context, pf *pointFlags, paths export.Paths, out io.Writer) int {
	ps := engine.NewPoints(x.c.engine(pf.paths()), pf.names, pf.files)
	in := engine.OpenContext(ctx, ps.Paths())
	defer in.Close()
	if in.Interrupted() {
		return x.interrupted(ctx, in, 0, paths)
	}
	if in.Opened() == 0 {
		return x.report(in, "", nil)
	}
	lost := hopLossFrames(ctx, x.c.engine(pf.paths()), pf) // the events column's hop_loss
	x.removeStale(paths)
	ex, err := export.Create(paths, in.Names(), x.opts)
	if err != nil {
		return x.report(in, fmt.Sprintf("export: %v", err), nil)
	}
	defer x.hooks.add(ex.RemoveTemps)() // taken back after Abort
	defer ex.Abort()
	// latency.parquet and rates.parquet are the reference point's, as the
	// other tables: its engine streams them (the others have no sinks).
	refCfg := x.c.engine(pf.paths())
	refCfg.Flows.LatencySink = ex.Latency
	refCfg.Flows.RateSink = ex.Rate
	ps.Engines[0] = engine.New(refCfg)
	var exErr error
	err = ps.Run(ctx, in, func(point int, p *decode.Packet, f *flows.Flow) error {
		exErr = ex.PacketAt(pf.names[point], point == 0, p, f, lost.mask(point, p, f, ps.Engines[point].Table().FrameEvents()))
		return exErr
	})
	if err != nil {
		ex.Abort()
		if exErr == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return x.interrupted(ctx, in, ps.Frames(), paths)
		}
		return x.report(in, fmt.Sprintf("export failed after %d frames; nothing written to %s: %v", ps.Frames(),
			strings.Join(paths.List(), ", "), err), nil)
	}
	rep := ps.Report(in.Interrupted(), analysis.Options{})
	written, err := ex.Finish(ctx, &rep)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return x.interrupted(ctx, in, ps.Frames(), paths)
	}
	for _, w := range written {
		fmt.Fprintf(out, "wrote %s: %s rows, %s\n", w.Path, strconv.FormatInt(w.Rows, 10), exportSize(w.Bytes))
	}
	if err != nil {
		return x.report(in, fmt.Sprintf("export: %v", err), written)
	}
	return x.report(in, "", written)
}

// paths returns the files of every point, concatenated in argument order
// (the order engine.Points opens them in).
func (pf *pointFlags) paths() []string {
	var out []string
	for _, fs := range pf.files {
		out = append(out, fs...)
	}
	return out
}
