package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/spf13/pflag"
)

// runReport implements `rocetrace [report] [--json] FILE...`.
func runReport(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	var (
		a     analysisFlags
		out   reportFlags
		files fileFlags
		pf    pointFlags
	)
	fs := newFlagSet(name, "[report] [--json] [flags] FILE... | --point NAME=FILE[,FILE...]...", stderr)
	fs.registerReadFile()
	out.register(fs.FlagSet, "print the analysis as one JSON document")
	files.register(fs.FlagSet)
	a.register(fs.FlagSet)
	pf.register(fs.FlagSet)
	a.registerBin(fs.FlagSet)
	if code := pf.parse(fs, args, &a.common, stdout, stderr); code >= 0 {
		return code
	}
	if pf.active() {
		return runReportPoints(ctx, &a, &pf, &out, &files, stdout, stderr)
	}
	in := engine.OpenContext(ctx, fs.Args())
	defer in.Close()
	if in.Opened() == 0 && !in.Interrupted() {
		return inputStatus(in, stderr) // nothing could be opened: no empty report
	}
	cfg := a.engine(in.Names())
	files.collect(&cfg.Flows)
	e := engine.New(cfg)
	var obs engine.Observer
	same := engine.NewSameTraffic(fs.Args()) // nil with one file: nothing to compare
	if same != nil {
		obs = same.Observe
	}
	if err := e.Run(ctx, in, obs); err != nil && err != context.Canceled {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	summary := e.Summary(in.Names())
	summary.Interrupted = in.Interrupted()
	opts := a.options()
	// Lean: report --json writes the flows and events from the table a
	// chunk at a time; the text, HTML and CSV writers materialize them.
	opts.Lean = true
	rep := e.Report(summary, opts)
	shared := same != nil && same.Add(&rep, e.Table())
	err := out.write(stdout, rep)
	if err == nil {
		if ferr := files.write(&rep, e.Table()); ferr != nil {
			fmt.Fprintf(stderr, "rocetrace: %v\n", ferr)
			in.WriteErrors(stderr)
			return exitFailed
		}
	}
	if err != nil {
		writeFailed(stderr, "report", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	sameTrafficHint(stderr, shared)
	return finalStatus(ctx, in, e.Frames()+e.Filtered(), stderr)
}

// finalStatus prints the inputs' warnings and errors, and the interruption
// if a signal stopped the reading, to stderr and returns the exit status
// they call for: the signal's (130, 143) when interrupted.
func finalStatus(ctx context.Context, in *engine.Inputs, frames int64, stderr io.Writer) int {
	code := inputStatus(in, stderr)
	if in.Interrupted() {
		fmt.Fprintf(stderr, "rocetrace: %s\n", in.Interruption(frames))
		return interruptStatus(ctx)
	}
	return code
}

// inputStatus prints the inputs' warnings and errors to stderr and returns
// the exit status they call for.
func inputStatus(in *engine.Inputs, stderr io.Writer) int {
	if in.WriteErrors(stderr) {
		return exitFailed
	}
	return exitOK
}

// analysisFlags are the flags that configure the analysis, shared by
// report, capture and tui: the common ones, --max-flows and --pause-storm.
type analysisFlags struct {
	common
	pauseStorm time.Duration
	cnp        cnpFlags // --cnp-interval, --cnp-dscp, --cnp-pcp (cnpflags.go)
}

func (a *analysisFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&a.pauseStorm, "pause-storm", 0, "pause episode length reported as a pause storm (default 100ms)")
	a.cnp.register(fs)
	a.common.registerMaxFlows(fs)
	a.common.register(fs)
}

// options returns the analysis options the flags ask for.
func (a *analysisFlags) options() analysis.Options {
	o := analysis.Options{PauseStormNs: a.pauseStorm.Nanoseconds()}
	a.cnp.apply(&o)
	return o
}

// reportFlags say how report and capture print the report.
type reportFlags struct {
	json     bool
	allFlows bool
}

func (r *reportFlags) register(fs *pflag.FlagSet, jsonUsage string) {
	fs.BoolVar(&r.json, "json", false, jsonUsage)
	fs.BoolVar(&r.allFlows, "all-flows", false, "list every flow in the human report (default: problems first, worst first, at most 50)")
}

// write prints rep to stdout: JSON, or the human report (coloured on a
// terminal).
func (r *reportFlags) write(stdout io.Writer, rep analysis.Report) error {
	w := bufio.NewWriter(stdout)
	var err error
	if r.json {
		err = analysis.WriteJSON(w, rep, true)
	} else {
		opts := analysis.TextOptions{Color: colorWanted(stdout)}
		if r.allFlows {
			opts.MaxFlows = -1
		}
		err = analysis.WriteText(w, rep, opts)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// colorWanted reports whether w is a terminal and colour is not disabled
// by NO_COLOR or TERM=dumb.
func colorWanted(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}
