package main

import (
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// The tui command's wiring: usage errors, unreadable inputs and a missing
// terminal are reported before any screen is taken over. (The UI itself is
// tested in package tui, and end to end in a real terminal by
// scripts/tui-e2e.sh.)
func TestTUICommand(t *testing.T) {
	good := writeCapture(t, synth.LossNAKReplay(), synth.PcapNanos)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"tui", "-h"}, exitOK, "Usage: rocetrace tui", ""},
		{"no file", []string{"tui"}, exitUsage, "", "no capture file given"},
		{"bad flag", []string{"tui", "--nope", good}, exitUsage, "", "unknown flag"},
		{"bad link speed", []string{"tui", "--link-speed", "fast", good}, exitUsage, "", "invalid --link-speed"},
		{"live and files", []string{"tui", "-i", "eth0", good}, exitUsage, "", "takes no file arguments"},
		{"write without live", []string{"tui", "-w", "x.pcapng", good}, exitUsage, "", "need -i IFACE"},
		{"live bad buffer", []string{"tui", "-i", "eth0", "--buffer-size", "lots"}, exitUsage, "", "invalid --buffer-size"},
		{"live no interface", []string{"tui", "--interface=rtnosuch0"}, exitFailed, "", "rtnosuch0"},
		{"missing", []string{"tui", "/nonexistent/x.pcap"}, exitFailed, "", "x.pcap"},
		{"not a terminal", []string{"tui", good}, exitUsage, "", "needs a terminal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := rt(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("stdout %q / stderr %q, want %q / %q", stdout, stderr, tt.stdout, tt.stderr)
			}
		})
	}
}
