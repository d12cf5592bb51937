//go:build !unix

package pcapio

import "os"

// rawTry: no non-blocking read here, so a stream's reads block without
// calling OnWait's function.
type rawTry struct{}

func newRawTry(*os.File) *rawTry { return nil }

func (*rawTry) try([]byte) (n int, wouldBlock bool) { return 0, false }
