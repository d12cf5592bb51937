package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/export"
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

// TestBulkExportRowGroups exports a synthesized capture of 600 flows (a
// tenth over IPv6) in row groups of a few hundred to a few thousand rows,
// so that each flow's rows span many row groups (each with dictionaries
// of its own), and compares the flow and address columns of every row
// with `packets --json`.
func TestBulkExportRowGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bulk.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteBulk(f, synth.BulkConfig{Frames: 12_000, QPs: 300, Snaplen: 128, Seed: 5})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	_, lines, _ := rt(t, "packets", "--json", path)
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		if o["kind"] != "other" {
			want = append(want, strings.Join([]string{fmt.Sprint(o["flow"]), fmt.Sprint(o["src_mac"]), fmt.Sprint(o["dst_mac"]),
				fmt.Sprint(o["src_ip"]), fmt.Sprint(o["dst_ip"])}, "|"))
		}
	}
	for _, rows := range []string{"333", "4096"} {
		t.Run(rows, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, errOut := rt(t, "export", "--row-group-rows", rows, "-o", dir, path); code != 0 {
				t.Fatalf("export: %d %s", code, errOut)
			}
			var got []string
			for _, r := range expRead[export.PacketRow](t, export.FilePaths(dir).Packets) {
				got = append(got, strings.Join([]string{deref(r.Flow), deref(r.SrcMAC), deref(r.DstMAC), deref(r.SrcIP), deref(r.DstIP)}, "|"))
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, %d frames of interest", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
				}
			}
		})
	}
}

// deref returns *s, or "<nil>" as fmt prints a JSON null.
func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
