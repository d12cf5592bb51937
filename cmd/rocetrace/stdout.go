package main

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// isBrokenPipe reports whether err is a write to a pipe whose reader has
// gone (`| head`): that stays quiet. (On os.Stdout the Go runtime raises
// SIGPIPE first, which ends the process as it ends any Unix filter.)
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// writeFailed reports a failed write of what (e.g. "report", "output") to
// stderr, unless it was a broken pipe, which stays quiet.
func writeFailed(stderr io.Writer, what string, err error) {
	if !isBrokenPipe(err) {
		fmt.Fprintf(stderr, "rocetrace: writing %s: %v\n", what, err)
	}
}
