package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/spf13/pflag"
)

// filterError is a filter that does not compile: parseArgs prints it with
// its caret and exits 2.
type filterError struct {
	kind string // "display filter" or "read filter"
	err  error
}

func (e *filterError) Error() string { return e.kind + ": " + e.err.Error() }

// write prints the error as docs/interface.md ("Filters") says.
func (e *filterError) write(w io.Writer) {
	var fe *filter.Error
	if errors.As(e.err, &fe) {
		fmt.Fprint(w, fe.Format(e.kind))
		return
	}
	fmt.Fprintf(w, "rocetrace: %s: %v\n", e.kind, e.err)
}

// registerReadFilter adds -R/--read-filter (every command has it).
func (c *common) registerReadFilter(fs *pflag.FlagSet) {
	fs.StringVarP(&c.readExpr, "read-filter", "R", "", "drop the frames that do not match EXPR before any analysis (display-filter syntax)")
}

// displayFlag is -Y/--display-filter, on packets, export and tui.
type displayFlag struct {
	expr string
	f    *filter.Filter
}

func (d *displayFlag) register(fs *pflag.FlagSet, usage string) {
	fs.StringVarP(&d.expr, "display-filter", "Y", "", usage)
}

// compile compiles the display filter; it prints a failure and returns
// exitUsage, or -1 to go on.
func (d *displayFlag) compile(stderr io.Writer) int {
	if d.expr == "" {
		return -1
	}
	f, err := filter.Compile(d.expr)
	if err != nil {
		(&filterError{kind: "display filter", err: err}).write(stderr)
		return exitUsage
	}
	d.f = f
	return -1
}

// match reports whether the frame p of flow f (nil: none), which shows the
// events ev (flows.Table.FrameEvents), passes the display filter (true
// without one).
func (d *displayFlag) match(p *decode.Packet, f *flows.Flow, ev flows.EventMask, names []string) bool {
	if d.f == nil {
		return true
	}
	fr := filter.Frame{File: names[p.File], Events: uint8(ev)}
	if f != nil {
		fr.Flow = f.ID()
	}
	return d.f.Match(p, &fr)
}

// keep returns the engine's read filter over the inputs names (nil without
// -R). A read filter runs before the flow table: the `flow` field, when the
// filter reads it, is computed from the frame's key (an allocation per
// frame for those filters only).
func (c *common) keep(names []string) func(p *decode.Packet) bool {
	f := c.readF
	if f == nil {
		return nil
	}
	var fr filter.Frame
	needFlow := f.NeedsFlow()
	return func(p *decode.Packet) bool {
		if p.File < len(names) {
			fr.File = names[p.File]
		}
		if needFlow {
			fr.Flow = flowID(p)
		}
		return f.Match(p, &fr)
	}
}
