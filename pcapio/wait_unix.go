//go:build unix

package pcapio

import (
	"os"
	"syscall"
)

// rawTry reads a file the runtime polls (so it keeps its descriptor
// non-blocking) once, without waiting. Its read function is made once:
// a try allocates nothing.
type rawTry struct {
	rc   syscall.RawConn
	p    []byte
	n    int
	err  error
	read func(fd uintptr) bool
}

// newRawTry returns the try reader of f, nil when f has no descriptor.
func newRawTry(f *os.File) *rawTry {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	t := &rawTry{rc: rc}
	t.read = func(fd uintptr) bool {
		for {
			t.n, t.err = syscall.Read(int(fd), t.p)
			if t.err != syscall.EINTR {
				return true
			}
		}
	}
	return t
}

// try reads into p once: n > 0 bytes read, or wouldBlock when the file
// has no data yet (EAGAIN). Anything else (the end, an error, a deadline
// passed, a descriptor in blocking mode, which blocks until data comes)
// gives n > 0 or neither, for the caller's regular read to report.
func (t *rawTry) try(p []byte) (n int, wouldBlock bool) {
	t.p = p
	err := t.rc.Read(t.read)
	t.p = nil
	if err != nil || t.err != nil || t.n < 0 {
		return 0, err == nil && t.err == syscall.EAGAIN
	}
	return t.n, false
}
