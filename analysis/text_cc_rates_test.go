package analysis

import "testing"

// TestCCMedianRates: the DCQCN section's rate columns are the nearest-rank
// medians (ceil(n/2)-th smallest) of the listed flows' cnp rates, over the
// CNPs with both rates and rate_before_bps > 0 (those cc_reaction_cnps
// counts).
func TestCCMedianRates(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	s := func(v string) *string { return &v }
	cnp := func(target string, before, after *int64) EventReport {
		return EventReport{Kind: "cnp", TargetFlow: s(target), RateBeforeBps: before, RateAfterBps: after}
	}
	evs := []EventReport{
		cnp("x", i64(30), i64(3)),
		cnp("x", i64(10), i64(1)),
		{Kind: "nak", TargetFlow: s("x")},
		cnp("x", i64(20), i64(2)),
		cnp("x", i64(99), nil),   // no after-rate: left out
		cnp("x", i64(0), i64(7)), // before 0: left out
		cnp("y", i64(40), i64(400)),
		cnp("y", i64(10), i64(100)),
		cnp("y", i64(30), i64(300)),
		cnp("y", i64(20), i64(200)),
		cnp("z", i64(5), i64(5)),                                   // not listed
		{Kind: "cnp", RateBeforeBps: i64(1), RateAfterBps: i64(1)}, // no target
	}
	got := ccMedianRates(&Report{Events: evs}, []*FlowReport{{ID: "x"}, {ID: "y"}, {ID: "w"}})
	want := map[string][2]int64{
		"x": {20, 2},   // before 10 20 30, after 1 2 3: the 2nd of 3
		"y": {20, 200}, // 10 20 30 40: the 2nd of 4 (ceil(4/2))
		"w": {0, 0},    // no CNP
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %v, want %v", id, got[id], w)
		}
	}
}
