package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/tui"
)

// runTUI implements `rocetrace tui [flags] FILE...`: the terminal UI over
// captures. Input errors are printed once the terminal is restored, with
// the exit status `rocetrace report` would give.
func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if liveRequested(args) {
		fmt.Fprintln(stderr, "rocetrace tui -i: live capture is not available in this build yet; give capture files")
		return exitUsage
	}
	var c common
	fs := newFlagSet("tui", "tui [flags] FILE...", stderr)
	fs.StringP("interface", "i", "", "live capture from this interface (not available in this build yet)")
	pauseStorm := fs.Duration("pause-storm", 0, "pause episode length reported as a pause storm (default 100ms)")
	c.register(fs.FlagSet)
	if code := fs.parse(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	m, err := tui.Open(tui.Config{
		Paths:    fs.Args(),
		Decode:   decode.Config{RoCEPort: c.rocePort},
		Flows:    flows.Config{PMTU: c.pmtuVal, LinkSpeedBps: c.linkBps},
		Analysis: analysis.Options{PauseStormNs: pauseStorm.Nanoseconds()},
	})
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "rocetrace: %s\n", line)
		}
		return exitFailed
	}
	if !isTerminal(stdout) {
		m.Close()
		fmt.Fprintln(stderr, "rocetrace tui: the terminal UI needs a terminal; for a report on a pipe use 'rocetrace report'")
		return exitUsage
	}
	errs, err := tui.Run(ctx, m, nil)
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace tui: %v\n", err)
		return exitFailed
	}
	for _, err := range errs {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
	}
	if len(errs) > 0 {
		return exitFailed
	}
	return exitOK
}

// liveRequested reports whether the arguments ask for live capture (-i).
func liveRequested(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--interface" || strings.HasPrefix(a, "--interface="):
			return true
		case strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--"):
			return true
		}
	}
	return false
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
