package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRoCEv1Report: the RoCEv1 capture of rocev1Capture analysed like
// RoCEv2, flows keyed by the GIDs. Frame sizes (Ethernet 14 + GRH 40 +
// BTH 12 + headers + payload + pad + ICRC 4): WRITE Only 14+40+12+16+64+4
// = 150, ACK 14+40+12+4+4 = 74, UD SEND Only 14+40+12+8+30+2+4 = 110, CNP
// 14+40+12+16+4 = 86, READ Request 14+40+12+16+4 = 86 (its ICRC flipped).
func TestRoCEv1Report(t *testing.T) {
	path := writeRoCEv1(t, filepath.Join(t.TempDir(), "v1.pcap"))
	m := reportJSON(t, path)
	c := m["capture"].(map[string]any)
	for k, want := range map[string]float64{"packets": 5, "roce_packets": 5, "cnp_packets": 1, "icrc_bad": 1, "malformed": 0} {
		if c[k] != want {
			t.Errorf("capture.%s = %v, want %v", k, c[k], want)
		}
	}
	want := map[string][2]float64{ // packets, bytes
		"[fd00::1]>[fd00::2]:qp0x000011":             {2, 150 + 86},
		"[fd00::2]>[fd00::1]:qp0x000022":             {2, 74 + 86},
		"[fd00::1]>[fd00::2]:qp0x000033/src0x000044": {1, 110},
	}
	got := map[string][2]float64{}
	for _, f := range m["flows"].([]any) {
		f := f.(map[string]any)
		got[f["id"].(string)] = [2]float64{f["packets"].(float64), f["bytes"].(float64)}
		if f["id"] == "[fd00::1]>[fd00::2]:qp0x000011" && (f["payload_bytes"] != 64.0 || f["ecn_ce"] != 1.0 || f["src_ip"] != "fd00::1") {
			t.Errorf("WRITE flow: %v", f)
		}
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("flow %s: packets, bytes %v, want %v (all: %v)", id, got[id], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("flows %v, want %v", got, want)
	}
	code, out, _ := rt(t, "packets", path)
	if code != 0 || strings.Count(out, "[RoCEv1]") != 5 || !strings.Contains(out, "RC_RDMA_READ_REQUEST QP=0x000011 PSN=101 len=4096 [ICRC bad] [RoCEv1]") {
		t.Errorf("packets: exit %d\n%s", code, out)
	}
	code, out, _ = rt(t, "packets", "--json", path)
	if code != 0 || strings.Count(out, `"roce_version":1`) != 5 || !strings.Contains(out, `"flow":"[fd00::1]>[fd00::2]:qp0x000011"`) {
		t.Errorf("packets --json: exit %d\n%s", code, out)
	}
}
