package main

import (
	"context"
	"fmt"
	"io"
)

// runTUI implements `rocetrace tui`. Not built yet (see the project issues).
func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rocetrace tui: not available in this build yet")
	return exitUsage
}
