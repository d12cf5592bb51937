package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rocetrace/rocetrace/pcapio"
)

// inputs is the merged stream of records from every capture on the command
// line, with the errors met on the way.
type inputs struct {
	names   []string
	readers []*pcapio.Reader
	merger  *pcapio.Merger
	errs    []error // missing files, non-captures, damage: each makes exit status 1
}

// openInputs opens every path, memory-mapped when it is a large regular
// file of short records (pcapio.OpenFileMapped). A file that cannot be opened is reported in
// errs and left out; the others are still read.
func openInputs(paths []string) *inputs {
	return openInputsWith(paths, pcapio.OpenFileMapped)
}

// openInputsWith is openInputs opening each file with open.
func openInputsWith(paths []string, open func(path string, file int) (*pcapio.Reader, error)) *inputs {
	in := &inputs{names: paths}
	for i, p := range paths {
		r, err := open(p, i)
		if err != nil {
			in.errs = append(in.errs, err)
			continue
		}
		in.readers = append(in.readers, r)
	}
	in.merger = pcapio.NewMerger(in.readers)
	return in
}

// each calls fn for every record in timestamp order until the input ends or
// ctx is cancelled. Damage in one file is recorded and the others go on. A
// mapped file that shrinks while it is read ends the loop, recorded as
// damage (pcapio.GuardFaults).
func (in *inputs) each(ctx context.Context, fn func(rec *pcapio.Record) error) error {
	var err error
	if ferr := pcapio.GuardFaults(func() error {
		err = in.loop(ctx, fn)
		return nil
	}, in.readers...); ferr != nil {
		in.errs = append(in.errs, ferr)
	}
	return err
}

// mapped reports whether every input is memory-mapped: records then stay
// valid until the inputs are closed.
func (in *inputs) mapped() bool {
	for _, r := range in.readers {
		if !r.Mapped() {
			return false
		}
	}
	return len(in.readers) > 0
}

// loop is each's loop.
func (in *inputs) loop(ctx context.Context, fn func(rec *pcapio.Record) error) error {
	var rec pcapio.Record
	for n := 0; ; n++ {
		if n&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		err := in.merger.Next(&rec)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var de *pcapio.DamageError
			if errors.As(err, &de) {
				in.errs = append(in.errs, err)
				continue
			}
			in.errs = append(in.errs, err)
			return nil
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

// close closes every reader.
func (in *inputs) close() {
	for _, r := range in.readers {
		_ = r.Close()
	}
}

// supportedLink reports whether the decoder understands link type l.
func supportedLink(l pcapio.LinkType) bool {
	return l == pcapio.LinkTypeEthernet || l == pcapio.LinkTypeLinuxSLL || l == pcapio.LinkTypeLinuxSLL2
}

// report prints the input errors to stderr, warns about link types
// rocetrace does not decode, and returns the exit status the errors call
// for.
func (in *inputs) report(stderr io.Writer) int {
	for _, r := range in.readers {
		for _, l := range r.LinkTypes() {
			if !supportedLink(l) {
				fmt.Fprintf(stderr, "rocetrace: warning: %s: link type %s is not decoded (rocetrace reads Ethernet, Linux SLL and SLL2); its frames count as other\n", r.Name(), l)
			}
		}
	}
	for _, err := range in.errs {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
	}
	if len(in.errs) > 0 {
		return exitFailed
	}
	return exitOK
}
