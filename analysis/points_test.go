package analysis

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/points"
)

// TestAddSameTrafficThreshold: a pair shares traffic when the shared
// frames are MORE than 1% of the smaller file's RoCE frames.
func TestAddSameTrafficThreshold(t *testing.T) {
	tests := []struct {
		name   string
		roce   []int64
		shared int64
		want   string // "" = no finding
	}{
		{"exactly 1%", []int64{200, 100}, 1, ""},                  // 1*100 <= 100
		{"above 1%", []int64{200, 100}, 2, "(2.0% of"},            // 2 of 100
		{"of the smaller", []int64{100, 10_000}, 50, "(50.0% of"}, // 50 of 100, 0.5% of the larger
		{"no RoCE", []int64{0, 100}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := flows.NewTable(flows.Config{})
			r := Build(tb, CaptureSummary{}, Options{})
			got := AddSameTraffic(&r, tb, []string{"a.pcap", "b.pcap"}, tc.roce, []points.SharedPair{{A: 0, B: 1, Shared: tc.shared}})
			if got != (tc.want != "") || len(r.Findings) != map[bool]int{true: 1, false: 0}[got] {
				t.Fatalf("added %v, findings %v", got, r.Findings)
			}
			if got {
				f := r.Findings[0]
				if f.Code != CodeSameTraffic || f.Severity != SeverityWarning || f.Flow != nil ||
					!strings.Contains(f.Message, "a.pcap and b.pcap") || !strings.Contains(f.Message, tc.want) || !strings.Contains(f.Message, "--point") {
					t.Errorf("finding %+v", f)
				}
			}
		})
	}
}

// TestMergeEventsOrder: hop_loss events go by ts_ns, then flow (the
// reference's first-seen order, then flows it lacks, then pause events
// with no flow), after the other kinds at the same time and flow.
func TestMergeEventsOrder(t *testing.T) {
	f0, f1, other := "f0", "f1", "x"
	order := map[string]int{f0: 0, f1: 1}
	evs := []EventReport{
		{Kind: "psn_gap", TsNs: 10, Flow: &f0},
		{Kind: "psn_gap", TsNs: 10, Flow: &f1},
		{Kind: "pause", TsNs: 10},
		{Kind: "nak", TsNs: 20, Flow: &f0},
	}
	add := []EventReport{
		{Kind: "hop_loss", TsNs: 20, Flow: &f0},
		{Kind: "hop_loss", TsNs: 10, Flow: &other},
		{Kind: "hop_loss", TsNs: 10, Flow: &f0},
		{Kind: "hop_loss", TsNs: 5, Flow: &f1},
	}
	got := mergeEvents(evs, add, order)
	want := []string{"hop_loss@5/f1", "psn_gap@10/f0", "hop_loss@10/f0", "psn_gap@10/f1", "hop_loss@10/x", "pause@10/-", "nak@20/f0", "hop_loss@20/f0"}
	for i, e := range got {
		fl := "-"
		if e.Flow != nil {
			fl = *e.Flow
		}
		if s := e.Kind + "@" + strconv.FormatInt(e.TsNs, 10) + "/" + fl; i >= len(want) || s != want[i] {
			t.Errorf("event %d = %s, want %v", i, s, want)
		}
	}
}
