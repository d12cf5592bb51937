package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/internal/units"
)

// The flow detail's performance part (issues 13 and 17): the flow's
// latency percentiles, goodput and peak rate, its DCQCN reaction (from the
// report's flow), the CNPs that target it marked under its rate, its
// latency over time (the loader's FlowMarks), and the rates around the
// selected CNP event. Everything shown is what analysis (or flows, for the
// series) computed.

// fmtBps renders a bit rate ("6.8 Gb/s").
func fmtBps(bps int64) string { return units.BitRate(bps) }

// fmtRatio renders a rate ratio with two decimals ("0.56").
func fmtRatio(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// latencyLine renders a latency summary: "12: p50 2 µs, p99 2 µs, max 2 µs".
func latencyLine(n int64, p50, p99, maxNs *int64) string {
	return fmt.Sprintf("%s: p50 %s, p99 %s, max %s", fmtCount(n), fmtDur(i64(p50)), fmtDur(i64(p99)), fmtDur(i64(maxNs)))
}

// flowPerf is the counter block's lines after flowInfo's: latency, goodput
// and peak, and the DCQCN reaction when CNPs target the flow.
func flowPerf(r *analysis.Report, f *analysis.FlowReport) string {
	var b strings.Builder
	line := func(k, format string, a ...any) {
		fmt.Fprintf(&b, "[green]%-9s[-] %s\n", k, fmt.Sprintf(format, a...))
	}
	switch {
	case f.AckLatencyCount == 0 && f.ReadLatencyCount == 0:
		line("Latency", "none measured (no answered request)")
	default:
		if f.AckLatencyCount > 0 {
			line("ACK lat", "%s", latencyLine(f.AckLatencyCount, f.AckLatencyP50Ns, f.AckLatencyP99Ns, f.AckLatencyMaxNs))
		}
		if f.ReadLatencyCount > 0 {
			line("READ lat", "%s", latencyLine(f.ReadLatencyCount, f.ReadLatencyP50Ns, f.ReadLatencyP99Ns, f.ReadLatencyMaxNs))
		}
	}
	goodput := "-"
	if f.GoodputBps != nil {
		goodput = fmtBps(*f.GoodputBps)
	}
	line("Goodput", "%s, peak %s", goodput, fmtBps(f.PeakBps))
	if f.CCReactionCNPs > 0 || f.CNPsReceived > 0 {
		s := "no CNP with rates before and after"
		if f.CCReactionCNPs > 0 && f.CCRateRatioP50 != nil {
			s = fmt.Sprintf("%s with rates, median after/before %s", plural(f.CCReactionCNPs, "CNP"), fmtRatio(*f.CCRateRatioP50))
		}
		if hasFinding(r, "cc_no_reaction", f.ID) {
			s += ", [red]no reaction (cc_no_reaction)[-]"
		}
		line("DCQCN", "%s", s)
	}
	return b.String()
}

// hasFinding reports whether r has a finding of code about flow id.
func hasFinding(r *analysis.Report, code, id string) bool {
	for i := range r.Findings {
		if g := &r.Findings[i]; g.Code == code && g.Flow != nil && *g.Flow == id {
			return true
		}
	}
	return false
}

// cnpRates renders a CNP event's rates: "rate 24.9 Gb/s → 15.0 Gb/s
// (×0.60)"; "" when it has no rate before (the window was not full).
func cnpRates(e *analysis.EventReport) string {
	if e.RateBeforeBps == nil {
		return ""
	}
	s := "rate " + fmtBps(*e.RateBeforeBps) + " → "
	if e.RateAfterBps == nil {
		return s + "? (too few packets after)"
	}
	s += fmtBps(*e.RateAfterBps)
	if *e.RateBeforeBps > 0 {
		s += " (×" + fmtRatio(float64(*e.RateAfterBps)/float64(*e.RateBeforeBps)) + ")"
	}
	return s
}

// cnpBand is the rate chart's band of the CNPs that target the flow: a
// bar where one arrived, the count on the right.
func cnpBand(tl *Timeline, cnps *FlowRate) chartSeries {
	n := cnps.total()
	return chartSeries{label: "CNPs rx", color: tcell.ColorOrange, data: func(cols int) ([]float64, string) {
		vals, _ := cnps.Resample(tl, cols)
		return vals, plural(n, "CNP")
	}}
}

// latencyBand is a latency chart band: the largest sample per column.
func latencyBand(tl *Timeline, label string, f *FlowRate) chartSeries {
	return chartSeries{label: label, color: tcell.ColorFuchsia, data: func(cols int) ([]float64, string) {
		vals := f.ResampleMax(tl, cols)
		top := peakOf(vals)
		if top == 0 {
			return vals, "none"
		}
		return vals, "0–" + fmtDur(int64(top)) + " max"
	}}
}

// latencySeries are the latency chart's bands of flow marks fm.
func latencySeries(tl *Timeline, fm *FlowMarks) []chartSeries {
	var out []chartSeries
	if fm == nil {
		return nil
	}
	if fm.AckMaxNs != nil {
		out = append(out, latencyBand(tl, "ACK latency", fm.AckMaxNs))
	}
	if fm.ReadMaxNs != nil {
		out = append(out, latencyBand(tl, "READ lat.", fm.ReadMaxNs))
	}
	return out
}

// refreshLatency points the latency chart at the flow's latency series.
func (v *detailView) refreshLatency(s *Snapshot) {
	tl := s.Timeline
	c := v.lat
	c.series = latencySeries(&tl, s.FlowMarksOf(v.flow))
	if tl.WidthNs == 0 || len(c.series) == 0 {
		c.series, c.empty = nil, "no latency samples for this flow"
		return
	}
	c.empty = ""
	c.axis = func(cols int) (string, string) { return timelineAxis(&tl, cols) }
}

// selectEvent shows the rates around the selected event in the rate
// chart's title when it is a CNP with a rate before.
func (v *detailView) selectEvent(row int) {
	title := "Rate"
	if r := v.evReport; r != nil && row >= 0 && row < len(v.evRows) {
		if e := &r.Events[v.evRows[row]]; e.Kind == "cnp" {
			if s := cnpRates(e); s != "" {
				title = "Rate, CNP " + fmtRel(e.TsNs, r.Capture.FirstTsNs) + ": " + s
			}
		}
	}
	titled(v.chart.Box, title)
}

// latencyCaveat is the capture-point caveat of every latency shown (the
// contract's "Response latency"): the overview's help line.
const latencyCaveat = "measured at the capture point: next to the requester ≈ the round trip"

// latencyKinds are the report's latency summaries with their labels, in
// the order the overview lists them.
func latencyKinds(l *analysis.LatencyReport) []struct {
	label string
	s     analysis.LatencySummary
} {
	return []struct {
		label string
		s     analysis.LatencySummary
	}{{"ACK lat", l.Ack}, {"READ lat", l.Read}, {"READ 1st", l.ReadFirst}, {"Atomic", l.Atomic}}
}

// latencyLines writes the overview's latency lines (one per kind with
// samples) with line, and returns how many.
func latencyLines(l *analysis.LatencyReport, line func(k, format string, a ...any)) int {
	n := 0
	for _, k := range latencyKinds(l) {
		if k.s.Count == 0 {
			continue
		}
		line(k.label, "%s: p50 %s, p99 %s, max %s", fmtCount(k.s.Count), fmtDur(k.s.P50Ns), fmtDur(k.s.P99Ns), fmtDur(k.s.MaxNs))
		n++
	}
	return n
}
