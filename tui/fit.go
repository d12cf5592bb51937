package tui

import (
	"github.com/rivo/tview"
)

// Column fitting. tview gives the last column that does not fit whole
// what width is left and cuts its text to it: a right-aligned number loses
// its leading digits ("+4.5 µs" shows ".5 µ…"). A tableContent that knows
// its table (useContent) shows only the columns that fit: a column of
// numbers (right-aligned) is shown whole or not at all (h / l scroll to
// it), a column of text may be the last one and is then cut on the right
// with an ellipsis. The first frozen columns stay while the others scroll.

// useContent installs c in t; a *tableContent learns its table, so that it
// can fit its columns to the table's width, and freezes its key columns.
func useContent(t *tview.Table, c tview.TableContent) {
	if tc, ok := c.(*tableContent); ok {
		tc.table = t
		t.SetFixed(1, tc.frozen)
	}
	t.SetContent(c)
}

// fittedColumns returns how many columns to show: all of them, or up to the
// last one that fits in the table's width from its column offset (the
// width of a column is its widest cell among the header and the rows on
// screen, as tview measures it).
func (c *tableContent) fittedColumns() int {
	n := len(c.cols)
	if c.table == nil || n == 0 {
		return n
	}
	_, _, width, height := c.table.GetInnerRect()
	if width <= 0 {
		return n
	}
	rowOff, colOff := c.table.GetOffset()
	// The rows tview will draw: the header and a screenful from the row
	// offset, or around the selection (tview moves the offset to the
	// selection only while drawing): two windows of at most three screens,
	// whatever the number of rows.
	sel, _ := c.table.GetSelection()
	windows := [2][2]int{
		{max(1, rowOff+1-height), min(c.n, rowOff+2*height)},
		{max(1, sel-height), min(c.n, sel+height)},
	}
	if a, b := windows[0], windows[1]; b[0] <= a[1] && a[0] <= b[1] { // overlapping: one window
		windows[0] = [2]int{min(a[0], b[0]), max(a[1], b[1])}
		windows[1] = [2]int{1, 0}
	}
	cellWidth := func(col int) int {
		w := 0
		measure := func(row int) {
			if cell := c.GetCell(row, col); cell != nil {
				cw := tview.TaggedStringWidth(cell.Text)
				if cell.MaxWidth > 0 {
					cw = min(cw, cell.MaxWidth)
				}
				w = max(w, cw)
			}
		}
		measure(0)
		for _, win := range windows {
			for row := win[0]; row <= win[1]; row++ {
				measure(row)
			}
		}
		return w
	}
	used, last := 0, -1
	frozen := min(c.frozen, n)
	order := make([]int, 0, n)
	for col := range frozen {
		order = append(order, col)
	}
	for col := frozen + max(colOff, 0); col < n; col++ {
		order = append(order, col)
	}
	for i, col := range order {
		if used >= width {
			break
		}
		w := cellWidth(col)
		if used+w > width {
			// Text may be cut on the right; a number never, unless it is
			// the only column that could be shown.
			if !c.cols[col].right || i == 0 || (i == frozen && last < frozen) {
				last = col
			}
			break
		}
		last = col
		used += w + 1
	}
	if last < 0 {
		return n
	}
	return last + 1
}
