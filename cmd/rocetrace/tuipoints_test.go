package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestTUIPoints: tui --point is wired as on report (FILE arguments, a
// duplicate or malformed --point: usage errors), does not go with -i or the
// live flags, and with good points reaches the terminal check (the model
// opened every point's files).
func TestTUIPoints(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(), "pcaps")
	up := "up=" + filepath.Join(dir, "two_points_up.pcap")
	down := "down=" + filepath.Join(dir, "two_points_down.pcap")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"file arguments", []string{"tui", "--point", up, "y.pcap"}, exitUsage, "not allowed with --point"},
		{"twice", []string{"tui", "--point", up, "--point", "up=y.pcap"}, exitUsage, "given twice"},
		{"no name", []string{"tui", "--point", "=x.pcap"}, exitUsage, "want NAME=FILE"},
		{"empty file", []string{"tui", "--point", "a=x.pcap,"}, exitUsage, "an empty file name"},
		{"live", []string{"tui", "-i", "eth0", "--point", up}, exitUsage, "--point and -i do not go together"},
		{"write", []string{"tui", "-w", "x.pcapng", "--point", up}, exitUsage, "need -i IFACE"},
		{"missing", []string{"tui", "--point", "a=/nonexistent/x.pcap"}, exitFailed, "x.pcap"},
		{"not a terminal", []string{"tui", "--point", up, "--point", down}, exitUsage, "needs a terminal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := rt(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d (want %d), stderr %q, want %q", code, tt.code, stderr, tt.stderr)
			}
		})
	}
}
