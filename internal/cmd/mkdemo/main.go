// Command mkdemo writes the demo captures of pcaps/ from the synthesizer's
// scenarios: go run ./internal/cmd/mkdemo [DIR] (default pcaps).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rocetrace/rocetrace/internal/synth"
)

func main() {
	dir := "pcaps"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mkdemo:", err)
		os.Exit(1)
	}
	for _, s := range synth.Scenarios() {
		path := filepath.Join(dir, s.Name+synth.Extension(s.Format))
		if err := s.Build().WriteFile(path, s.Format); err != nil {
			fmt.Fprintln(os.Stderr, "mkdemo:", err)
			os.Exit(1)
		}
		fmt.Println(path)
	}
}
