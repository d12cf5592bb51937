package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// connsView lists the connections (QP pairs, both directions in one row):
// sortable, filterable like the flows; Enter opens the direction with the
// problems.
type connsView struct {
	u     *UI
	table *tview.Table

	report    *analysis.Report
	rows      connRows
	sortCol   int // index in connColumns, -1: first-seen order
	desc      bool
	filter    string
	problems  bool
	requested *analysis.Report
	resorted  bool // the next derive is for a new sort order: show the top
}

// connTableColumns is the connections table's columns, "#" first.
var connTableColumns = func() []column {
	cols := []column{{title: "#", right: true}}
	for _, c := range connColumns {
		cols = append(cols, column{title: c.title, right: c.right, max: 48})
	}
	return cols
}()

func newConnsView(u *UI) *connsView {
	v := &connsView{u: u, sortCol: -1}
	v.table = newTable("Connections", func(row int) {
		if row < len(v.rows.order) {
			u.openFlow(int(v.rows.sums[v.rows.order[row]].worse))
		}
	})
	useContent(v.table, v.content(nil))
	return v
}

// Name implements view.
func (v *connsView) Name() string { return "Connections" }

// Root implements view.
func (v *connsView) Root() tview.Primitive { return v.table }

// Panes implements view.
func (v *connsView) Panes() []tview.Primitive { return []tview.Primitive{v.table} }

// Position implements view.
func (v *connsView) Position() string { return position(v.table) }

// Filter implements view.
func (v *connsView) Filter() (string, bool) { return v.filter, true }

// SetFilter implements view.
func (v *connsView) SetFilter(text string, _ bool) {
	v.filter = text
	v.derive()
}

// Bindings are the connections' keys, as the flows'.
func (v *connsView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "open the connection's direction with the problems (its flow)", nil),
		{keys: keys('s', 'S'), label: "s / S", help: "sort by the next / previous column (or click a column title)", run: v.cycleSort},
		onRune('r', "reverse the sort order", func() {
			v.desc = !v.desc
			v.resorted = true
			v.derive()
		}),
		onRune('p', "show only connections with problems", func() {
			v.problems = !v.problems
			v.derive()
		}),
		note("/", "filter as in Flows; a connection passes when either direction does"),
	}
}

func (v *connsView) cycleSort(back int) {
	n := len(connColumns) + 1
	step := 1
	if back == 1 {
		step = n - 1
	}
	v.sortBy((v.sortCol+1+step)%n - 1)
}

// sortBy sorts by connColumns[col] (-1: first-seen order); numbers sort
// largest first.
func (v *connsView) sortBy(col int) {
	v.sortCol = col
	v.desc = col >= 0 && connColumns[col].right
	v.resorted = true
	v.derive()
}

// Refresh implements view.
func (v *connsView) Refresh(s *Snapshot) {
	if s.Report != v.requested {
		v.derive()
	}
}

func (v *connsView) derive() {
	r := v.u.snap.Report
	v.requested = r
	if r == nil {
		return
	}
	filter, problems, col, desc := v.filter, v.problems, v.sortCol, v.desc
	resorted := v.resorted
	v.resorted = false
	keep := int32(-1) // the connection's first flow
	if row := selectedRow(v.table); row >= 0 && row < len(v.rows.order) {
		keep = v.rows.conns[v.rows.order[row]].a
	}
	v.u.jobs.start("connections", func() func() {
		rows := connOrder(r, filter, problems, col, desc)
		at := -1
		for i, c := range rows.order {
			if keep >= 0 && rows.conns[c].a == keep {
				at = i
				break
			}
		}
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

func (v *connsView) setTitle() {
	t := "Connections"
	if v.report != nil {
		t += " (" + fmtCount(int64(len(v.rows.order))) + " of " + fmtCount(int64(len(v.rows.conns))) + ", " +
			plural(int64(len(v.report.Flows)), "flow") + ")"
	}
	if v.problems {
		t += " with problems"
	}
	if v.sortCol < 0 && v.desc {
		t += ", the last seen first"
	}
	if v.sortCol >= 0 {
		dir := "ascending"
		if v.desc {
			dir = "descending"
		}
		t += ", by " + connColumns[v.sortCol].title + " " + dir
	}
	titled(v.table.Box, t)
}

func (v *connsView) content(r *analysis.Report) *tableContent {
	rows := v.rows
	sortCol := -1
	if v.sortCol >= 0 {
		sortCol = v.sortCol + 1
	}
	c := &tableContent{
		cols: connTableColumns, sortCol: sortCol, desc: v.desc, frozen: 2, // # and Endpoints stay
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
	c.n = len(rows.order)
	c.cell = func(row, col int) (string, mark) {
		i := rows.order[row]
		s := &rows.sums[i]
		m := markNone
		switch s.severity {
		case sevProblem:
			m = markProblem
		case sevCongestion:
			m = markCongestion
		}
		if col == 0 {
			return itoa(int(i) + 1), m
		}
		return connColumns[col-1].text(r, rows.conns[i], s), m
	}
	return c
}
