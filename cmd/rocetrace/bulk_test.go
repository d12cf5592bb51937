package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// sumFlows adds up one counter over every flow of a JSON report.
func sumFlows(m map[string]any, key string) int64 {
	var n int64
	for _, f := range m["flows"].([]any) {
		n += int64(f.(map[string]any)[key].(float64))
	}
	return n
}

// TestBulkCountsExact analyses a 60k-frame mixed capture over 300 QPs and
// requires every count to equal what the generator wrote.
func TestBulkCountsExact(t *testing.T) {
	for _, snap := range []int{0, 128} {
		path := filepath.Join(t.TempDir(), "bulk.pcap")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := synth.WriteBulk(f, synth.BulkConfig{Frames: 60_000, QPs: 300, Snaplen: snap, Seed: 7, NAKShare: 0.02})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		m := reportJSON(t, path)
		c := m["capture"].(map[string]any)
		checks := []struct {
			name      string
			got, want int64
		}{
			{"packets", int64(c["packets"].(float64)), st.Frames},
			{"roce_packets", int64(c["roce_packets"].(float64)), st.RoCE},
			{"cnp_packets", int64(c["cnp_packets"].(float64)), st.CNPs},
			{"pfc_frames", int64(c["pfc_frames"].(float64)), st.PFC},
			{"naks", sumFlows(m, "naks"), st.NAKs},
			{"psn_gaps", sumFlows(m, "psn_gaps"), st.NAKs},
			{"missing_psns", sumFlows(m, "missing_psns"), st.NAKs},
			{"retransmitted", sumFlows(m, "retransmitted"), st.Replayed},
			{"cnps_received", sumFlows(m, "cnps_received"), st.CNPs},
			{"cnp_latency.count", int64(m["cnp_latency"].(map[string]any)["count"].(float64)), st.CNPs},
			{"flows", int64(len(m["flows"].([]any))), 2 * int64(st.Connections)},
		}
		for _, ck := range checks {
			if ck.got != ck.want {
				t.Errorf("snaplen %d: %s = %d, want %d", snap, ck.name, ck.got, ck.want)
			}
		}
		if st.NAKs == 0 || st.CNPs == 0 || st.PFC == 0 {
			t.Fatalf("generator wrote no NAK/CNP/PFC: %+v", st)
		}
	}
}
