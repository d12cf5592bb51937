package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// flowsView lists every flow: sortable by any column, filterable, problem
// flows highlighted; Enter opens the flow.
type flowsView struct {
	u     *UI
	table *tview.Table

	report    *analysis.Report // the report the rows are of
	rows      []int32          // flow indices in display order
	sortCol   int              // index in flowColumns, -1: first-seen order
	desc      bool
	filter    string
	problems  bool
	requested *analysis.Report // the report the last derive was for
	resorted  bool             // the next derive is for a new sort order: show the top
}

// tableColumns is the flows table's columns, "#" first.
var flowTableColumns = func() []column {
	cols := []column{{title: "#", right: true}}
	for _, c := range flowColumns {
		cols = append(cols, column{title: c.title, right: c.right, max: 48})
	}
	return cols
}()

func newFlowsView(u *UI) *flowsView {
	v := &flowsView{u: u, sortCol: -1}
	v.table = newTable("Flows", func(row int) {
		if row < len(v.rows) {
			u.openFlow(int(v.rows[row]))
		}
	})
	useContent(v.table, v.content(nil))
	return v
}

// Name implements view.
func (v *flowsView) Name() string { return "Flows" }

// Root implements view.
func (v *flowsView) Root() tview.Primitive { return v.table }

// Panes implements view.
func (v *flowsView) Panes() []tview.Primitive { return []tview.Primitive{v.table} }

// Position implements view.
func (v *flowsView) Position() string { return position(v.table) }

// Filter implements view.
func (v *flowsView) Filter() (string, bool) { return v.filter, true }

// SetFilter implements view.
func (v *flowsView) SetFilter(text string, _ bool) {
	v.filter = text
	v.derive()
}

// Bindings are the flows' keys: sorting, reversing, problems only.
func (v *flowsView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "open the flow", nil),
		{keys: keys('s', 'S'), label: "s / S", help: "sort by the next / previous column (or click a column title)", run: v.cycleSort},
		onRune('r', "reverse the sort order", func() {
			v.desc = !v.desc
			v.resorted = true
			v.derive()
		}),
		onRune('p', "show only flows with problems (loss, replays, NAKs, congestion)", func() {
			v.problems = !v.problems
			v.derive()
		}),
		note("/", "filter: words of the flow id, ip:ADDR, qp:N (0x hex or decimal), problems"),
	}
}

// cycleSort sorts by the next column (back = 0) or the previous one (1),
// first-seen order coming between the last column and the first.
func (v *flowsView) cycleSort(back int) {
	n := len(flowColumns) + 1
	step := 1
	if back == 1 {
		step = n - 1
	}
	v.sortBy((v.sortCol+1+step)%n - 1)
}

// sortBy sorts by flowColumns[col] (-1: first-seen order). Counters sort
// largest first.
func (v *flowsView) sortBy(col int) {
	v.sortCol = col
	v.desc = col >= 0 && flowColumns[col].right
	v.resorted = true
	v.derive()
}

// Refresh implements view.
func (v *flowsView) Refresh(s *Snapshot) {
	if s.Report != v.requested {
		v.derive()
	}
}

// derive recomputes the row order in a job; the result replaces the
// table's content, keeping the selected flow selected.
func (v *flowsView) derive() {
	r := v.u.snap.Report
	v.requested = r
	if r == nil {
		return
	}
	filter, problems, col, desc := v.filter, v.problems, v.sortCol, v.desc
	resorted := v.resorted
	v.resorted = false
	keep := int32(-1)
	if row := selectedRow(v.table); row >= 0 && row < len(v.rows) {
		keep = v.rows[row]
	}
	v.u.jobs.start("flows", func() func() {
		rows := flowOrder(r, filter, problems, col, desc)
		at := -1
		if keep >= 0 {
			for i, f := range rows {
				if f == keep {
					at = i
					break
				}
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

func (v *flowsView) setTitle() {
	r := v.report
	t := "Flows"
	if r != nil {
		t += " (" + fmtCount(int64(len(v.rows))) + " of " + fmtCount(int64(len(r.Flows))) + ")"
	}
	if v.problems {
		t += " with problems"
	}
	if v.sortCol >= 0 {
		dir := "ascending"
		if v.desc {
			dir = "descending"
		}
		t += ", by " + flowColumns[v.sortCol].title + " " + dir
	}
	titled(v.table.Box, t)
}

func (v *flowsView) content(r *analysis.Report) *tableContent {
	rows := v.rows
	sortCol := -1
	if v.sortCol >= 0 {
		sortCol = v.sortCol + 1
	}
	c := &tableContent{
		cols: flowTableColumns, sortCol: sortCol, desc: v.desc, frozen: 2, // # and Flow stay
		onClick: func(col int) {
			if col == 0 {
				v.sortBy(-1)
			} else if col-1 == v.sortCol {
				v.desc = !v.desc
				v.resorted = true
				v.derive()
			} else {
				v.sortBy(col - 1)
			}
		},
	}
	if r == nil {
		c.cell = func(int, int) (string, mark) { return "", markNone }
		return c
	}
	start := r.Capture.FirstTsNs
	c.n = len(rows)
	c.cell = func(row, col int) (string, mark) {
		i := rows[row]
		f := &r.Flows[i]
		m := markNone
		switch flowSeverity(f) {
		case sevProblem:
			m = markProblem
		case sevCongestion:
			m = markCongestion
		}
		if col == 0 {
			return itoa(int(i) + 1), m
		}
		return flowColumns[col-1].text(f, start), m
	}
	return c
}
