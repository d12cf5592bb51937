package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// overviewView is the first screen: capture summary, findings, timelines
// and the flows with the most problems.
type overviewView struct {
	u        *UI
	root     *tview.Flex
	top      *tview.Flex // summary and findings side by side
	summary  *tview.TextView
	findings *tview.Table
	chart    *chart
	worst    *tview.Table

	report    *analysis.Report // the report the tables show
	worstRows connRows         // the connections with the most problems
	counts    reportCounts     // of report

	groups      []findingGroup  // the report's findings by code
	findingRows []findingRow    // the findings table's rows
	openGroups  map[string]bool // codes whose findings are listed

	summaryLines int // lines of the summary text (layout: room for the latency lines)
}

// reportCounts are the summary's tallies of a report, made in a job.
type reportCounts struct {
	problemFlows int64
	kinds        map[string]int64
	conns        int64 // connections (QP pairs)
	problemConns int64 // connections with problems in either direction
}

func countReport(r *analysis.Report) reportCounts {
	c := reportCounts{kinds: map[string]int64{}}
	for i := range r.Flows {
		if flowSeverity(&r.Flows[i]) != sevNone {
			c.problemFlows++
		}
	}
	for i := range r.Events {
		c.kinds[r.Events[i].Kind]++
	}
	return c
}

func newOverviewView(u *UI) *overviewView {
	v := &overviewView{u: u, openGroups: map[string]bool{}}
	v.summary = newText("Capture", true)
	v.findings = newTable("Findings", v.openFinding)
	v.chart = newChart("Timeline")
	v.worst = newTable(worstTitle, func(row int) {
		if row < len(v.worstRows.order) {
			u.openFlow(int(v.worstRows.sums[v.worstRows.order[row]].worse))
		}
	})
	v.summary.SetWrap(true).SetWordWrap(true) // a long value goes on the next line, never cut
	v.top = tview.NewFlex().
		AddItem(v.summary, 60, 0, false).
		AddItem(v.findings, 0, 1, false)
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.top, 12, 0, false).
		AddItem(v.chart, 0, 1, false).
		AddItem(v.worst, 0, 1, true)
	v.root.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		v.layout(w, h)
		return x, y, w, h
	})
	useContent(v.findings, &tableContent{cols: findingColumns, sortCol: -1, cell: func(int, int) (string, mark) { return "", 0 }})
	useContent(v.worst, &tableContent{cols: worstColumns, sortCol: -1, cell: func(int, int) (string, mark) { return "", 0 }})
	return v
}

// layout sizes the panes for a w x h view. From 30 lines (100x30 and up)
// every pane has room: the capture and findings 12 lines (from 36 lines,
// up to 16 when the summary has more lines: latency kinds), the timeline and the
// connections half of the rest each. Below, the panes keep what their
// content needs: the timeline one line a band (8 lines), the summary its
// 8 lines; below 22 lines the timeline goes first, below 70 columns the
// findings (the summary counts them); values wrap, never cut.
func (v *overviewView) layout(w, h int) {
	sumW := 60
	switch {
	case w < 70:
		sumW = w // no findings pane
	case w < 120:
		sumW = max(46, w/2)
	}
	v.top.ResizeItem(v.summary, sumW, 0)
	if w < 70 {
		v.top.ResizeItem(v.findings, 0, 0)
	} else {
		v.top.ResizeItem(v.findings, 0, 1)
	}
	switch {
	case h >= 36: // more lines when the summary needs them (latency kinds)
		v.root.ResizeItem(v.top, min(max(12, v.summaryLines+2), 16), 0)
		v.root.ResizeItem(v.chart, 0, 1)
	case h >= 28:
		v.root.ResizeItem(v.top, 12, 0)
		v.root.ResizeItem(v.chart, 0, 1)
	case h >= 20:
		v.root.ResizeItem(v.top, 10, 0)
		v.root.ResizeItem(v.chart, 8, 0) // 5 bands of one line, the axis, borders
	default:
		v.root.ResizeItem(v.top, 10, 0)
		v.root.ResizeItem(v.chart, 0, 0) // dropped
	}
}

// Name implements view.
func (v *overviewView) Name() string { return "Overview" }

// Root implements view.
func (v *overviewView) Root() tview.Primitive { return v.root }

// Panes implements view.
func (v *overviewView) Panes() []tview.Primitive {
	return []tview.Primitive{v.worst, v.findings, v.summary}
}

// Filter implements view.
func (v *overviewView) Filter() (string, bool) { return "", false }

// SetFilter implements view.
func (v *overviewView) SetFilter(string, bool) {}

// Bindings are the overview's keys: Enter is its tables' (newTable's open).
func (v *overviewView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "open the selected flow (or the finding's flow)", nil),
		note("latency", latencyCaveat),
	}
}

// Position implements view.
func (v *overviewView) Position() string {
	if v.findings.HasFocus() { // not app.GetFocus: Position runs while drawing, under the app lock
		return "finding " + strings.TrimPrefix(position(v.findings), "row ")
	}
	return position(v.worst)
}

// worstTitle is the title of the overview's table of connections.
const worstTitle = "Connections with the most problems (Enter: open the flow with them)"

// worstColumns: per connection, its direction with the problems, its
// peer's QP and both directions' counters added.
var worstColumns = []column{
	{title: "Flow"}, {title: "Peer QP"}, {title: "Type"}, {title: "Packets", right: true}, {title: "Missing", right: true},
	{title: "Retx", right: true}, {title: "NAK", right: true}, {title: "RNR", right: true},
	{title: "CE", right: true}, {title: "CNP rx", right: true},
}

// openFinding opens or closes a group of findings, or opens what a single
// finding is about.
func (v *overviewView) openFinding(row int) {
	r := v.report
	if r == nil || row >= len(v.findingRows) {
		return
	}
	fr := v.findingRows[row]
	g := &v.groups[fr.group]
	if fr.member < 0 && len(g.members) > 1 {
		v.openGroups[g.code] = !v.openGroups[g.code]
		v.showFindings(r, row)
		return
	}
	f := &r.Findings[g.members[max(fr.member, 0)]]
	if f.Flow != nil {
		v.u.openFlowID(*f.Flow)
		return
	}
	if i := pfcOfFinding(r, f); i >= 0 {
		v.u.openPFC(i)
		return
	}
	v.u.msg = f.Message // capture-wide: nothing to open; show it whole
}

// showFindings shows the grouped findings, row selected.
func (v *overviewView) showFindings(r *analysis.Report, row int) {
	v.findingRows = findingRows(v.groups, v.openGroups)
	setContent(v.findings, findingContent(r, v.groups, v.findingRows, v.openGroups), row)
}

// Refresh shows the snapshot: the summary and chart every time (the
// progress moves), the tables when the report is new.
func (v *overviewView) Refresh(s *Snapshot) {
	v.showSummary(s)
	v.refreshChart(s)
	r := s.Report
	if r == nil || r == v.report {
		return
	}
	v.report = r
	v.u.jobs.start("overview", func() func() {
		worst, bad := worstConns(r, 50)
		counts := countReport(r)
		counts.conns, counts.problemConns = int64(len(worst.conns)), bad
		return func() {
			if r == v.report {
				v.counts = counts
				v.showTables(r, worst)
				v.showSummary(v.u.snap)
			}
		}
	})
}

// showSummary shows the summary of s when its report's counts are ready.
func (v *overviewView) showSummary(s *Snapshot) {
	if s.Report != nil && (s.Report != v.report || v.counts.kinds == nil) {
		return // the job counting the new report will show it
	}
	text := summaryText(s, v.counts)
	v.summaryLines = strings.Count(text, "\n")
	v.summary.SetText(text)
}

func (v *overviewView) showTables(r *analysis.Report, worst connRows) {
	v.groups = groupFindings(r)
	titled(v.findings.Box, "Findings ("+fmtCount(int64(len(r.Findings)))+" in "+plural(int64(len(v.groups)), "code")+")")
	v.showFindings(r, -1)
	v.worstRows = worst
	title := worstTitle
	if len(worst.order) == 0 {
		title = "No connection shows loss, replays, NAKs or congestion"
	}
	titled(v.worst.Box, title)
	setContent(v.worst, &tableContent{
		cols: worstColumns, n: len(worst.order), sortCol: -1,
		cell: func(row, col int) (string, mark) {
			i := worst.order[row]
			s, c := &worst.sums[i], worst.conns[i]
			f := &r.Flows[s.worse]
			m := markCongestion
			if s.severity == sevProblem {
				m = markProblem
			}
			var n int64
			switch col {
			case 0:
				return f.ID, m
			case 1:
				peer := c.b
				if peer == s.worse {
					peer = c.a
				}
				if peer < 0 {
					return "-", m
				}
				return qpName(r.Flows[peer].DstQPN), m
			case 2:
				return f.Transport, m
			case 3:
				n = s.packetsAB + s.packetsBA
			case 4:
				n = s.missing
			case 5:
				n = s.retx
			case 6:
				n = s.naks
			case 7:
				n = s.rnr
			case 8:
				n = s.ce
			case 9:
				n = s.cnpsRx
			}
			return fmtCount(n), m
		},
	}, -1)
}

// refreshChart points the chart at the snapshot's timeline.
func (v *overviewView) refreshChart(s *Snapshot) {
	tl := s.Timeline // a copy: the chart keeps it
	c := v.chart
	if tl.WidthNs == 0 {
		c.series, c.empty = nil, "no frames yet"
		return
	}
	c.empty = ""
	c.axis = func(cols int) (string, string) { return timelineAxis(&tl, cols) }
	series := func(sr Series, peak func([]float64, int64) string) func(int) ([]float64, string) {
		return func(n int) ([]float64, string) {
			vals, width := tl.Resample(sr, n)
			return vals, peak(vals, width)
		}
	}
	// Counts are quoted per column, the width the axis states.
	counts := func(sr Series) func(int) ([]float64, string) {
		return func(n int) ([]float64, string) {
			vals, width := tl.Resample(sr, n)
			return vals, peakCount(vals, width, tl.ColumnNs(n))
		}
	}
	c.series = []chartSeries{
		{label: "Throughput", color: tcell.ColorGreen, data: series(SeriesBytes, peakRate)},
		{label: "Problems", color: tcell.ColorRed, data: counts(SeriesProblems)},
		{label: "CE marks", color: tcell.ColorYellow, data: counts(SeriesCE)},
		{label: "CNPs", color: tcell.ColorOrange, data: counts(SeriesCNP)},
		{label: "Paused", color: tcell.ColorAqua, data: series(SeriesPaused, peakShare)},
	}
}

// summaryText is the capture summary.
func summaryText(s *Snapshot, counts reportCounts) string {
	var b strings.Builder
	line := func(k, format string, a ...any) {
		fmt.Fprintf(&b, "[green]%-10s[-] %s\n", k, fmt.Sprintf(format, a...))
	}
	p := s.Progress
	switch {
	case s.Live:
		line("Status", "%s", liveStatus(s))
	case p.Done && p.Canceled:
		line("Status", "[yellow]stopped after %s[-]", plural(p.Frames, "frame"))
	case p.Done: // the status bar says "N frames loaded"
	default:
		line("Status", "%s", progressBar(p, 16))
	}
	writeErrors(&b, s) // first: a damaged input matters more than the counts, and they may not all fit
	r := s.Report
	if r == nil {
		line("Frames", "%s read", fmtCount(p.Frames))
		b.WriteString("\n(analysing…)\n")
		return b.String()
	}
	c := &r.Capture
	frames := fmtCount(c.Packets)
	if !p.Done {
		frames += " analysed so far"
	}
	line("Frames", "%s (RoCE %s, CNP %s)", frames, fmtCount(c.RoCEPackets), fmtCount(c.CNPPackets))
	// other: as the text report counts it (neither RoCE nor PFC nor PAUSE)
	line("PFC/PAUSE", "%s / %s, other %s", fmtCount(c.PFCFrames), fmtCount(c.PauseFrames),
		fmtCount(c.Packets-c.RoCEPackets-c.PFCFrames-c.PauseFrames))
	if c.Packets > 0 {
		line("Span", "%s", fmtDur(c.LastTsNs-c.FirstTsNs))
		line("Start", "%s", time.Unix(0, c.FirstTsNs).UTC().Format("2006-01-02 15:04:05.000000 UTC"))
	}
	line("Flows", "%s in %s", fmtCount(int64(len(r.Flows))), plural(counts.conns, "connection"))
	line("Problems", "%s", plural(counts.problemConns, "connection"))
	kinds := counts.kinds
	var ks []string
	for _, k := range eventKinds {
		if kinds[k] > 0 {
			ks = append(ks, fmt.Sprintf("%s %s", k, fmtCount(kinds[k])))
		}
	}
	line("Events", "%s%s", fmtCount(int64(len(r.Events))), parenthesized(strings.Join(ks, ", ")))
	if l := r.CNPLatency; l.Count > 0 {
		line("CNP delay", "p50 %s, p99 %s, max %s", fmtDur(l.P50Ns), fmtDur(l.P99Ns), fmtDur(l.MaxNs))
	}
	latencyLines(&r.Latency, line)
	var q []string
	for _, x := range []struct {
		n    int64
		what string
	}{{c.Truncated, "truncated"}, {c.Malformed, "malformed"}, {c.ICRCBad, "ICRC bad"}, {c.ICRCUnchecked, "ICRC unchecked"}} {
		if x.n > 0 {
			q = append(q, fmtCount(x.n)+" "+x.what)
		}
	}
	if len(q) > 0 {
		line("Frames", "%s", strings.Join(q, ", "))
	}
	return b.String()
}

func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func writeErrors(b *strings.Builder, s *Snapshot) {
	for _, err := range s.Errors {
		b.WriteString("[red]" + escape(err.Error()) + "[-]\n")
	}
}
