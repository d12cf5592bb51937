package tui

import (
	"encoding/hex"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/decode"
)

// headerTree is the packets view's header tree (decode.TreeLines), one
// table row per line, as termshark shows it: a header line with fields has
// a marker, ▾ when its fields are shown under it, ▸ when collapsed; Enter
// or space toggles the selected header, ← collapses and → expands it (on
// a field: its header). The bytes of the selected line (a header: the
// whole header) are highlighted in the hex dump. Which headers are
// collapsed is kept by their title (the text before the first comma or
// colon) from frame to frame, as Wireshark keeps it.
type headerTree struct {
	table     *tview.Table
	hex       *tview.TextView
	file      string            // the first line: "File: NAME, frame N"
	lines     []decode.TreeLine // of the frame shown
	data      []byte            // its bytes
	rows      []int             // the rows shown: index in lines, -1 the file line
	collapsed map[string]bool   // header titles collapsed
}

// Colours of the highlighted bytes.
const (
	hexMarkOn  = "[black:yellow]"
	hexMarkOff = "[-:-]"
)

func newHeaderTree(hexView *tview.TextView) *headerTree {
	h := &headerTree{hex: hexView, collapsed: map[string]bool{}}
	h.table = tview.NewTable().SetSelectable(true, false)
	h.table.SetBorder(true).SetTitle(" Headers ").SetTitleAlign(tview.AlignLeft)
	h.table.SetSelectionChangedFunc(func(row, _ int) { h.showBytes(row) })
	h.table.SetInputCapture(h.keys)
	return h
}

// set shows a frame's tree and bytes (file: the first line).
func (h *headerTree) set(file string, lines []decode.TreeLine, data []byte) {
	h.file, h.lines, h.data = file, lines, data
	h.render(-1)
	h.table.Select(0, 0).ScrollToBeginning()
	h.showBytes(0)
}

// setText shows a message in place of a tree (an error).
func (h *headerTree) setText(msg string) {
	h.file, h.lines, h.data = msg, nil, nil
	h.render(-1)
	h.hex.SetText("")
}

// title is a header line's title: its text before the first comma or
// colon ("Base Transport Header", "Internet Protocol Version 4").
func title(text string) string {
	if i := strings.IndexAny(text, ",:"); i >= 0 {
		return text[:i]
	}
	return text
}

// hasFields reports whether line i is a header with fields under it.
func (h *headerTree) hasFields(i int) bool {
	return i >= 0 && !h.lines[i].Field && i+1 < len(h.lines) && h.lines[i+1].Field
}

// render fills the table with the lines shown; keep, when >= 0, is the
// line (index in lines) to select.
func (h *headerTree) render(keep int) {
	h.table.Clear()
	h.rows = h.rows[:0]
	add := func(i int, text string) {
		if keep >= 0 && i == keep {
			h.table.Select(len(h.rows), 0)
		}
		h.table.SetCell(len(h.rows), 0, tview.NewTableCell(tview.Escape(text)).SetExpansion(1))
		h.rows = append(h.rows, i)
	}
	add(-1, h.file)
	hidden := false
	for i, l := range h.lines {
		switch {
		case l.Field && hidden:
			continue
		case l.Field:
			add(i, "    "+l.Text)
		case h.hasFields(i):
			hidden = h.collapsed[title(l.Text)]
			marker := "▾ "
			if hidden {
				marker = "▸ "
			}
			add(i, marker+l.Text)
		default:
			hidden = false
			add(i, "  "+l.Text)
		}
	}
}

// header returns the header line (index in lines) of the selected row:
// the row's line or, for a field, the header above it; -1 none.
func (h *headerTree) header() int {
	row, _ := h.table.GetSelection()
	if row < 0 || row >= len(h.rows) {
		return -1
	}
	i := h.rows[row]
	for i >= 0 && h.lines[i].Field {
		i--
	}
	if !h.hasFields(i) {
		return -1
	}
	return i
}

// expand sets whether the selected row's header shows its fields
// (toggle: the other way round), and selects the header.
func (h *headerTree) expand(show, toggle bool) {
	i := h.header()
	if i < 0 {
		return
	}
	t := title(h.lines[i].Text)
	if toggle {
		show = h.collapsed[t]
	}
	if show {
		delete(h.collapsed, t)
	} else {
		h.collapsed[t] = true
	}
	h.render(i)
	row, _ := h.table.GetSelection()
	h.showBytes(row)
}

// showBytes writes the hex dump with the bytes of row's line highlighted,
// scrolled to show them.
func (h *headerTree) showBytes(row int) {
	off, n := 0, 0
	if row >= 0 && row < len(h.rows) && h.rows[row] >= 0 {
		l := h.lines[h.rows[row]]
		off, n = l.Off, l.Len
	}
	h.hex.SetText(hexDumpMarked(h.data, off, n))
	_, _, _, height := h.hex.GetInnerRect()
	first, last := off/16, (off+max(n, 1)-1)/16
	if n == 0 || last < height-1 {
		h.hex.ScrollToBeginning()
		return
	}
	h.hex.ScrollTo(max(0, min(first, last-height+2)), 0)
}

// hexDumpMarked is hex.Dump(data) with data[off:off+n] in hexMarkOn
// colours (the ASCII column escaped for tview's tags).
func hexDumpMarked(data []byte, off, n int) string {
	var b strings.Builder
	lines := strings.SplitAfter(hex.Dump(data), "\n")
	for i, line := range lines {
		start := i * 16
		m := min(16, len(data)-start)
		if m <= 0 || len(line) < 61+m {
			b.WriteString(line)
			continue
		}
		k0, k1 := max(off-start, 0), min(off+n-start, m)
		hexPart, ascii, rest := line[:60], line[61:61+m], line[61+m:]
		if k0 >= k1 {
			b.WriteString(hexPart + "|" + tview.Escape(ascii) + rest)
			continue
		}
		pos := func(k int) int {
			if k >= 8 {
				return 11 + 3*k
			}
			return 10 + 3*k
		}
		hs, he := pos(k0), pos(k1-1)+2
		b.WriteString(hexPart[:hs] + hexMarkOn + hexPart[hs:he] + hexMarkOff + hexPart[he:] + "|")
		b.WriteString(tview.Escape(ascii[:k0]) + hexMarkOn + tview.Escape(ascii[k0:k1]) + hexMarkOff + tview.Escape(ascii[k1:]) + rest)
	}
	return b.String()
}

// text returns the tree as shown, one row a line (tests).
func (h *headerTree) text() string {
	var b strings.Builder
	for r := range h.table.GetRowCount() {
		b.WriteString(h.table.GetCell(r, 0).Text + "\n")
	}
	return b.String()
}

// bindings describe the keys the tree handles itself while it has the
// focus (its input capture, keys).
func (h *headerTree) bindings() []binding {
	return []binding{
		{keys: []keyCode{special(tcell.KeyEnter), runeKey(' ')}, label: "Enter / space", pane: h.table,
			help: "header tree: expand / collapse the header (▾ ▸)"},
		{keys: specials(tcell.KeyLeft, tcell.KeyRight), label: "← / →", pane: h.table,
			help: "header tree: collapse / expand; the hex dump highlights the line's bytes"},
	}
}

// keys handles the tree's keys: Enter and space toggle the selected
// header, ← collapses and → expands it.
func (h *headerTree) keys(ev *tcell.EventKey) *tcell.EventKey {
	switch {
	case ev.Key() == tcell.KeyEnter, ev.Key() == tcell.KeyRune && ev.Rune() == ' ':
		h.expand(false, true)
	case ev.Key() == tcell.KeyLeft:
		h.expand(false, false)
	case ev.Key() == tcell.KeyRight:
		h.expand(true, false)
	default:
		return ev
	}
	return nil
}
