package tui

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

// TestPacketsDisplayFilter: the packets view's / takes the filter
// language. loss_nak_replay has 23 frames between 10.0.0.1 and 10.0.0.2;
// frames 4 (psn_gap), 5 (nak) and 9 (retransmission) show events.
func TestPacketsDisplayFilter(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	v := hs.u.packets
	// A live error under the input while typing, the caret under column 1
	// (the input's label "/" takes column 0).
	hs.key(tcell.KeyRune, '/')
	hs.keys("ip.sr")
	hs.contains(` ^ unknown field "ip.sr"`)
	hs.key(tcell.KeyEnter, 0)
	hs.settle()
	if v.filter != "" || v.rows.len() != 23 {
		t.Fatalf("a filter with an error was applied: %q, %d rows", v.filter, v.rows.len())
	}
	tests := []struct {
		text   string
		frames []int // 1-based frame numbers
	}{
		{"events", []int{4, 5, 9}},
		{`events == "nak" || frame == 1`, []int{1, 5}},
		{"problems", []int{4, 5, 9}},   // shorthand: events
		{"10.0.0.20", nil},             // an IP alone: ip.addr ==, exactly (not a prefix of 10.0.0.2)
		{"ip:10.0.0.2", allFrames(23)}, // every frame has 10.0.0.2 on one side
	}
	for _, tc := range tests {
		hs.key(tcell.KeyRune, '/')
		hs.u.input.SetText("")
		hs.keys(tc.text)
		hs.key(tcell.KeyEnter, 0)
		hs.settle()
		var got []int
		for i := range v.rows.len() {
			got = append(got, v.rows.pos(i)+1)
		}
		if !equalInts(got, tc.frames) {
			t.Errorf("%q: frames %v, want %v", tc.text, got, tc.frames)
		}
	}
}

func allFrames(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
