package tui

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Table contents. Every table is backed by a tview.TableContent that
// computes its cells on demand from an immutable row order (a slice of
// indices chosen by a derive job) and the snapshot: a table never holds
// cells, so a table of ten million rows costs what its visible rows cost.
// GetCell is O(1): one slice access for the row, one for the data.

// column describes one table column.
type column struct {
	title  string
	right  bool // align right (numbers)
	expand int  // share of spare width
	max    int  // most cells shown, 0 = any
}

// markColor is the text colour of a highlighted row.
func markColor(m mark) tcell.Color {
	switch m {
	case markProblem:
		return tcell.ColorRed
	case markCongestion:
		return tcell.ColorYellow
	case markPause:
		return tcell.ColorAqua
	case markNone:
	}
	return tview.Styles.PrimaryTextColor
}

// escape makes data safe to show where tview reads style tags.
func escape(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	return tview.Escape(s)
}

// tableContent is a read-only TableContent: a header row, then n rows whose
// cells come from cell(row, col).
type tableContent struct {
	tview.TableContentReadOnly
	cols    []column
	n       int
	cell    func(row, col int) (string, mark)
	sortCol int  // column with a sort arrow, -1 none
	desc    bool // the arrow points down
	onClick func(col int)
	table   *tview.Table // the table showing it (useContent): its columns fit its width
	frozen  int          // columns that stay while h / l scroll the others
	// stable, when not nil, holds per column the widest cell shown so far:
	// narrower cells are padded to it, so that columns keep their width
	// while the rows scroll (UI goroutine only: GetCell runs while drawing).
	stable []int
}

// steady pads text to the widest cell of col seen so far (on the left
// when right-aligned), or records a new widest.
func (c *tableContent) steady(col int, text string, right bool) string {
	w := tview.TaggedStringWidth(text)
	if w >= c.stable[col] {
		c.stable[col] = w
		return text
	}
	pad := strings.Repeat(" ", c.stable[col]-w)
	if right {
		return pad + text
	}
	return text + pad
}

var _ tview.TableContent = (*tableContent)(nil)

func (c *tableContent) GetRowCount() int    { return c.n + 1 }
func (c *tableContent) GetColumnCount() int { return c.fittedColumns() }

func (c *tableContent) GetCell(row, col int) *tview.TableCell {
	if col < 0 || col >= len(c.cols) || row < 0 || row > c.n || (c.n == 0 && row > 0) {
		return nil
	}
	k := c.cols[col]
	if row == 0 {
		title := k.title
		if col == c.sortCol {
			if c.desc {
				title += "▼"
			} else {
				title += "▲"
			}
		}
		cell := tview.NewTableCell(title).SetSelectable(false).SetAttributes(tcell.AttrBold).
			SetTextColor(tview.Styles.TertiaryTextColor).SetExpansion(k.expand)
		if k.right {
			cell.SetAlign(tview.AlignRight)
		}
		if c.onClick != nil {
			cell.SetClickedFunc(func() bool { c.onClick(col); return true })
		}
		return cell
	}
	text, m := c.cell(row-1, col)
	if c.stable != nil && k.expand == 0 {
		text = c.steady(col, text, k.right)
	}
	cell := tview.NewTableCell(escape(text)).SetTextColor(markColor(m)).SetExpansion(k.expand)
	if k.max > 0 {
		cell.SetMaxWidth(k.max)
	}
	if k.right {
		cell.SetAlign(tview.AlignRight)
	}
	return cell
}

// rowSource gives packet rows; the Pager is one.
type rowSource interface {
	Row(s *Snapshot, pos int) *PacketRow
}

// packetColumns are the packet tables' columns.
var packetColumns = []column{
	{title: "No.", right: true},
	{title: "Time", right: true},
	{title: "Source", max: 40},
	{title: "Destination", max: 40},
	{title: "Protocol"},
	{title: "Length", right: true},
	{title: "Info", expand: 1},
}

// packetRows is the row order of a packet table: every frame of the
// snapshot (frames and flow nil), the given Index positions, or those of
// flow (a flow's frame list).
type packetRows struct {
	snap   *Snapshot
	frames []uint32
	flow   *FrameList
}

func (p packetRows) len() int {
	if p.flow != nil {
		return p.flow.Len()
	}
	if p.frames == nil {
		if p.snap == nil {
			return 0
		}
		return p.snap.Index.Len()
	}
	return len(p.frames)
}

// pos returns the Index position of row i.
func (p packetRows) pos(i int) int {
	if p.flow != nil {
		return int(p.flow.At(i))
	}
	if p.frames == nil {
		return i
	}
	return int(p.frames[i])
}

// find returns the row of Index position pos, or -1.
func (p packetRows) find(pos int) int {
	if p.flow == nil && p.frames == nil {
		if pos < p.snap.Index.Len() {
			return pos
		}
		return -1
	}
	if pos < 0 || pos > math.MaxUint32 {
		return -1
	}
	if i := p.atOrAfter(pos); i < p.len() && p.pos(i) == pos {
		return i
	}
	return -1
}

// atOrAfter returns the row of Index position pos or, when the rows do not
// hold it, of the first position after it (len when none follows).
func (p packetRows) atOrAfter(pos int) int {
	if p.flow != nil {
		return p.flow.Search(uint32(pos))
	}
	if p.frames == nil {
		return min(pos, p.len())
	}
	i, _ := slices.BinarySearch(p.frames, uint32(pos))
	return i
}

// newPacketContent returns the content of a packet table over rows, with
// cells from src (rows not read yet show their frame number and "…").
func newPacketContent(rows packetRows, src rowSource) *tableContent {
	s := rows.snap
	start := s.Timeline.OriginNs
	if s.Report != nil && s.Report.Capture.Packets > 0 {
		start = s.Report.Capture.FirstTsNs
	}
	multi := len(s.Files) > 1
	return &tableContent{
		cols: packetColumns, n: rows.len(), sortCol: -1, stable: make([]int, len(packetColumns)),
		cell: func(row, col int) (string, mark) {
			pos := rows.pos(row)
			r := src.Row(s, pos)
			if r == nil {
				if col == 0 {
					return strconv.Itoa(pos + 1), markNone
				}
				if col == 6 {
					return "…", markNone
				}
				return "", markNone
			}
			// A frame that shows events is marked, its kinds before its
			// info (the `events` packet field).
			ev := s.EventsAt(pos)
			m := r.Mark
			if ev != 0 {
				m = markProblem
			}
			switch col {
			case 0:
				if multi {
					return strconv.Itoa(r.File+1) + ":" + strconv.FormatUint(r.Frame, 10), m
				}
				return strconv.FormatUint(r.Frame, 10), m
			case 1:
				if r.Err != "" {
					return "", m
				}
				return fmtSeconds(r.TsNs - start), m
			case 2:
				return r.Src, m
			case 3:
				return r.Dst, m
			case 4:
				return r.Proto, m
			case 5:
				if r.Err != "" {
					return "", m
				}
				return strconv.Itoa(r.Len), m
			}
			if r.Err != "" {
				return r.Err, m
			}
			if ev != 0 {
				return "[" + eventNames(ev) + "] " + r.Info, m
			}
			return r.Info, m
		},
	}
}
