package main

import (
	"errors"
	"syscall"
)

// isBrokenPipe reports whether err is a write to a pipe whose reader has
// gone (`| head`): that stays quiet. (On os.Stdout the Go runtime raises
// SIGPIPE first, which ends the process as it ends any Unix filter.)
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
