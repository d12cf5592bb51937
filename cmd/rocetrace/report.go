package main

import (
	"context"
	"io"
)

func runReport(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	return exitUsage
}
