package main

import (
	"context"
	"fmt"
	"io"
)

// runCapture implements `rocetrace capture`. Not built yet (see the project issues).
func runCapture(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rocetrace capture: not available in this build yet")
	return exitUsage
}
