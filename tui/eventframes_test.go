package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// TestEventsFrameColumn: the events tables show the frame of each event
// (FILE:FRAME with several files) and Enter opens that frame. By hand:
// loss_nak_replay's A->B frames 1-4 carry PSN 1000, 1001, 1002, 1004 (the
// gap shows at frame 4), B's NAK is frame 5, the replay starts at frame 9
// (see TestPacketsFilterKeepsFrame); congestion_cnp's CNPs are its frames
// 16 and 26 (+112 µs and +240 µs); a psn_conflict is shown by the
// conflicting frame.
func TestEventsFrameColumn(t *testing.T) {
	tests := []struct {
		name  string
		paths func(t *testing.T) []string
		view  string // keys that show the events table
		kind  string // the event row to look at
		frame string // its Frame cell
		opens string // what Enter on it shows
	}{
		{"gap", func(t *testing.T) []string { return []string{lossNAK(t)} }, "3", "psn_gap", " 4 ", "Headers of frame 4"},
		{"nak", func(t *testing.T) []string { return []string{lossNAK(t)} }, "3", "nak", " 5 ", "Headers of frame 5"},
		{"retransmission", func(t *testing.T) []string { return []string{lossNAK(t)} }, "3", "retransmission", " 9 ", "Headers of frame 9"},
		{"flow detail", func(t *testing.T) []string { return []string{lossNAK(t)} }, "2\r", "psn_gap", " 4 ", "Headers of frame 4"},
		// perfCapture: a READ Request (frame 1), its three responses
		// (2400 bytes at PMTU 1024: frames 2-4), then the SEND whose PSN
		// falls inside the READ's span: frame 5.
		{"psn_conflict", func(t *testing.T) []string { return []string{perfCapture(t)} }, "3", "psn_conflict", " 5 ", "Headers of frame 5"},
		// Two files: the congestion capture is file 2.
		{"two files", func(t *testing.T) []string { return []string{lossNAK(t), congestion(t)} }, "3", "cnp", " 2:16 ", "Headers of frame 16"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, 160, 40, tc.paths(t)...)
			for _, r := range tc.view {
				if r == '\r' {
					hs.key(tcell.KeyEnter, 0)
				} else {
					hs.key(tcell.KeyRune, r)
				}
			}
			hs.contains("Frame")
			// Move down to the first row of the kind.
			for range 40 {
				line := selectedLine(hs)
				if strings.Contains(line, " "+tc.kind+" ") {
					if !strings.Contains(line, tc.frame) {
						t.Fatalf("%s row %q has no frame %q", tc.kind, line, tc.frame)
					}
					hs.key(tcell.KeyEnter, 0)
					hs.contains(tc.opens)
					return
				}
				hs.key(tcell.KeyDown, 0)
			}
			t.Fatalf("no %s row:\n%s", tc.kind, hs.text())
		})
	}
}

// selectedLine returns the screen line of the focused table's selected row.
func selectedLine(hs *harness) string {
	tb, ok := hs.u.app.GetFocus().(*tview.Table)
	if !ok {
		hs.t.Fatal("the focus is not a table")
	}
	_, y, _, _ := tb.GetRect()
	row, _ := tb.GetSelection()
	off, _ := tb.GetOffset()
	lines := strings.Split(hs.text(), "\n")
	// The border, the header row (fixed), then the rows from the offset.
	i := y + 2 + row - 1 - off
	if i < 0 || i >= len(lines) {
		return ""
	}
	return lines[i]
}
