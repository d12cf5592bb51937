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
}

var eventColumns = detailEventColumns

func newEventsView(u *UI) *eventsView {
	v := &eventsView{u: u}
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
		onRune('t', "cycle the kind shown: all, psn_gap, retransmission, nak, rnr_nak, cnp, pause", v.nextKind),
		onRune('f', "open the event's flow", v.openFlow),
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
	kind, filter := v.kind, v.filter
	keep := int32(-1)
	if row := selectedRow(v.table); row >= 0 && row < len(v.rows) {
		keep = v.rows[row]
	}
	v.u.jobs.start("events", func() func() {
		rows := eventOrder(r, kind, filter, "")
		at := -1
		if keep >= 0 {
			for i, e := range rows {
				if e >= keep { // same event or the next one in time
					at = i
					break
				}
			}
		}
		return func() {
			v.report, v.rows = r, rows
			setContent(v.table, eventContent(r, rows, true), at)
			t := "Events (" + fmtCount(int64(len(rows))) + " of " + fmtCount(int64(len(r.Events))) + ")"
			if kind != "" {
				t += " of kind " + kind
			}
			titled(v.table.Box, t)
		}
	})
}
