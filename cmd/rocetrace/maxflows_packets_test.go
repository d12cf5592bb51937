package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestPacketsMaxFlows: packets analyses (a frame's flow and events), so it
// takes --max-flows like report (contract "Interruption, stdout errors and
// bounded memory"). Capture: QP pair 1 sends PSN 0 at t0 and 1 at t0+2 µs,
// QP pair 2 sends PSN 0 at t0+1 µs and PSN 2 at t0+3 µs (frame 4: a
// psn_gap, expected 1, 1 missing). With --max-flows 1 the second flow is
// never tracked: all 4 frames print, none shows an event; by default frame
// 4 shows psn_gap.
func TestPacketsMaxFlows(t *testing.T) {
	const t0 = int64(1_000_000_000_000)
	c := &synth.Capture{}
	q1 := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 0, 0)
	q2 := synth.NewConn(c, synth.Host(3), synth.Host(4), 0x33, 0x44, 0, 0)
	q1.Request(synth.A, t0, decode.OpSendOnly, 8, nil)
	q2.Request(synth.A, t0+1000, decode.OpSendOnly, 8, nil)
	q1.Request(synth.A, t0+2000, decode.OpSendOnly, 8, nil)
	q2.Lose(synth.A, 1)
	q2.Request(synth.A, t0+3000, decode.OpSendOnly, 8, nil)
	path := filepath.Join(t.TempDir(), "two.pcap")
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		frames []string // the frame numbers printed
	}{
		{[]string{"packets", path}, []string{"1", "2", "3", "4"}},
		{[]string{"packets", "--max-flows", "1", path}, []string{"1", "2", "3", "4"}},
		{[]string{"packets", "-Y", "events", path}, []string{"4"}},
		{[]string{"packets", "-Y", "events", "--max-flows", "1", path}, nil},
		{[]string{"packets", "-Y", "events", "--max-flows", "2", path}, []string{"4"}},
	}
	for _, tc := range tests {
		code, out, errOut := rt(t, tc.args...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				got = append(got, f[0])
			}
		}
		if code != 0 || strings.Join(got, " ") != strings.Join(tc.frames, " ") {
			t.Errorf("%q: exit %d, frames %q (stderr %q), want 0 and %q", tc.args, code, got, errOut, tc.frames)
		}
	}
	if code, _, errOut := rt(t, "packets", "--max-flows", "0", path); code != exitUsage || !strings.Contains(errOut, "invalid --max-flows") {
		t.Errorf("packets --max-flows 0: exit %d, stderr %q; want 2 and invalid --max-flows", code, errOut)
	}
}
