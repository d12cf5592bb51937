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
	// offset, widened by a screen on both sides (tview moves the offset to
	// the selection only while drawing).
	sel, _ := c.table.GetSelection()
	lo := max(1, min(rowOff+1, sel)-height)
	hi := min(c.n, max(rowOff+height, sel)+height)
	cellWidth := func(col int) int {
		w := 0
		for row := 0; row <= hi; row++ {
			if row == 1 {
				row = lo
			}
			if cell := c.GetCell(row, col); cell != nil {
				cw := tview.TaggedStringWidth(cell.Text)
				if cell.MaxWidth > 0 {
					cw = min(cw, cell.MaxWidth)
				}
				w = max(w, cw)
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
