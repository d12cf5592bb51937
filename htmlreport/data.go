package htmlreport

import (
	"sort"
	"strconv"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/internal/units"
)

// Caps of the page's lists (the plots have theirs: MaxSeries, MaxLanes).
const (
	// MaxTableFlows caps the rows of the flows table (problem flows first).
	MaxTableFlows = 200
	// MaxFindingsPerCode caps the findings listed under one code.
	MaxFindingsPerCode = 10
)

// pfcLaneName names a lane: "02:5a:00:00:00:01 prio 3" or "... PAUSE" for
// 802.3x.
func pfcLaneName(mac string, prio *int) string {
	if prio == nil {
		return mac + " PAUSE (all)"
	}
	return mac + " prio " + strconv.Itoa(*prio)
}

// pfcTimeline draws the pause events (ts_ns to end_ns) per port and
// priority, the MaxLanes with the longest paused time, shaded per pixel
// column by the share of the column's time paused.
func pfcTimeline(r *analysis.Report) Timeline {
	t0, span := r.Capture.FirstTsNs, r.Capture.LastTsNs-r.Capture.FirstTsNs
	t := Timeline{
		Title: "PFC / PAUSE: pause episodes per port and priority",
		X:     Axis{Label: "time since the first frame", Unit: UnitTime},
	}
	t.XMax = span
	order := make([]int, len(r.PFC))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.PFC[order[a]].PausedNs > r.PFC[order[b]].PausedNs })
	if len(order) > 0 {
		t.Note = "Shade: the share of each pixel's time that was paused (lightest: under 25 %, darkest: over 75 %)."
	}
	if len(order) > MaxLanes {
		t.Note += " " + strconv.Itoa(len(order)-MaxLanes) + " more ports/priorities not drawn (less paused time)."
		order = order[:MaxLanes]
	}
	lane := map[string]int{}
	for _, i := range order {
		name := pfcLaneName(r.PFC[i].SrcMAC, r.PFC[i].Priority)
		lane[name] = len(t.Lanes)
		t.Lanes = append(t.Lanes, Lane{Name: name})
	}
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind != "pause" || e.SrcMAC == nil {
			continue
		}
		j, ok := lane[pfcLaneName(*e.SrcMAC, e.Priority)]
		if !ok {
			continue
		}
		end := e.TsNs
		if e.EndNs != nil {
			end = *e.EndNs
		}
		sp := Span{Start: e.TsNs - t0, End: min(end-t0, span)}
		t.Lanes[j].Spans = append(t.Lanes[j].Spans, sp)
	}
	for j := range t.Lanes {
		t.Lanes[j].Spans = MergeSpans(t.Lanes[j].Spans, 0)
	}
	return t
}

// hasProblem mirrors the text report's problem flows: loss, replays, NAKs
// or congestion.
func hasProblem(f *analysis.FlowReport) bool {
	return f.PSNGaps > 0 || f.Retransmitted > 0 || f.NAKs > 0 || f.RNRNAKs > 0 || f.ECNCE > 0 || f.CNPsReceived > 0
}

// WorstFlows returns the indices (into r.Flows) of the problem flows and of
// the flows a finding names, worst first: by error findings, warning
// findings, then missing PSNs + retransmitted + NAKs + RNR NAKs, then CE
// marks + CNPs received, then packets; ties keep first-seen order. The
// problem flows table lists them; the throughput plot draws the first
// MaxSeries.
func WorstFlows(r *analysis.Report) []int {
	type score struct{ errs, warns, loss, cong, packets int64 }
	idx := make(map[string]int, len(r.Flows))
	for i := range r.Flows {
		idx[r.Flows[i].ID] = i
	}
	sc := map[int]*score{}
	get := func(i int) *score {
		if sc[i] == nil {
			f := &r.Flows[i]
			sc[i] = &score{loss: f.MissingPSNs + f.Retransmitted + f.NAKs + f.RNRNAKs, cong: f.ECNCE + f.CNPsReceived, packets: f.Packets}
		}
		return sc[i]
	}
	for i := range r.Flows {
		if hasProblem(&r.Flows[i]) {
			get(i)
		}
	}
	for _, fd := range r.Findings {
		if fd.Flow == nil {
			continue
		}
		i, ok := idx[*fd.Flow]
		if !ok {
			continue
		}
		switch s := get(i); fd.Severity {
		case analysis.SeverityError:
			s.errs++
		case analysis.SeverityWarning:
			s.warns++
		}
	}
	out := make([]int, 0, len(sc))
	for i := range sc {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := sc[out[a]], sc[out[b]]
		for _, d := range [][2]int64{{x.errs, y.errs}, {x.warns, y.warns}, {x.loss, y.loss}, {x.cong, y.cong}, {x.packets, y.packets}} {
			if d[0] != d[1] {
				return d[0] > d[1]
			}
		}
		return out[a] < out[b]
	})
	return out
}

// flowRow is one row of the problem flows table.
type flowRow struct {
	Anchor    string
	ID        string
	Transport string
	Cells     []cell
	Findings  int
}

// cell is a table cell: the text shown and the value the script sorts by.
type cell struct {
	Text string
	Sort int64
}

func countCell(n int64) cell { return cell{units.Count(n), n} }

// flowRows builds the table rows: the worst flows (at most MaxTableFlows),
// and after them, in worst-first order, every other flow that named
// names (the flows of the findings the page lists, so that each links to
// its row), then, while there are fewer than MaxTableFlows rows, the flows
// without problems in the report's order; it returns the rows, the anchor
// of every flow listed, by flow id, and how many flows with and without
// problems are not listed.
func flowRows(r *analysis.Report, worst []int, named map[string]bool) (rows []flowRow, anchors map[string]string, problemsLeft, cleanLeft int) {
	nf := map[string]int{}
	for _, fd := range r.Findings {
		if fd.Flow != nil {
			nf[*fd.Flow]++
		}
	}
	anchors = map[string]string{}
	rows = make([]flowRow, 0, min(len(r.Flows), MaxTableFlows))
	add := func(i int) {
		f := &r.Flows[i]
		a := "flow-" + strconv.Itoa(i)
		anchors[f.ID] = a
		dur := f.LastTsNs - f.FirstTsNs
		rows = append(rows, flowRow{Anchor: a, ID: f.ID, Transport: f.Transport, Findings: nf[f.ID], Cells: []cell{
			countCell(f.Packets), {units.Bytes(f.Bytes), f.Bytes}, {units.Duration(dur), dur},
			countCell(f.PSNGaps), countCell(f.MissingPSNs), countCell(f.Retransmitted), countCell(f.NAKs),
			countCell(f.RNRNAKs), countCell(f.ECNCE), countCell(f.CNPs), countCell(f.CNPsReceived),
		}})
	}
	problem := make(map[int]bool, len(worst))
	for rank, i := range worst {
		problem[i] = true
		if rank < MaxTableFlows || named[r.Flows[i].ID] {
			add(i)
		} else {
			problemsLeft++
		}
	}
	for i := range r.Flows {
		switch {
		case problem[i]:
		case len(rows) < MaxTableFlows:
			add(i)
		default:
			cleanLeft++
		}
	}
	return rows, anchors, problemsLeft, cleanLeft
}

// flowColumns are the headings of flowRow.Cells, in order.
var flowColumns = []string{"packets", "bytes", "duration", "PSN gaps", "missing PSNs", "retrans\u00admitted pkts",
	"NAKs", "RNR NAKs", "CE pkts", "CNPs sent", "CNPs recv'd"}

// findingGroup is the findings of one code.
type findingGroup struct {
	Code     string
	Severity string
	Items    []findingItem
	Count    int
	More     int
}

// findingItem is one listed finding; Anchor is its flow's row (the table
// lists every flow a listed finding names), empty when it names none or
// the flow is not in the Report.
type findingItem struct {
	Message string
	Flow    string
	Anchor  string
}

// rollUp groups the findings by code in the Report's order (severity
// first), listing at most MaxFindingsPerCode of each; Anchor is left for
// link to fill.
func rollUp(fs []analysis.Finding) []findingGroup {
	var groups []findingGroup
	at := map[string]int{}
	for _, f := range fs {
		g, ok := at[f.Code]
		if !ok {
			g = len(groups)
			at[f.Code] = g
			groups = append(groups, findingGroup{Code: f.Code, Severity: string(f.Severity)})
		}
		gr := &groups[g]
		gr.Count++
		if len(gr.Items) == MaxFindingsPerCode {
			gr.More++
			continue
		}
		it := findingItem{Message: f.Message}
		if f.Flow != nil {
			it.Flow = *f.Flow
		}
		gr.Items = append(gr.Items, it)
	}
	return groups
}

// namedFlows returns the flows the listed findings name.
func namedFlows(groups []findingGroup) map[string]bool {
	named := map[string]bool{}
	for _, g := range groups {
		for _, it := range g.Items {
			if it.Flow != "" {
				named[it.Flow] = true
			}
		}
	}
	return named
}

// link sets each listed finding's Anchor to its flow's row.
func link(groups []findingGroup, anchors map[string]string) {
	for g := range groups {
		for i := range groups[g].Items {
			groups[g].Items[i].Anchor = anchors[groups[g].Items[i].Flow]
		}
	}
}
