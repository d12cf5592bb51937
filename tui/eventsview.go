package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// eventsView lists every event in time order, filterable by kind and flow;
// Enter opens the frame that shows the event.
type eventsView struct {
	u     *UI
	table *tview.Table

	report    *analysis.Report
	rows      []int32
	kind      string // "" all kinds
	filter    string
	requested *analysis.Report
	sortCol   int  // index in eventSortTitles, -1: time order
	desc      bool // descending
	resorted  bool // the next derive is for a new order: show the top
}

var eventColumns = detailEventColumns

func newEventsView(u *UI) *eventsView {
	v := &eventsView{u: u, sortCol: -1}
	v.table = newTable("Events", func(row int) {
		if row < len(v.rows) {
			u.openEvent(int(v.rows[row]))
		}
	})
	useContent(v.table, &tableContent{cols: eventColumns, sortCol: -1})
	return v
}

// Name implements view.
func (v *eventsView) Name() string { return "Events" }

// Root implements view.
func (v *eventsView) Root() tview.Primitive { return v.table }

// Panes implements view.
func (v *eventsView) Panes() []tview.Primitive { return []tview.Primitive{v.table} }

// Position implements view.
func (v *eventsView) Position() string { return position(v.table) }

// Filter implements view.
func (v *eventsView) Filter() (string, bool) { return v.filter, true }

// SetFilter implements view.
func (v *eventsView) SetFilter(text string, _ bool) {
	v.filter = text
	v.derive()
}

// Bindings are the events' keys: the kind shown, the event's flow.
func (v *eventsView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "open the frame that shows the event", nil),
		onRune('t', "cycle the kind shown: all, then each event kind in turn (as / kind:K)", v.nextKind),
		onRune('f', "open the event's flow", v.openFlow),
		{keys: keys('s', 'S'), label: "s / S", help: "sort by the next / previous of Time, Kind, Flow, Duration", run: v.cycleSort},
		onRune('r', "reverse the sort order", func() {
			v.desc = !v.desc
			v.resorted = true
			v.derive()
		}),
		note("/", "filter: kind:K, flow:PART-OF-ID, or words of the line"),
	}
}

// nextKind shows the next kind of event (after the last one: all kinds).
func (v *eventsView) nextKind() {
	next := ""
	if v.kind == "" {
		next = eventKinds[0]
	} else {
		for i, k := range eventKinds {
			if k == v.kind && i+1 < len(eventKinds) {
				next = eventKinds[i+1]
			}
		}
	}
	v.kind = next
	v.derive()
}

// openFlow opens the flow of the selected event.
func (v *eventsView) openFlow() {
	row := selectedRow(v.table)
	if v.report == nil || row < 0 || row >= len(v.rows) {
		return
	}
	e := &v.report.Events[v.rows[row]]
	if e.Flow == nil {
		v.u.msg = "a pause event has no flow (see PFC)"
		return
	}
	v.u.openFlowID(*e.Flow)
}

// Refresh implements view.
func (v *eventsView) Refresh(s *Snapshot) {
	if s.Report != v.requested {
		v.derive()
	}
}

func (v *eventsView) derive() {
	r := v.u.snap.Report
	v.requested = r
	if r == nil {
		return
	}
	kind, filter, col, desc, resorted := v.kind, v.filter, v.sortCol, v.desc, v.resorted
	v.resorted = false
	keep := int32(-1)
	if row := selectedRow(v.table); row >= 0 && row < len(v.rows) {
		keep = v.rows[row]
	}
	v.u.jobs.start("events", func() func() {
		rows := eventOrder(r, kind, filter, "")
		sortEvents(r, rows, col, desc)
		at := -1
		if keep >= 0 {
			for i, e := range rows {
				if e == keep || (col < 0 && e > keep) { // same event or (time order) the next one
					at = i
					break
				}
			}
		}
		return func() {
			v.report, v.rows = r, rows
			c := eventContent(r, rows, true, v.u.frames.label)
			if col >= 0 && col < 3 {
				c.sortCol, c.desc = col, desc
			}
			if resorted {
				showTop(v.table, c, at)
			} else {
				setContent(v.table, c, at)
			}
			t := "Events (" + fmtCount(int64(len(rows))) + " of " + fmtCount(int64(len(r.Events))) + ")"
			if kind != "" {
				t += " of kind " + kind
			}
			if col < 0 && desc {
				t += ", the latest first"
			}
			if col >= 0 {
				dir := "ascending"
				if desc {
					dir = "descending"
				}
				t += ", by " + eventSortTitles[col] + " " + dir
			}
			titled(v.table.Box, t)
		}
	})
}
