package tui

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func itoa(n int) string { return strconv.Itoa(n) }

// newTable returns a bordered, row-selectable table with a fixed header
// row. open is called with the data row (0-based, header excluded) on Enter
// or a double click.
func newTable(title string, open func(row int)) *tview.Table {
	t := tview.NewTable().SetFixed(1, 0).SetSelectable(true, false)
	t.SetBorder(true).SetTitle(" " + title + " ").SetTitleAlign(tview.AlignLeft)
	t.SetSelectedFunc(func(row, _ int) {
		if row > 0 && open != nil {
			open(row - 1)
		}
	})
	t.SetMouseCapture(func(action tview.MouseAction, ev *tcell.EventMouse) (tview.MouseAction, *tcell.EventMouse) {
		if action == tview.MouseLeftDoubleClick && open != nil {
			x, y := ev.Position()
			row, _ := t.CellAt(x, y)
			if row > 0 && row < t.GetRowCount() {
				t.Select(row, 0)
				open(row - 1)
			}
			return tview.MouseConsumed, nil
		}
		return action, ev
	})
	return t
}

// setContent swaps a table's content, keeping the selected row when keep
// is its new place (-1: keep the row number), and the scroll position.
func setContent(t *tview.Table, c tview.TableContent, keep int) {
	row, _ := t.GetSelection()
	off, col := t.GetOffset()
	useContent(t, c)
	if keep >= 0 {
		row = keep + 1
	}
	n := c.GetRowCount()
	switch {
	case n <= 1:
		row = 1
	case row >= n:
		row = n - 1
	case row < 1:
		row = 1
	}
	t.SetOffset(off, col) // also stops tview from following the end as rows grow
	t.Select(row, 0)
}

// showTop swaps a table's content after a new sort order: the table shows
// its first rows, and the selected row stays selected (at its new place
// keep) only when that place is among them; otherwise the first row is
// selected.
func showTop(t *tview.Table, c tview.TableContent, keep int) {
	_, _, _, h := t.GetInnerRect()
	if keep < 0 || keep >= h-1 { // the header takes a line
		keep = 0
	}
	_, col := t.GetOffset()
	setContent(t, c, keep)
	t.SetOffset(0, col)
}

// centre selects data row row (0-based) and scrolls the table so that it
// is in the middle of the screen (a jump to a frame shows its neighbours
// on both sides).
func centre(t *tview.Table, row int) {
	_, _, _, h := t.GetInnerRect()
	_, col := t.GetOffset()
	t.Select(row+1, 0)
	t.SetOffset(max(0, row-(h-1)/2), col)
}

// selectedRow returns the selected data row (0-based), or -1.
func selectedRow(t *tview.Table) int {
	row, _ := t.GetSelection()
	if row < 1 || row >= t.GetRowCount() {
		return -1
	}
	return row - 1
}

// position describes the selection of a table: "row 3/25".
func position(t *tview.Table) string {
	n := t.GetRowCount() - 1
	if n <= 0 {
		return "no rows"
	}
	return "row " + fmtCount(int64(selectedRow(t)+1)) + "/" + fmtCount(int64(n))
}

// newText returns a bordered text view (style tags allowed when tags).
func newText(title string, tags bool) *tview.TextView {
	t := tview.NewTextView().SetDynamicColors(tags).SetWrap(false).SetScrollable(true)
	t.SetBorder(true).SetTitle(" " + title + " ").SetTitleAlign(tview.AlignLeft)
	return t
}

// titled sets a box title with its padding.
func titled(b interface{ SetTitle(string) *tview.Box }, title string) {
	b.SetTitle(" " + title + " ")
}
