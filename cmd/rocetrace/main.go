// Command rocetrace analyses RoCEv2 packet captures: it decodes every RoCE,
// CNP and PFC frame, rebuilds queue-pair flows and reports PSN gaps, NAKs,
// retransmissions, ECN-to-CNP latency and pause episodes.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// watchdogDelay is how long a command may take to return after SIGINT or
// SIGTERM before main ends the process itself.
const watchdogDelay = time.Second

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	hooks := &exitHooks{} // the watchdog's cleanups (an export's temporary files)
	go watchSignals(sigs, cancel, watchdogWanted(os.Args), hooks, os.Stderr, os.Exit)
	paceGC(os.Args, os.Getenv) // gcpace.go
	code := runWithHooks(ctx, hooks, os.Args, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// watchSignals cancels the command's context on the first signal, with a
// cause naming it. With watch (the watchdog), it then ends the process
// with exit, the signal's status, when the command has not returned a
// second later (or at a second signal): the command stops within a second
// whatever it is blocked on (a write to a stalled stdout included), else
// the process ends here, after hooks (an export's temporary files are
// removed; at most another second).
func watchSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, watch bool, hooks *exitHooks, stderr io.Writer, exit func(int)) {
	se := signalError{<-sigs}
	cancel(se)
	if !watch {
		return
	}
	select {
	case <-time.After(watchdogDelay):
	case <-sigs:
	}
	hooks.run(watchdogDelay)
	fmt.Fprintf(stderr, "rocetrace: %v; did not stop within %v: exiting\n", se, watchdogDelay)
	exit(se.ExitCode())
}

// watchdogWanted reports whether the command of args ends on a signal
// (report, packets, export): capture and tui end on a signal by design,
// printing their report or restoring the terminal, and are not cut short.
func watchdogWanted(args []string) bool {
	return len(args) < 2 || (args[1] != "capture" && args[1] != "tui")
}
