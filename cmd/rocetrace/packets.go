package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// runPackets implements `rocetrace packets [--json] [-V] FILE...`.
func runPackets(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c common
	fs := newFlagSet("packets", "packets [--json] [-V] [flags] FILE...", stderr)
	jsonOut := fs.Bool("json", false, "one JSON object per frame (JSON lines)")
	verbose := fs.BoolP("verbose", "V", false, "print the full header tree of each frame")
	c.register(fs.FlagSet)
	if code := fs.parse(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	in := openInputs(fs.Args())
	defer in.close()

	w := bufio.NewWriterSize(stdout, 1<<16)
	dec := decode.NewDecoder(decode.Config{RoCEPort: c.rocePort})
	var (
		p     decode.Packet
		buf   []byte
		first int64
		seen  bool
	)
	err := in.each(ctx, func(rec *pcapio.Record) error {
		dec.DecodeRecord(rec, &p)
		if !seen {
			first, seen = p.TsNs, true
		}
		buf = buf[:0]
		switch {
		case *jsonOut:
			buf = p.AppendJSON(buf, in.names[p.File], flowID(&p))
		case *verbose:
			buf = decode.AppendTree(buf, rec.LinkType, &p, c.linkBps)
		default:
			buf = p.AppendSummary(buf, first, c.linkBps)
		}
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil && err != context.Canceled {
		fmt.Fprintf(stderr, "rocetrace: writing output: %v\n", err)
		in.report(stderr)
		return exitFailed
	}
	return in.report(stderr)
}
