package tui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
)

// Row derivation: filtering and ordering the report's flows, events and PFC
// entries for the tables. These functions read an analysis.Report and return
// row orders (indices into its slices); they compute nothing about the
// capture. The UI runs them in job goroutines and swaps the results in.

// Flow severities, for highlighting and ordering.
const (
	sevNone       = 0
	sevCongestion = 1 // CE marks or CNPs received
	sevProblem    = 2 // loss, replays, NAKs, RNR NAKs
)

// flowSeverity classifies a flow by its counters.
func flowSeverity(f *analysis.FlowReport) int {
	switch {
	case f.PSNGaps > 0 || f.MissingPSNs > 0 || f.Retransmitted > 0 || f.NAKs > 0 || f.RNRNAKs > 0:
		return sevProblem
	case f.ECNCE > 0 || f.CNPsReceived > 0:
		return sevCongestion
	}
	return sevNone
}

// problemWeight orders flows in the overview's "worst flows": loss and NAKs
// first, then congestion.
func problemWeight(f *analysis.FlowReport) int64 {
	return 1000*(f.NAKs+f.RNRNAKs+f.PSNGaps) + 10*(f.MissingPSNs+f.Retransmitted) + f.ECNCE + f.CNPsReceived
}

// flowColumn is one column of the flows table.
type flowColumn struct {
	title string
	right bool // numbers align right
	text  func(f *analysis.FlowReport, start int64) string
	cmp   func(a, b *analysis.FlowReport) int
}

func intCol(title string, v func(f *analysis.FlowReport) int64) flowColumn {
	return flowColumn{
		title: title, right: true,
		text: func(f *analysis.FlowReport, _ int64) string { return fmtCount(v(f)) },
		cmp:  func(a, b *analysis.FlowReport) int { return cmp.Compare(v(a), v(b)) },
	}
}

func optString(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// flowColumns are the flows table's columns; every one sorts.
var flowColumns = []flowColumn{
	{title: "Flow", text: func(f *analysis.FlowReport, _ int64) string { return f.ID },
		cmp: func(a, b *analysis.FlowReport) int { return strings.Compare(a.ID, b.ID) }},
	{title: "Type", text: func(f *analysis.FlowReport, _ int64) string { return f.Transport },
		cmp: func(a, b *analysis.FlowReport) int { return strings.Compare(a.Transport, b.Transport) }},
	intCol("Packets", func(f *analysis.FlowReport) int64 { return f.Packets }),
	{title: "Bytes", right: true, text: func(f *analysis.FlowReport, _ int64) string { return fmtBytes(f.Bytes) },
		cmp: func(a, b *analysis.FlowReport) int { return cmp.Compare(a.Bytes, b.Bytes) }},
	{title: "Start", right: true, text: func(f *analysis.FlowReport, start int64) string { return fmtRel(f.FirstTsNs, start) },
		cmp: func(a, b *analysis.FlowReport) int { return cmp.Compare(a.FirstTsNs, b.FirstTsNs) }},
	{title: "Duration", right: true, text: func(f *analysis.FlowReport, _ int64) string { return fmtDur(f.LastTsNs - f.FirstTsNs) },
		cmp: func(a, b *analysis.FlowReport) int {
			return cmp.Compare(a.LastTsNs-a.FirstTsNs, b.LastTsNs-b.FirstTsNs)
		}},
	intCol("Gaps", func(f *analysis.FlowReport) int64 { return f.PSNGaps }),
	intCol("Missing", func(f *analysis.FlowReport) int64 { return f.MissingPSNs }),
	intCol("Retx", func(f *analysis.FlowReport) int64 { return f.Retransmitted }),
	intCol("NAK", func(f *analysis.FlowReport) int64 { return f.NAKs }),
	intCol("RNR", func(f *analysis.FlowReport) int64 { return f.RNRNAKs }),
	intCol("CE", func(f *analysis.FlowReport) int64 { return f.ECNCE }),
	intCol("CNP", func(f *analysis.FlowReport) int64 { return f.CNPs }),
	intCol("CNP rx", func(f *analysis.FlowReport) int64 { return f.CNPsReceived }),
	goodputColumn, peakColumn, // flowperf.go
	dscpColumn, vlanColumn, srcPortColumn,
	{title: "Peer", text: func(f *analysis.FlowReport, _ int64) string { return optString(f.Peer) },
		cmp: func(a, b *analysis.FlowReport) int { return strings.Compare(optString(a.Peer), optString(b.Peer)) }},
}

// flowFilter is a parsed flows filter: space-separated terms that must all
// match. "ip:ADDR" matches a source or destination IP containing ADDR;
// "qp:N" (decimal or 0x hex) a destination or UD source QP; "problems" (or
// "!") a flow with loss, replays, NAKs or congestion; any other word must
// appear in the flow id, transport or peer (case-insensitive).
type flowFilter struct {
	words    []string
	ips      []string
	qps      []uint32
	badQP    bool
	problems bool
}

func parseFlowFilter(s string) flowFilter {
	var f flowFilter
	for _, w := range strings.Fields(strings.ToLower(s)) {
		switch {
		case w == "problems" || w == "!":
			f.problems = true
		case strings.HasPrefix(w, "ip:"):
			f.ips = append(f.ips, w[3:])
		case strings.HasPrefix(w, "qp:"):
			v, err := strconv.ParseUint(w[3:], 0, 32)
			if err != nil {
				f.badQP = true
			}
			f.qps = append(f.qps, uint32(v))
		default:
			f.words = append(f.words, w)
		}
	}
	return f
}

func (ff *flowFilter) empty() bool {
	return len(ff.words) == 0 && len(ff.ips) == 0 && len(ff.qps) == 0 && !ff.problems && !ff.badQP
}

func (ff *flowFilter) match(f *analysis.FlowReport) bool {
	if ff.badQP {
		return false
	}
	if ff.problems && flowSeverity(f) == sevNone {
		return false
	}
	for _, ip := range ff.ips {
		if !strings.Contains(strings.ToLower(f.SrcIP), ip) && !strings.Contains(strings.ToLower(f.DstIP), ip) {
			return false
		}
	}
	for _, qp := range ff.qps {
		if f.DstQPN != qp && (f.SrcQPN == nil || *f.SrcQPN != qp) {
			return false
		}
	}
	for _, w := range ff.words {
		hay := strings.ToLower(f.ID + " " + f.Transport + " " + optString(f.Peer))
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// flowOrder filters and sorts the flows: by column col (ascending, or
// descending when desc), ties in first-seen order.
func flowOrder(r *analysis.Report, filter string, problemsOnly bool, col int, desc bool) []int32 {
	ff := parseFlowFilter(filter)
	ff.problems = ff.problems || problemsOnly
	out := make([]int32, 0, len(r.Flows))
	for i := range r.Flows {
		if ff.empty() || ff.match(&r.Flows[i]) {
			out = append(out, int32(i))
		}
	}
	if col >= 0 && col < len(flowColumns) {
		c := flowColumns[col].cmp
		slices.SortStableFunc(out, func(a, b int32) int {
			x := c(&r.Flows[a], &r.Flows[b])
			if desc {
				x = -x
			}
			return x
		})
	}
	return out
}

// eventKinds lists the event kinds in the order the kind filter cycles.
var eventKinds = []string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause", "psn_conflict", "hop_loss"}

// eventFilter is a parsed events filter: "kind:K" (prefix of a kind),
// "flow:F" (part of the event's flow or target flow id); other words must
// appear in the kind, flows or details.
type eventFilter struct {
	kinds, flows, words []string
}

func parseEventFilter(s string) eventFilter {
	var f eventFilter
	for _, w := range strings.Fields(strings.ToLower(s)) {
		switch {
		case strings.HasPrefix(w, "kind:"):
			f.kinds = append(f.kinds, w[5:])
		case strings.HasPrefix(w, "flow:"):
			f.flows = append(f.flows, w[5:])
		default:
			f.words = append(f.words, w)
		}
	}
	return f
}

func (ef *eventFilter) match(e *analysis.EventReport, start int64) bool {
	for _, k := range ef.kinds {
		if !strings.HasPrefix(e.Kind, k) {
			return false
		}
	}
	flows := strings.ToLower(optString(e.Flow) + " " + optString(e.TargetFlow))
	for _, f := range ef.flows {
		if !strings.Contains(flows, f) {
			return false
		}
	}
	if len(ef.words) > 0 {
		hay := strings.ToLower(e.Kind + " " + flows + " " + eventDetail(e, start))
		for _, w := range ef.words {
			if !strings.Contains(hay, w) {
				return false
			}
		}
	}
	return true
}

// eventOrder returns the events (in report order: by time) of kind kind
// ("" for all) that match filter; with flow set, only the events on that
// flow or targeting it.
func eventOrder(r *analysis.Report, kind, filter, flow string) []int32 {
	ef := parseEventFilter(filter)
	start := r.Capture.FirstTsNs
	out := make([]int32, 0)
	for i := range r.Events {
		e := &r.Events[i]
		if kind != "" && e.Kind != kind {
			continue
		}
		if flow != "" && optString(e.Flow) != flow && optString(e.TargetFlow) != flow {
			continue
		}
		if ef.match(e, start) {
			out = append(out, int32(i))
		}
	}
	return out
}

// pauseEpisodes returns the pause events of PFC entry p.
func pauseEpisodes(r *analysis.Report, p *analysis.PFCReport) []int32 {
	var out []int32
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind != "pause" || e.SrcMAC == nil || *e.SrcMAC != p.SrcMAC {
			continue
		}
		if (e.Priority == nil) != (p.Priority == nil) || (e.Priority != nil && *e.Priority != *p.Priority) {
			continue
		}
		out = append(out, int32(i))
	}
	return out
}

// pauseSpans returns the [start, end) of the given pause events.
func pauseSpans(r *analysis.Report, evs []int32) [][2]int64 {
	out := make([][2]int64, 0, len(evs))
	for _, i := range evs {
		e := &r.Events[i]
		if e.EndNs != nil {
			out = append(out, [2]int64{e.TsNs, *e.EndNs})
		}
	}
	return out
}

func i64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// eventDetail describes an event's own fields in one line.
func eventDetail(e *analysis.EventReport, start int64) string {
	u32 := func(p *uint32) string {
		if p == nil {
			return "?"
		}
		return strconv.FormatUint(uint64(*p), 10)
	}
	switch e.Kind {
	case "psn_gap":
		return "expected PSN " + u32(e.ExpectedPSN) + ", got " + u32(e.PSN) + ": " + plural(i64(e.Missing), "PSN") + " missing"
	case "retransmission":
		s := "replay from PSN " + u32(e.PSN) + ", " + plural(i64(e.Packets), "packet")
		if e.AfterNAKNs != nil {
			s += ", " + fmtDur(*e.AfterNAKNs) + " after the NAK"
		} else {
			s += ", no NAK seen (timeout)"
		}
		return s + replayTimes(e)
	case "nak":
		return "PSN " + u32(e.PSN) + " " + optString(e.Name) + " → " + optString(e.TargetFlow)
	case "rnr_nak":
		s := "PSN " + u32(e.PSN)
		if e.Timer != nil {
			s += ", timer " + strconv.Itoa(int(*e.Timer)) + " (" + fmtDur(i64(e.TimerNs)) + ")"
		}
		return s + " → " + optString(e.TargetFlow)
	case "cnp":
		s := "→ " + optString(e.TargetFlow)
		if e.ECNToCNPNs != nil {
			s += ", " + fmtDur(*e.ECNToCNPNs) + " after the first CE mark"
		}
		if rates := cnpRates(e); rates != "" {
			s += ", " + rates
		}
		return s
	case "psn_conflict", "hop_loss": // hop_loss: capture points (pointsview.go)
		return newEventDetail(e)
	case "pause":
		prio := "all (802.3x)"
		if e.Priority != nil {
			prio = strconv.Itoa(*e.Priority)
		}
		return optString(e.SrcMAC) + " priority " + prio + ", " + fmtDur(i64(e.DurationNs)) + ", " + plural(i64(e.Frames), "frame") +
			", until " + fmtRel(i64(e.EndNs), start)
	}
	return ""
}

// frameNumber parses a "go to frame" filter: "N" or "#N".
func frameNumber(filter string) (uint64, bool) {
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(filter), "#"), 10, 64)
	return v, err == nil && v > 0
}
