package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Inputs is the merged stream of records of a set of capture files, in
// timestamp order, with the errors met on the way: files that could not be
// opened, damage part-way. The policy is the command line's: a file that
// cannot be opened is recorded and left out, the others are read; damage in
// one file is recorded and the others go on; a read error ends the input.
// Every recorded error makes a command exit with status 1 (Failed).
type Inputs struct {
	names   []string
	readers []*pcapio.Reader
	byFile  []*pcapio.Reader // by file index; nil: could not be opened
	merger  *pcapio.Merger
	size    int64 // bytes of the regular files opened

	// last is the file index of the last record read (-1: none);
	// stopOpen the file whose opening ctx interrupted (-1: none);
	// interrupted: ctx ended the reading. Written by the reading goroutine,
	// read once it is done.
	last        int
	stopOpen    int
	interrupted bool

	mu      sync.Mutex // guards errs and layouts: the reading goroutine appends
	errs    []error
	track   bool
	cur     []*pcapio.Layout
	settled []bool // per file: its layout cannot change any more (a pcap file's, once known)
	layouts [][]LayoutPoint
}

// LayoutPoint says from which byte offset of a file on a record layout is
// in force (see pcapio.Layout and pcapio.ReadRecordAt).
type LayoutPoint struct {
	Off    int64
	Layout *pcapio.Layout
}

// Open opens every path, memory-mapped when it is a large regular file
// (pcapio.OpenFileMapped), buffered otherwise; "-" is standard
// input, and gzip or zstd files and streams are decompressed (by magic).
// A file that cannot be opened is recorded in Errors and left out.
func Open(paths []string) *Inputs { return OpenWith(paths, pcapio.OpenFileMapped) }

// OpenContext is Open that gives up when ctx ends while a file is being
// opened (an open(2) of a FIFO blocks until a writer comes; reading the
// header of a pipe blocks until it is written): the inputs are then
// interrupted there (Interrupted, Stopped) and hold the files opened before.
// The abandoned open goes on, on a goroutine of its own, and closes what it
// opens.
func OpenContext(ctx context.Context, paths []string) *Inputs {
	return openContext(ctx, paths, pcapio.OpenFileMapped)
}

// OpenWith is Open with open opening each file (file is its index in paths).
func OpenWith(paths []string, open func(path string, file int) (*pcapio.Reader, error)) *Inputs {
	return openContext(context.Background(), paths, open)
}

// openContext is OpenContext with open opening each file.
func openContext(ctx context.Context, paths []string, open func(path string, file int) (*pcapio.Reader, error)) *Inputs {
	in := &Inputs{names: paths, byFile: make([]*pcapio.Reader, len(paths)), last: -1, stopOpen: -1}
	for i, p := range paths {
		r, ok, err := openOne(ctx, p, i, open)
		if !ok {
			in.stopOpen = i
			break
		}
		if err != nil {
			in.errs = append(in.errs, err)
			continue
		}
		// The size of the regular files read as they are (a compressed
		// file's offsets run past its size): progress, see Size.
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && p != pcapio.StdinName && !r.Compressed() {
			in.size += st.Size()
		}
		in.readers = append(in.readers, r)
		in.byFile[i] = r
	}
	in.merger = pcapio.NewMerger(in.readers)
	return in
}

// openOne opens one file, on a goroutine when ctx can end; ok is false when
// ctx ended first.
func openOne(ctx context.Context, path string, file int, open func(path string, file int) (*pcapio.Reader, error)) (r *pcapio.Reader, ok bool, err error) {
	if ctx.Done() == nil {
		r, err = open(path, file)
		return r, true, err
	}
	if ctx.Err() != nil {
		return nil, false, nil
	}
	type opened struct {
		r   *pcapio.Reader
		err error
	}
	ch := make(chan opened, 1)
	abandon := make(chan struct{})
	go func() {
		r, err := open(path, file)
		select {
		case ch <- opened{r, err}:
		case <-abandon:
			if r != nil {
				_ = r.Close()
			}
		}
	}()
	select {
	case o := <-ch:
		return o.r, true, o.err
	case <-ctx.Done():
		close(abandon)
		select { // opened meanwhile: keep it closed all the same
		case o := <-ch:
			if o.r != nil {
				_ = o.r.Close()
			}
		default:
		}
		return nil, false, nil
	}
}

// Interrupted reports whether the reading (or the opening) was stopped
// by the end of its context before the end of the input.
func (in *Inputs) Interrupted() bool { return in.interrupted || in.stopOpen >= 0 }

// Stopped returns where the reading stopped: the file and the byte offset
// of the next record not read (in the file of the last record read, or the
// first file when none was read; a file whose opening was interrupted at
// offset 0). Call it before Close.
func (in *Inputs) Stopped() (file string, off int64) {
	switch {
	case in.last >= 0:
		return in.names[in.last], in.byFile[in.last].Offset()
	case len(in.readers) > 0 && in.stopOpen < 0:
		return in.readers[0].Name(), in.readers[0].Offset()
	case in.stopOpen >= 0:
		return in.names[in.stopOpen], 0
	case len(in.names) > 0:
		return in.names[0], 0
	}
	return "", 0
}

// Interruption returns the message of an interrupted reading that analysed
// frames frames: "interrupted after N frames (FILE, byte offset O)".
func (in *Inputs) Interruption(frames int64) string {
	file, off := in.Stopped()
	return fmt.Sprintf("interrupted after %d frames (%s, byte offset %d)", frames, file, off)
}

// Names returns the paths given to Open, opened or not: the capture
// summary's file list.
func (in *Inputs) Names() []string { return in.names }

// Opened returns the number of files that could be opened.
func (in *Inputs) Opened() int { return len(in.readers) }

// Size returns the total size in bytes of the regular files opened, but
// for compressed ones (their offsets are those of the decompressed stream).
func (in *Inputs) Size() int64 { return in.size }

// Mapped reports whether every input is memory-mapped: records then stay
// valid until the inputs are closed.
func (in *Inputs) Mapped() bool {
	for _, r := range in.readers {
		if !r.Mapped() {
			return false
		}
	}
	return len(in.readers) > 0
}

// Errors returns the errors recorded so far.
func (in *Inputs) Errors() []error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]error(nil), in.errs...)
}

// Failed reports whether an error was recorded: the exit status is then 1.
func (in *Inputs) Failed() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.errs) > 0
}

func (in *Inputs) addErr(err error) {
	in.mu.Lock()
	in.errs = append(in.errs, err)
	in.mu.Unlock()
}

// addFault records the damage a fault on a mapped file that shrank gave
// (pcapio.GuardFaults): the reading and the checking goroutine may both
// meet it, so a file gets one such error, at the earlier of the records
// they name (the first record not fully read).
func (in *Inputs) addFault(err error) {
	var de *pcapio.DamageError
	if !errors.As(err, &de) || de.Reason != pcapio.ReasonShrank {
		in.addErr(err)
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for i, e := range in.errs {
		var prev *pcapio.DamageError
		if errors.As(e, &prev) && prev.Reason == pcapio.ReasonShrank && prev.File == de.File {
			if de.Offset < prev.Offset {
				in.errs[i] = err
			}
			return
		}
	}
	in.errs = append(in.errs, err)
}

// TrackLayouts makes the reading record, per file, where its record layout
// changes (Layouts), for a viewer that reads records again at their offsets.
// Call it before reading.
func (in *Inputs) TrackLayouts() {
	in.track = true
	in.cur = make([]*pcapio.Layout, len(in.names))
	in.settled = make([]bool, len(in.names))
	in.layouts = make([][]LayoutPoint, len(in.names))
}

// Layouts returns, per file, the layouts seen so far and where each starts
// (a copy; safe while another goroutine reads). Nil unless TrackLayouts was
// called.
func (in *Inputs) Layouts() [][]LayoutPoint {
	if !in.track {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([][]LayoutPoint, len(in.layouts))
	for i, l := range in.layouts {
		out[i] = l[:len(l):len(l)]
	}
	return out
}

// trackLayout records rec's layout when it differs from the one before. A
// pcap file has one layout (one file header): once known, it is settled
// and its records are not looked at again.
func (in *Inputs) trackLayout(rec *pcapio.Record) {
	f := rec.File
	r := in.byFile[f]
	if lay := r.Layout(in.cur[f]); lay != in.cur[f] {
		in.settled[f] = r.Format() == "pcap"
		in.cur[f] = lay
		in.mu.Lock()
		in.layouts[f] = append(in.layouts[f], LayoutPoint{Off: rec.Offset, Layout: lay})
		in.mu.Unlock()
	}
}

// stopped records that ctx ended the reading and returns ctx's error.
func (in *Inputs) stopped(ctx context.Context) error {
	err := ctx.Err()
	if !errors.Is(err, errStopped) {
		in.interrupted = true
	}
	return err
}

// onWait sets fn to be called on the reading goroutine when a read of a
// pipe or FIFO would block (pcapio.Reader.OnWait); nil removes it.
func (in *Inputs) onWait(fn func()) {
	for _, r := range in.readers {
		r.OnWait(fn)
	}
}

// Close closes every reader.
func (in *Inputs) Close() error {
	var errs []error
	for _, r := range in.readers {
		if err := r.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SupportedLink reports whether the decoder understands link type l.
func SupportedLink(l pcapio.LinkType) bool {
	switch l {
	case pcapio.LinkTypeEthernet, pcapio.LinkTypeLinuxSLL, pcapio.LinkTypeLinuxSLL2,
		pcapio.LinkTypeRaw, pcapio.LinkTypeRawDLT12, pcapio.LinkTypeRawDLT14, pcapio.LinkTypeIPv4, pcapio.LinkTypeIPv6:
		return true
	}
	return false
}

// WriteErrors prints, one line each prefixed "rocetrace: ", a warning for
// every link type the decoder does not read, then every recorded error;
// it reports whether there was an error (the exit status is then 1).
func (in *Inputs) WriteErrors(w io.Writer) (failed bool) {
	for _, r := range in.readers {
		for _, l := range r.LinkTypes() {
			if !SupportedLink(l) {
				fmt.Fprintf(w, "rocetrace: warning: %s: link type %s is not decoded (rocetrace reads Ethernet, Linux SLL and SLL2, raw IP); its frames count as other\n", r.Name(), l)
			}
		}
	}
	errs := in.Errors()
	for _, err := range errs {
		fmt.Fprintf(w, "rocetrace: %v\n", err)
	}
	return len(errs) > 0
}
