//go:build unix

package pcapio

import "syscall"

// tryRead reads the file of rc once without blocking: n > 0 bytes read, or wouldBlock
// when it has no data yet (EAGAIN on a descriptor the runtime polls, which
// it keeps non-blocking). Anything else (the end, an error, a deadline
// passed, a descriptor in blocking mode that blocked until data came and
// read it) is n > 0 or neither, for the caller's regular read to report.
func tryRead(rc syscall.RawConn, p []byte) (n int, wouldBlock bool) {
	var rerr error
	err := rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr != syscall.EINTR {
				return true
			}
		}
	})
	if err != nil || rerr != nil || n < 0 {
		return 0, err == nil && rerr == syscall.EAGAIN
	}
	return n, false
}
