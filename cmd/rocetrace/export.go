package main

import (
	"context"
	"fmt"
	"io"
)

// runExport implements `rocetrace export`. Not built yet (see the project issues).
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "rocetrace export: not available in this build yet")
	return exitUsage
}
