package main

import (
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestVXLANPortFlag: the mixed scenario in VXLAN on UDP port 8472 (Linux's
// old default) is plain UDP without --vxlan-port (no RoCE frame: 0 of the
// scenario's 99), and the scenario itself with --vxlan-port 8472 (99 RoCE
// frames, 2 of them CNPs, as TestTSharkDifferentialOverlays counts). Port 0
// is a usage error.
func TestVXLANPortFlag(t *testing.T) {
	c, err := synth.Rewrap(mixedScenario(), synth.Wrap{Tunnel: synth.TunnelVXLAN, TunnelPort: 8472})
	if err != nil {
		t.Fatal(err)
	}
	path := writeCapture(t, c, synth.PcapNanos)
	for _, tc := range []struct {
		args      []string
		roce, cnp float64
	}{
		{nil, 0, 0},
		{[]string{"--vxlan-port", "8472"}, 99, 2},
	} {
		m := reportJSON(t, append(tc.args, path)...)
		capt := m["capture"].(map[string]any)
		if capt["roce_packets"] != tc.roce || capt["cnp_packets"] != tc.cnp || capt["packets"] != 603.0 {
			t.Errorf("%v: capture %v, want %v RoCE and %v CNP frames of 603", tc.args, capt, tc.roce, tc.cnp)
		}
	}
	code, out, _ := rt(t, "packets", "--json", "--vxlan-port", "8472", path)
	if code != 0 || !strings.Contains(out, `"encap":"VXLAN"`) {
		t.Errorf("packets --json --vxlan-port 8472: exit %d, no VXLAN encap", code)
	}
	if code, _, errOut := rt(t, "report", "--vxlan-port", "0", path); code != 2 || !strings.Contains(errOut, "invalid --vxlan-port 0") {
		t.Errorf("--vxlan-port 0: exit %d, %q", code, errOut)
	}
}
