package tui

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// pointsView is the capture points (`tui --point`): a header with the
// points and their packets, and the hops of the report (per flow and pair
// of points: from, to, matched, lost, unseen upstream, delay p50/p99/max),
// sortable as the flows and filterable by words of the flow id and point
// names; Enter on a hop lists its lost frames in the packets view. It is a
// tab only when the model has points.
type pointsView struct {
	u      *UI
	root   *tview.Flex
	header *tview.TextView
	table  *tview.Table

	report    *analysis.Report // the report the rows are of
	rows      []int32          // indices into report.Hops, in display order
	sortCol   int              // index in hopColumns, -1: report order
	desc      bool
	filter    string
	requested *analysis.Report // the report the last derive was for
	resorted  bool             // the next derive is for a new sort order: show the top
}

// hopColumn is one column of the hops table: its text and, for numbers,
// the sort key (text columns sort by their text).
type hopColumn struct {
	title string
	right bool
	text  func(h *analysis.HopReport) string
	key   func(h *analysis.HopReport) int64
}

func countCol(title string, v func(h *analysis.HopReport) int64) hopColumn {
	return hopColumn{title: title, right: true, key: v,
		text: func(h *analysis.HopReport) string { return fmtCount(v(h)) }}
}

func delayCol(title string, v func(h *analysis.HopReport) int64) hopColumn {
	return hopColumn{title: title, right: true, key: v, text: func(h *analysis.HopReport) string {
		if h.Delay.Count == 0 {
			return "-"
		}
		return fmtDur(v(h))
	}}
}

// hopColumns are the hops table's columns after "#".
var hopColumns = []hopColumn{
	{title: "Flow", text: func(h *analysis.HopReport) string { return h.Flow }},
	{title: "From", text: func(h *analysis.HopReport) string { return h.From }},
	{title: "To", text: func(h *analysis.HopReport) string { return h.To }},
	countCol("Matched", func(h *analysis.HopReport) int64 { return h.Matched }),
	countCol("Lost", func(h *analysis.HopReport) int64 { return h.Lost }),
	countCol("Unseen up", func(h *analysis.HopReport) int64 { return h.UnseenUpstream }),
	delayCol("Delay p50", func(h *analysis.HopReport) int64 { return h.Delay.P50Ns }),
	delayCol("p99", func(h *analysis.HopReport) int64 { return h.Delay.P99Ns }),
	delayCol("Max", func(h *analysis.HopReport) int64 { return h.Delay.MaxNs }),
}

// hopTableColumns are the table's columns, "#" first.
var hopTableColumns = func() []column {
	cols := []column{{title: "#", right: true}}
	for _, c := range hopColumns {
		cols = append(cols, column{title: c.title, right: c.right, max: 48})
	}
	return cols
}()

func newPointsView(u *UI) *pointsView {
	v := &pointsView{u: u, sortCol: -1}
	v.header = newText("Capture points", false)
	v.table = newTable("Hops", func(row int) {
		if row < len(v.rows) {
			v.openHop(int(v.rows[row]))
		}
	})
	useContent(v.table, v.content(nil))
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 4, 0, false).
		AddItem(v.table, 0, 1, true)
	return v
}

// Name implements view.
func (v *pointsView) Name() string { return "Points" }

// Root implements view.
func (v *pointsView) Root() tview.Primitive { return v.root }

// Panes implements view.
func (v *pointsView) Panes() []tview.Primitive { return []tview.Primitive{v.table} }

// Position implements view.
func (v *pointsView) Position() string { return position(v.table) }

// Filter implements view.
func (v *pointsView) Filter() (string, bool) { return v.filter, true }

// SetFilter implements view.
func (v *pointsView) SetFilter(text string, _ bool) {
	v.filter = text
	v.derive()
}

// Bindings are the points' keys: Enter, sorting, reversing.
func (v *pointsView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "list the hop's lost frames in the packets view", nil),
		{keys: keys('s', 'S'), label: "s / S", help: "sort the hops by the next / previous column (or click a column title)", run: v.cycleSort},
		onRune('r', "reverse the sort order", func() {
			v.desc = !v.desc
			v.resorted = true
			v.derive()
		}),
		note("/", "filter the hops: words of the flow id or of the point names"),
	}
}

// cycleSort sorts by the next column (back = 0) or the previous one (1),
// the report's order coming between the last column and the first.
func (v *pointsView) cycleSort(back int) {
	n := len(hopColumns) + 1
	step := 1
	if back == 1 {
		step = n - 1
	}
	v.sortBy((v.sortCol+1+step)%n - 1)
}

// sortBy sorts by hopColumns[col] (-1: the report's order). Numbers sort
// largest first.
func (v *pointsView) sortBy(col int) {
	v.sortCol = col
	v.desc = col >= 0 && hopColumns[col].right
	v.resorted = true
	v.derive()
}

// Refresh implements view.
func (v *pointsView) Refresh(s *Snapshot) {
	v.showHeader(s)
	if s.Report != v.requested {
		v.derive()
	}
}

// showHeader writes the points: name, packets, RoCE packets, files; the
// first is the reference, whose analysis the other views show.
func (v *pointsView) showHeader(s *Snapshot) {
	var b strings.Builder
	var pts []analysis.PointReport
	if s.Report != nil {
		pts = s.Report.Points
	}
	lines := 0
	if len(pts) == 0 {
		b.WriteString("points " + strings.Join(s.PointNames, ", ") + ": the hops appear when loading ends")
		lines = 1
	}
	width := 0
	for _, p := range pts {
		width = max(width, len([]rune(p.Name)))
	}
	for i, p := range pts {
		if i > 0 {
			b.WriteByte('\n')
		}
		files := make([]string, len(p.Files))
		for j, f := range p.Files {
			files[j] = filepath.Base(f)
		}
		role := "          "
		if i == 0 {
			role = "reference "
		}
		b.WriteString(role + p.Name + strings.Repeat(" ", width-len([]rune(p.Name))) + "  " +
			plural(p.Packets, "packet") + " (" + fmtCount(p.RoCEPackets) + " RoCE)  " + strings.Join(files, ", "))
		lines++
	}
	v.header.SetText(b.String())
	titled(v.header.Box, "Capture points: "+itoa(len(s.PointNames))+" (the other views show the reference)")
	v.root.ResizeItem(v.header, lines+2, 0)
}

// hopOrder returns the hops of r that match filter (every word in the
// flow id or a point name), sorted by hopColumns[col] (-1: report order),
// descending when desc, ties in report order.
func hopOrder(r *analysis.Report, filter string, col int, desc bool) []int32 {
	words := strings.Fields(strings.ToLower(filter))
	rows := make([]int32, 0, len(r.Hops))
	for i := range r.Hops {
		h := &r.Hops[i]
		text := strings.ToLower(h.Flow + " " + h.From + " " + h.To)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			rows = append(rows, int32(i))
		}
	}
	if col < 0 || col >= len(hopColumns) {
		return rows
	}
	c := hopColumns[col]
	slices.SortStableFunc(rows, func(a, b int32) int {
		ha, hb := &r.Hops[a], &r.Hops[b]
		var d int
		if c.key != nil {
			d = cmp.Compare(c.key(ha), c.key(hb))
		} else {
			d = cmp.Compare(c.text(ha), c.text(hb))
		}
		if desc {
			d = -d
		}
		return d
	})
	return rows
}

// derive recomputes the row order in a job, keeping the selected hop
// selected.
func (v *pointsView) derive() {
	r := v.u.snap.Report
	v.requested = r
	if r == nil {
		return
	}
	filter, col, desc, resorted := v.filter, v.sortCol, v.desc, v.resorted
	v.resorted = false
	keep := int32(-1)
	if row := selectedRow(v.table); row >= 0 && row < len(v.rows) {
		keep = v.rows[row]
	}
	v.u.jobs.start("points", func() func() {
		rows := hopOrder(r, filter, col, desc)
		at := slices.Index(rows, keep)
		return func() {
			v.report, v.rows = r, rows
			if resorted {
				showTop(v.table, v.content(r), at)
			} else {
				setContent(v.table, v.content(r), at)
			}
			v.setTitle()
		}
	})
}

func (v *pointsView) setTitle() {
	t := "Hops"
	if r := v.report; r != nil {
		t += " (" + fmtCount(int64(len(v.rows))) + " of " + fmtCount(int64(len(r.Hops))) +
			"; delay = time at To - time at From, clock offset included)"
	}
	if v.sortCol >= 0 {
		dir := "ascending"
		if v.desc {
			dir = "descending"
		}
		t += ", by " + hopColumns[v.sortCol].title + " " + dir
	}
	titled(v.table.Box, t)
}

func (v *pointsView) content(r *analysis.Report) *tableContent {
	rows := v.rows
	sortCol := -1
	if v.sortCol >= 0 {
		sortCol = v.sortCol + 1
	}
	c := &tableContent{
		cols: hopTableColumns, sortCol: sortCol, desc: v.desc, frozen: 2, // # and Flow stay
		onClick: func(col int) {
			switch {
			case col == 0:
				v.sortBy(-1)
			case col-1 == v.sortCol:
				v.desc = !v.desc
				v.resorted = true
				v.derive()
			default:
				v.sortBy(col - 1)
			}
		},
	}
	if r == nil {
		c.cell = func(int, int) (string, mark) { return "", markNone }
		return c
	}
	c.n = len(rows)
	c.cell = func(row, col int) (string, mark) {
		i := rows[row]
		h := &r.Hops[i]
		m := markNone
		switch {
		case h.Lost > 0:
			m = markProblem
		case h.UnseenUpstream > 0:
			m = markCongestion
		}
		if col == 0 {
			return itoa(int(i) + 1), m
		}
		return hopColumns[col-1].text(h), m
	}
	return c
}
