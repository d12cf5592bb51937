package pcapio

import (
	"io"
	"os"
)

// Waiting streams. A pipe, FIFO or socket is read through a waitReader:
// when a read would block (the writer has written nothing more yet), it
// first calls the Reader's OnWait function, then blocks as before. The
// test is a non-blocking read where the runtime polls the descriptor
// (rawTry): one read(2) when data is there, as before, and one more only
// when there is none. Regular files are never read through it.

// waitReader reads f, calling wait (when set) before a read that would
// block.
type waitReader struct {
	f    *os.File
	raw  *rawTry // nil when f cannot be tried without blocking
	wait func()
}

func (w *waitReader) Read(p []byte) (int, error) {
	if w.wait != nil && w.raw != nil && len(p) > 0 {
		n, wouldBlock := w.raw.try(p)
		if n > 0 {
			return n, nil
		}
		if wouldBlock {
			w.wait()
		}
		// Nothing read: the end, an error, a deadline (Interrupt) or no
		// data yet. The regular read says which, or waits for data.
	}
	return w.f.Read(p)
}

// newWaitReader returns f read through a waitReader when f is not a
// regular file (the Reader then reports waits, see OnWait), else f.
func newWaitReader(f *os.File) (io.Reader, *waitReader) {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		return f, nil
	}
	w := &waitReader{f: f, raw: newRawTry(f)}
	return w, w
}

// OnWait sets fn to be called, on the goroutine that calls Next and from
// within it, each time a read of the Reader's pipe, FIFO or socket (plain
// or compressed) would block because nothing more has been written yet:
// every whole record read so far has then been returned by Next (of a
// compressed stream: as far as the decompressor gave it out, which a
// writer's flush makes complete).
// fn may not call the Reader. Regular files never wait and never call it;
// nil removes it. Set it between calls of Next, not while one runs.
func (r *Reader) OnWait(fn func()) {
	if r.wait != nil {
		r.wait.wait = fn
	}
}
