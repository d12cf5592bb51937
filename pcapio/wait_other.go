//go:build !unix

package pcapio

import "syscall"

// tryRead: no non-blocking read here; the regular read blocks and OnWait
// is never called.
func tryRead(syscall.RawConn, []byte) (n int, wouldBlock bool) { return 0, false }
