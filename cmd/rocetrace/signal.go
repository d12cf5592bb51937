package main

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// exitSIGINT and exitSIGTERM are the exit statuses of a command a signal
// interrupted: 128 + the signal's number, as a shell reports it.
const (
	exitSIGINT  = 128 + int(syscall.SIGINT)
	exitSIGTERM = 128 + int(syscall.SIGTERM)
)

// signalError is the cause of the context main cancels on a signal: it
// names the signal, and the exit status it calls for.
type signalError struct{ sig os.Signal }

// Error returns e.g. "interrupted by SIGINT".
func (e signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "interrupted by SIGTERM"
	}
	return "interrupted by SIGINT"
}

// ExitCode returns 130 for SIGINT, 143 for SIGTERM.
func (e signalError) ExitCode() int {
	if e.sig == syscall.SIGTERM {
		return exitSIGTERM
	}
	return exitSIGINT
}

// interruptStatus returns the exit status of a command ctx interrupted:
// the signal's (130, 143) when a signal ended ctx, else 1.
func interruptStatus(ctx context.Context) int {
	var se signalError
	if errors.As(context.Cause(ctx), &se) {
		return se.ExitCode()
	}
	return exitFailed
}
