package analysis

import "github.com/rocetrace/rocetrace/flows"

// A lean report (Options.Lean) stores no row per flow or event: Build
// leaves Report.Flows and Report.Events nil and keeps the finished table,
// and the writers build the rows from it a chunk at a time (NumFlows,
// AppendFlows, NumEvents, AppendEvents). A report of a capture with a
// million flows or events then costs the flow table only, not the table
// plus a copy of every flow and event (issue 12 item 10, issue 20).

// leanSource is what a lean report builds its rows from. The table must
// not change after Build.
type leanSource struct {
	t    *flows.Table
	cc   map[*flows.Flow]*ccFlow // DCQCN reaction per flow (ccReactions)
	rest *leanRest
}

// A report's findings and latency summaries are computed on a goroutine
// of their own (startRest), while the writers turn the table into rows (a
// lean report) or Build does (a report with rows, as the TUI builds): both
// only read the finished table. A lean report's Findings is nil, and its
// CNPLatency and Latency zero, until Await. report --json of 1M frames:
// the findings take ~4 ms, the latency summaries ~0.6, the flows and
// events ~8; the second core is otherwise idle then.
type leanRest struct {
	done       chan struct{}
	findings   []Finding
	cnpLatency LatencySummary
	latency    LatencyReport
}

// startRest starts computing the latency summaries of t, then, once
// ccReactions' result comes on the channel it returns, its findings.
func startRest(t *flows.Table, c CaptureSummary, opts Options) (*leanRest, chan<- map[*flows.Flow]*ccFlow) {
	p := &leanRest{done: make(chan struct{})}
	ccs := make(chan map[*flows.Flow]*ccFlow, 1)
	go func() {
		defer close(p.done)
		p.cnpLatency, p.latency = cnpLatency(t), latencyReport(t)
		p.findings = findings(t, &c, opts, <-ccs)
	}()
	return p, ccs
}

// Await sets the Findings, CNPLatency and Latency of a lean report, waiting
// until they are computed; it does nothing on a report that is not lean,
// or whose Findings are set. The writers, Materialize, AddPoints and
// AddSameTraffic call it: code outside them that reads those fields of a
// lean report calls it first.
func (r *Report) Await() {
	if r.lean != nil && r.Findings == nil {
		<-r.lean.rest.done
		r.Findings, r.CNPLatency, r.Latency = r.lean.rest.findings, r.lean.rest.cnpLatency, r.lean.rest.latency
	}
}

// rowChunk is how many rows the writers build at a time from a lean report.
const rowChunk = 1024

// Lean reports whether r is a lean report whose Flows and Events are not
// filled (Options.Lean; Materialize fills them).
func (r *Report) Lean() bool { return r.lean != nil }

// NumFlows returns the number of flows of the report: len(r.Flows), or the
// table's for a lean report.
func (r *Report) NumFlows() int {
	if r.lean != nil {
		return len(r.lean.t.Flows())
	}
	return len(r.Flows)
}

// AppendFlows appends the report's flows [from, to) to dst: copies of
// r.Flows' rows, or rows built from the table for a lean report (the same
// values Build gives a report that is not lean).
func (r *Report) AppendFlows(dst []FlowReport, from, to int) []FlowReport {
	if r.lean == nil {
		return append(dst, r.Flows[from:to]...)
	}
	fs, bin := r.lean.t.Flows()[from:to], r.lean.t.Bin()
	var scratch latScratch
	for _, f := range fs {
		dst = append(dst, flowRow(f, bin, r.lean.cc, &scratch))
	}
	return dst
}

// NumEvents returns the number of events of the report: len(r.Events), or
// the table's for a lean report.
func (r *Report) NumEvents() int {
	if r.lean != nil {
		return r.lean.t.NumEvents()
	}
	return len(r.Events)
}

// AppendEvents appends the report's events [from, to) to dst: copies of
// r.Events' rows, or rows built from the table's events for a lean report.
// The pointer fields of the rows built point into storage shared by one
// call's rows (never written through).
func (r *Report) AppendEvents(dst []EventReport, from, to int) []EventReport {
	if r.lean == nil {
		return append(dst, r.Events[from:to]...)
	}
	a := eventArena{chunk: to - from}
	for i := from; i < to; i++ {
		dst = append(dst, a.eventReport(r.lean.t.Event(i)))
	}
	return dst
}

// rowCursor reads a report's rows in order, i = 0, 1, ...: from the
// report's slice, or for a lean report built rowChunk at a time into a
// reused buffer (AppendFlows, AppendEvents).
type rowCursor[T any] struct {
	all  []T                             // the rows of a report that is not lean
	fill func(dst []T, from, to int) []T // a lean report's: its Append method
	n    int                             // with fill: the number of rows
	buf  []T
}

// at returns row i; after it, only rows i+1 on may be asked for.
func (c *rowCursor[T]) at(i int) *T {
	if c.fill == nil {
		return &c.all[i]
	}
	if i%rowChunk == 0 {
		c.buf = c.fill(c.buf[:0], i, min(i+rowChunk, c.n))
	}
	return &c.buf[i%rowChunk]
}

// flowCursor returns a rowCursor of r's flows.
func (r *Report) flowCursor() rowCursor[FlowReport] {
	if r.lean == nil {
		return rowCursor[FlowReport]{all: r.Flows}
	}
	return rowCursor[FlowReport]{fill: r.AppendFlows, n: r.NumFlows()}
}

// eventCursor returns a rowCursor of r's events.
func (r *Report) eventCursor() rowCursor[EventReport] {
	if r.lean == nil {
		return rowCursor[EventReport]{all: r.Events}
	}
	return rowCursor[EventReport]{fill: r.AppendEvents, n: r.NumEvents()}
}

// Materialize makes a lean report an ordinary one: it fills Flows and
// Events from the table (what Build does without Options.Lean). Consumers
// that index the rows (the text, HTML and CSV reports, capture points) call
// it; on a report that is not lean it does nothing.
func (r *Report) Materialize() {
	if r.lean == nil {
		return
	}
	r.Await()
	r.Flows = r.AppendFlows(make([]FlowReport, 0, r.NumFlows()), 0, r.NumFlows())
	r.Events = r.AppendEvents(make([]EventReport, 0, r.NumEvents()), 0, r.NumEvents())
	r.lean = nil
}

// materializeFlows fills a lean report's Flows (WriteText ranks them); the
// report stays lean, its events built on demand.
func (r *Report) materializeFlows() {
	if r.lean != nil && r.Flows == nil {
		r.Flows = r.AppendFlows(make([]FlowReport, 0, r.NumFlows()), 0, r.NumFlows())
	}
}

// flowRow is flow f's row of the report; bin is the table's rate window, cc
// the DCQCN reactions (ccReactions), scratch a buffer reused from row to row.
func flowRow(f *flows.Flow, bin int64, cc map[*flows.Flow]*ccFlow, scratch *latScratch) FlowReport {
	fr := flowReport(f, scratch)
	setRates(&fr, f, bin)
	if c := cc[f]; c != nil {
		fr.CCReactionCNPs = int64(len(c.ratios))
		fr.CCRateRatioP50 = ptr(c.median.float())
	}
	return fr
}
