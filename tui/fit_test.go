package tui

import (
	"testing"

	"github.com/rivo/tview"
)

// Fitting the columns reads a few screens of rows, never the rows between
// the offset and a far selection: a table of 1,000,000 rows, 20 lines high
// (18 inside the border), the last row selected and the offset still at 0
// (tview moves it while drawing). Per column: the header (its title: no
// cell call), rows 1..36 (the offset's screen and the next) and
// 999,982..1,000,000 (a screen either side of the selection, 19 rows):
// 36 + 19 = 55 cell calls; 3 columns: 165.
func TestFitReadsFewRows(t *testing.T) {
	calls := 0
	c := &tableContent{
		cols: []column{{title: "A", right: true}, {title: "B"}, {title: "C", right: true}},
		n:    1_000_000, sortCol: -1,
		cell: func(row, col int) (string, mark) { calls++; return "12345", markNone },
	}
	tb := tview.NewTable().SetFixed(1, 0).SetSelectable(true, false)
	tb.SetBorder(true)
	tb.SetRect(0, 0, 80, 20)
	useContent(tb, c)
	tb.Select(1_000_000, 0)
	tb.SetOffset(0, 0)
	if n := c.GetColumnCount(); n != 3 {
		t.Fatalf("%d columns fit, want 3", n)
	}
	if calls != 165 {
		t.Fatalf("%d cell calls to fit the columns, want 165", calls)
	}
}

// A right-aligned column that does not fit whole is left out; a text
// column is kept, to be cut on the right. Width 20 inside the border:
// "A" 5 + 1, "B" 5 + 1 = 12; "C" (5, a number) fits, then "D" (numbers, 5)
// at 18 does not: 3 columns. With D text: 4.
func TestFitDropsCutNumbers(t *testing.T) {
	for _, tc := range []struct {
		right bool
		want  int
	}{{true, 3}, {false, 4}} {
		c := &tableContent{
			cols: []column{{title: "A", right: true}, {title: "B"}, {title: "C", right: true}, {title: "D", right: tc.right}},
			n:    3, sortCol: -1,
			cell: func(row, col int) (string, mark) { return "12345", markNone },
		}
		tb := tview.NewTable().SetFixed(1, 0).SetSelectable(true, false)
		tb.SetBorder(true)
		tb.SetRect(0, 0, 22, 10)
		useContent(tb, c)
		if n := c.GetColumnCount(); n != tc.want {
			t.Errorf("D right-aligned %v: %d columns, want %d", tc.right, n, tc.want)
		}
	}
}
