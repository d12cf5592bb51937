package htmlreport

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/internal/units"
)

// Chart is anything the page draws as a figure: a LineChart or a Timeline.
type Chart interface {
	SVG() template.HTML
}

// figure is one plot of the page with its note (what it leaves out).
type figure struct {
	SVG  template.HTML
	Note string
}

func fig(c Chart, note string) figure { return figure{c.SVG(), note} }

// page is what the template renders.
type page struct {
	Title    string
	Summary  [][2]string
	Latency  string
	PFC      []analysis.PFCReport
	Groups   []findingGroup
	Findings int
	// FewFindings opens every finding group (not only errors): there are
	// at most fewFindings.
	FewFindings bool
	Columns     []string
	Rows        []flowRow
	Problems    int
	RowsLeft    int // problem flows not listed
	CleanLeft   int // flows without problems not listed
	TotalFlow   int
	Figures     []figure
	// Capture points (report --point): the points and the hops table.
	Points   []analysis.PointReport
	Hops     []analysis.HopReport
	HopsLeft int
}

// Write renders r as one self-contained HTML page on w.
func Write(w io.Writer, r *analysis.Report) error { return WriteExtra(w, r, nil) }

// WriteExtra renders r as Write does, with the plots of x (nil: none of
// them): throughput and CE marks from the rate windows, the ACK/READ
// latency distributions.
func WriteExtra(w io.Writer, r *analysis.Report, x *Extra) error {
	bw := bufio.NewWriter(w)
	if err := tmpl().Execute(bw, build(r, x)); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// fewFindings is the most findings for which every group shows open.
const fewFindings = 12

// build computes the page from the report and x (may be nil).
func build(r *analysis.Report, x *Extra) *page {
	if x == nil {
		x = &Extra{}
	}
	worst := WorstFlows(r)
	groups := rollUp(r.Findings)
	rows, anchors, problemsLeft, cleanLeft := flowRows(r, worst, namedFlows(groups))
	link(groups, anchors)
	p := &page{
		Title: "rocetrace report: " + strings.Join(r.Capture.Files, ", "), Summary: summary(&r.Capture, r),
		PFC: r.PFC, Groups: groups, Findings: len(r.Findings), FewFindings: len(r.Findings) <= fewFindings,
		Columns: flowColumns, Rows: rows, Problems: len(worst), RowsLeft: problemsLeft, CleanLeft: cleanLeft,
		TotalFlow: len(r.Flows),
	}
	if l := r.CNPLatency; l.Count > 0 {
		p.Latency = fmt.Sprintf("%s: min %s, p50 %s, p99 %s, max %s", units.Plural(l.Count, "sample"),
			units.Duration(l.MinNs), units.Duration(l.P50Ns), units.Duration(l.P99Ns), units.Duration(l.MaxNs))
	}
	p.Points, p.Hops, p.HopsLeft = r.Points, worstHops(r.Hops), max(len(r.Hops)-MaxTableFlows, 0)
	p.Figures = figures(r, worst, x)
	return p
}

// figures returns the plots, in reading order: throughput, CE marks and
// CNPs, the latency distributions (ECN→CNP, then ACK/READ), DCQCN, PFC,
// events.
func figures(r *analysis.Report, worst []int, x *Extra) []figure {
	var out []figure
	add := func(c LineChart) { out = append(out, fig(c, c.Note)) }
	if x.Rates != nil {
		add(throughputChart(r, worst, x.Rates))
		add(ratesCongestionChart(r, x.Rates))
	} else {
		add(congestionChart(r))
	}
	add(cnpLatencyChart(r))
	for _, c := range latencyCharts(r, x.Latency) {
		add(c)
	}
	if c := dcqcnChart(r, worst); len(c.Series) > 0 {
		add(c)
	}
	pfc := pfcTimeline(r)
	out = append(out, fig(pfc, pfc.Note))
	add(eventsChart(r))
	return out
}

// worstHops returns at most MaxTableFlows hops: most lost first, then the
// highest p99 delay, then the Report's order.
func worstHops(hops []analysis.HopReport) []analysis.HopReport {
	h := append([]analysis.HopReport(nil), hops...)
	sort.SliceStable(h, func(a, b int) bool {
		if h[a].Lost != h[b].Lost {
			return h[a].Lost > h[b].Lost
		}
		return h[a].Delay.P99Ns > h[b].Delay.P99Ns
	})
	return h[:min(len(h), MaxTableFlows)]
}

// summary returns the capture summary as label/value rows.
func summary(c *analysis.CaptureSummary, r *analysis.Report) [][2]string {
	other := c.Packets - c.RoCEPackets - c.PFCFrames - c.PauseFrames
	rows := [][2]string{
		{"files", strings.Join(c.Files, ", ")},
		{"frames", fmt.Sprintf("%s: RoCE %s (CNP %s), PFC %s, PAUSE %s, other %s", units.Count(c.Packets),
			units.Count(c.RoCEPackets), units.Count(c.CNPPackets), units.Count(c.PFCFrames), units.Count(c.PauseFrames),
			units.Count(other))},
	}
	if c.Packets > 0 {
		rows = append(rows, [2]string{"time", utc(c.FirstTsNs) + " to " + utc(c.LastTsNs) + " (" +
			units.Duration(c.LastTsNs-c.FirstTsNs) + ")"})
	}
	ok := max(c.RoCEPackets-c.ICRCBad-c.ICRCUnchecked, 0)
	rows = append(rows,
		[2]string{"flows", units.Count(int64(len(r.Flows)))},
		[2]string{"truncated", units.Plural(c.Truncated, "frame") + " (caplen < wire length)"},
		[2]string{"malformed", units.Plural(c.Malformed, "frame")},
		[2]string{"ICRC", fmt.Sprintf("%s ok, %s bad, %s unchecked", units.Count(ok), units.Count(c.ICRCBad), units.Count(c.ICRCUnchecked))},
	)
	if c.KernelDrops > 0 {
		rows = append(rows, [2]string{"kernel drops", units.Plural(c.KernelDrops, "frame")})
	}
	if c.FlowsDropped > 0 {
		rows = append(rows, [2]string{"flows dropped", units.Plural(c.FlowsDropped, "frame") + " of flows beyond --max-flows"})
	}
	if c.Interrupted {
		rows = append(rows, [2]string{"interrupted", "yes: the report covers the frames read until the signal"})
	}
	return rows
}

func utc(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000000 UTC")
}

// prio prints a PFC priority, or "all (802.3x)".
func prio(p *int) string {
	if p == nil {
		return "all (802.3x)"
	}
	return strconv.Itoa(*p)
}

// tmpl is the page's template, parsed on first use: parsed when the
// package was initialized, it cost every command ~0.25 ms at start.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"dur": units.Duration, "count": units.Count, "prio": prio,
		"join": func(s []string) string { return strings.Join(s, ", ") }, "utc": utc, "add": func(a, b int) int { return a + b },
	}).Parse(pageTemplate))
})
