package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// hostileCapture writes synth.WriteHostile(h, n) to a temporary file.
func hostileCapture(t *testing.T, h synth.Hostile, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteHostile(f, h, n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaxFlows: with --max-flows N, a capture of N+k one-packet flows
// reports N flows and k dropped frames (all N+k frames still counted), and
// a flows_dropped warning; frames of a known flow are never dropped.
func TestMaxFlows(t *testing.T) {
	flows10 := hostileCapture(t, synth.HostileFlows, 10)
	gaps5 := hostileCapture(t, synth.HostileGaps, 5) // one flow, 6 frames
	tests := []struct {
		name           string
		args           []string
		flows, dropped int64
		packets        int64
	}{
		{"7 of 10", []string{"--max-flows", "7", flows10}, 7, 3, 10},
		{"1 of 10", []string{"--max-flows=1", flows10}, 1, 9, 10},
		{"10 of 10", []string{"--max-flows", "10", flows10}, 10, 0, 10},
		{"default", []string{flows10}, 10, 0, 10},
		{"one flow", []string{"--max-flows", "1", gaps5}, 1, 0, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := reportJSON(t, tc.args...)
			c := m["capture"].(map[string]any)
			if got := int64(len(m["flows"].([]any))); got != tc.flows {
				t.Errorf("flows = %d, want %d", got, tc.flows)
			}
			if got := int64(c["flows_dropped"].(float64)); got != tc.dropped {
				t.Errorf("flows_dropped = %d, want %d", got, tc.dropped)
			}
			if got := int64(c["packets"].(float64)); got != tc.packets {
				t.Errorf("packets = %d, want %d", got, tc.packets)
			}
			if got := int64(c["roce_packets"].(float64)); got != tc.packets {
				t.Errorf("roce_packets = %d, want %d", got, tc.packets)
			}
			found := 0
			for _, f := range m["findings"].([]any) {
				if f.(map[string]any)["code"] == "flows_dropped" {
					found++
				}
			}
			if want := min(tc.dropped, 1); int64(found) != want {
				t.Errorf("%d flows_dropped findings, want %d", found, want)
			}
		})
	}
}

// TestMaxFlowsFlag: --max-flows is on every command that analyses, and a
// value below 1 is a usage error.
func TestMaxFlowsFlag(t *testing.T) {
	path := hostileCapture(t, synth.HostileFlows, 3)
	for _, args := range [][]string{
		{"report", "--max-flows", "0", path},
		{"report", "--max-flows", "-5", path},
		{"export", "-o", t.TempDir(), "--max-flows", "0", path},
		{"tui", "--max-flows", "0", path},
	} {
		code, _, errOut := rt(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "invalid --max-flows") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and invalid --max-flows", args, code, errOut)
		}
	}
	code, out, errOut := rt(t, "export", "-o", t.TempDir(), "--max-flows", "2", path)
	if code != 0 || !strings.Contains(out, "flows.parquet: 2 rows") || !strings.Contains(out, "packets.parquet: 3 rows") {
		t.Errorf("export --max-flows 2: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
