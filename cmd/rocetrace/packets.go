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

// runPackets implements `rocetrace packets [--json] [-V] FILE...`. The
// frames go through the engine like report's, so that what is printed of a
// frame may come from its flow's analysis too.
func runPackets(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c common
	fs := newFlagSet("packets", "packets [--json] [-V] [flags] FILE...", stderr)
	jsonOut := fs.Bool("json", false, "one JSON object per frame (JSON lines)")
	verbose := fs.BoolP("verbose", "V", false, "print the full header tree of each frame")
	c.register(fs.FlagSet)
	if code := fs.parse(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	in := engine.OpenContext(ctx, fs.Args())
	defer in.Close()

	w := bufio.NewWriterSize(stdout, 1<<16)
	names := in.Names()
	var (
		buf   []byte
		first int64
		seen  bool
	)
	cfg := c.engine()
	cfg.NoFlows = true // nothing printed comes from the flows yet
	e := engine.New(cfg)
	err := e.Run(ctx, in, func(p *decode.Packet, _ *flows.Flow) error {
		if !seen {
			first, seen = p.TsNs, true
		}
		buf = buf[:0]
		switch {
		case *jsonOut:
			buf = p.AppendJSON(buf, names[p.File], flowID(p))
		case *verbose:
			buf = decode.AppendTree(buf, p.LinkType, p, c.linkBps)
		default:
			buf = p.AppendSummary(buf, first, c.linkBps)
		}
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
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
