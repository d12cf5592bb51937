package main

import (
	"bufio"
	"cmp"
	"context"
	"io"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
)

// runPackets implements `rocetrace packets [--json] [-V] [-Y EXPR] [-R EXPR]
// FILE...`. The frames go through the engine like report's, flow table
// included, so that a frame's flow and events print and filter.
func runPackets(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		c    common
		disp displayFlag
		out  packetsOut // -T, -e, -E, -c, --json (fieldsout.go)
	)
	fs := newFlagSet("packets", "packets [--json | -T fields -e FIELD...] [-V] [-Y EXPR] [-c N] [flags] FILE...", stderr)
	fs.registerReadFile()
	out.register(fs.FlagSet)
	jsonOut := &out.json
	verbose := fs.BoolP("verbose", "V", false, "print the full header tree of each frame")
	disp.register(fs.FlagSet, "print only the frames that match EXPR (display-filter syntax; the analysis still sees every frame)")
	c.register(fs.FlagSet)
	c.registerMaxFlows(fs.FlagSet) // contract "bounded memory": packets keeps a flow table too
	if code := fs.parse(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	if code := disp.compile(stderr); code >= 0 {
		return code
	}
	if err := out.resolve(*verbose); err != nil {
		return fs.usageError("%v", err)
	}
	in := engine.OpenContext(ctx, fs.Args())
	defer in.Close()

	w := bufio.NewWriterSize(stdout, 1<<16)
	names := in.Names()
	var (
		buf     []byte
		first   int64
		seen    bool
		printed int
	)
	if out.fo != nil && out.fo.header {
		_, _ = w.Write(out.fo.appendHeader(nil)) // a write error shows at Flush
	}
	e := engine.New(c.engine(names))
	t := e.Table()
	err := e.Run(ctx, in, func(p *decode.Packet, f *flows.Flow) error {
		if !seen {
			first, seen = p.TsNs, true
		}
		if !disp.match(p, f, t.FrameEvents(), names) {
			return nil
		}
		buf = buf[:0]
		switch {
		case out.fo != nil:
			buf = out.appendFields(buf, p, f, t, names)
		case *jsonOut:
			id := ""
			if f != nil {
				id = f.ID()
			} else {
				id = flowID(p)
			}
			buf = p.AppendJSON(buf, names[p.File], id)
			buf = appendEventsJSON(buf, t.FrameEvents())
		case *verbose:
			buf = decode.AppendTree(buf, p.LinkType, p, c.linkBps)
			buf = appendAnalysis(buf, t.FrameEvents(), t.FrameEventList())
		default:
			buf = p.AppendSummary(buf, first, c.linkBps)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if printed++; out.count > 0 && printed >= out.count {
			return errCountReached
		}
		return nil
	})
	if err == errCountReached {
		err = nil
	}
	if ferr := w.Flush(); err == nil || err == context.Canceled {
		err = cmp.Or(ferr, err)
	}
	if err != nil && err != context.Canceled {
		writeFailed(stderr, "output", err)
		in.WriteErrors(stderr)
		return exitFailed
	}
	return finalStatus(ctx, in, e.Frames()+e.Filtered(), stderr)
}
