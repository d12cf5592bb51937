// Command rocetrace analyses RoCEv2 packet captures: it decodes every RoCE,
// CNP and PFC frame, rebuilds queue-pair flows and reports PSN gaps, NAKs,
// retransmissions, ECN-to-CNP latency and pause episodes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
