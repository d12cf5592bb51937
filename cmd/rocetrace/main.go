// Command rocetrace analyses RoCEv2 packet captures: it decodes every RoCE,
// CNP and PFC frame, rebuilds queue-pair flows and reports PSN gaps, NAKs,
// retransmissions, ECN-to-CNP latency and pause episodes.
package main

import (
	"context"
	"fmt"
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
	watch := watchdogWanted(os.Args)
	go func() {
		sig := <-sigs
		se := signalError{sig}
		cancel(se)
		if !watch {
			return
		}
		// The command stops within a second whatever it is blocked on (a
		// write to a stalled stdout included): else the process ends here.
		select {
		case <-time.After(watchdogDelay):
		case <-sigs:
		}
		fmt.Fprintf(os.Stderr, "rocetrace: %v; did not stop within %v: exiting\n", se, watchdogDelay)
		os.Exit(se.ExitCode())
	}()
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// watchdogWanted reports whether the command of args ends on a signal
// (report, packets, export): capture and tui end on a signal by design,
// printing their report or restoring the terminal, and are not cut short.
func watchdogWanted(args []string) bool {
	return len(args) < 2 || (args[1] != "capture" && args[1] != "tui")
}
