package htmlreport

import (
	"sort"
	"strconv"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/internal/units"
)

// Bin is one time bin of a series of Rates: [StartNs, StartNs+WidthNs),
// StartNs in ns since the Unix epoch, N what fell in it.
type Bin struct{ StartNs, N int64 }

// Rates is the capture's rate windows (flows.RateWindow, --bin) re-binned
// by the caller into bins of WidthNs (a multiple of --bin, so that every
// window falls in one bin). Bins are in time order; empty ones may be left
// out.
type Rates struct {
	WidthNs int64
	// Bytes is the wire bytes per bin of the flows tracked, by flow id.
	Bytes map[string][]Bin
	// CE and CNPs are the CE-marked packets and the CNPs of every flow,
	// per bin (RateWindow.ECNCE and .CNPs summed).
	CE, CNPs []Bin
	// Untracked is how many flows have no Bytes series (beyond the
	// caller's cap of flows tracked).
	Untracked int64
	// MaxTracked is that cap (for the note).
	MaxTracked int
}

// LatencySet is the response-latency values (ns) of one kind ("ack",
// "read", "read_first", "atomic") for its distribution plot: every sample,
// or one in Stride when there were more than the caller keeps.
type LatencySet struct {
	Kind   string
	Values []int64
	Stride int64
}

// Extra is what the page draws that the Report does not carry: the rate
// windows and the latency values. A nil Rates leaves the throughput plot
// out (and the CE series falls back to the CNPs' first CE marks); no
// LatencySet leaves the ACK/READ latency plots out.
type Extra struct {
	Rates   *Rates
	Latency []LatencySet
}

// MaxDots caps the points of the DCQCN scatter.
const MaxDots = 400

// dense returns bins as a step series over the capture [t0, t1], one point
// per bin of width w (empty bins 0), X in ns since t0 (the first bin,
// which may start before t0, at 0), Y = scale(N, the part of the bin
// inside the capture in ns, at least 1). A first or last bin of which
// under a tenth lies inside the capture joins its neighbour (as NewBins
// does), so that a sliver does not plot as a spike or a drop.
func dense(name string, bins []Bin, w, t0, t1 int64, scale func(n, covered int64) int64) Series {
	lo, hi := floorDiv(t0, w), floorDiv(t1, w)
	type cell struct{ x, n, covered int64 }
	cells := make([]cell, 0, hi-lo+1)
	j := 0
	for k := lo; k <= hi; k++ {
		c := cell{x: max(k*w-t0, 0), covered: max(min(k*w+w, t1)-max(k*w, t0), 1)}
		for j < len(bins) && floorDiv(bins[j].StartNs, w) <= k {
			if floorDiv(bins[j].StartNs, w) == k {
				c.n += bins[j].N
			}
			j++
		}
		cells = append(cells, c)
	}
	if n := len(cells); n > 1 && cells[n-1].covered*10 < w {
		cells[n-2].n += cells[n-1].n
		cells[n-2].covered += cells[n-1].covered
		cells = cells[:n-1]
	}
	if len(cells) > 1 && cells[0].covered*10 < w {
		cells[1].n += cells[0].n
		cells[1].covered += cells[0].covered
		cells[1].x = 0
		cells = cells[1:]
	}
	pts := make([]Point, 0, len(cells)+1)
	for _, c := range cells {
		pts = append(pts, Point{X: c.x, Y: scale(c.n, c.covered)})
	}
	pts = append(pts, Point{X: max(t1-t0, pts[len(pts)-1].X+1), Y: pts[len(pts)-1].Y})
	return Series{Name: name, Points: pts, Step: true}
}

// floorDiv is a/b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// bitsPerSecond converts the bytes of a bin to bit/s over the part of the
// bin inside the capture (so that the first and last bins, and a bin
// longer than the capture, are not diluted by time nothing was captured
// in); float: bytes·8e9 overflows int64 for a few GB.
func bitsPerSecond(b, covered int64) int64 { return int64(float64(b) * 8e9 / float64(covered)) }

func identity(n, _ int64) int64 { return n }

// fewBins is the note of a time plot with few bins of width w over the
// capture: a smaller --bin draws finer.
func fewBins(w, t0, t1 int64) string {
	if n := floorDiv(t1, w) - floorDiv(t0, w) + 1; n < 20 {
		return units.Plural(n, "bin") + " of " + units.Duration(w) + " (--bin) over the capture: a smaller --bin draws finer"
	}
	return ""
}

// throughputChart draws the throughput of the worst flows that have a
// series (the busiest when no flow has a problem), at most MaxSeries.
func throughputChart(r *analysis.Report, worst []int, x *Rates) LineChart {
	t0, t1 := r.Capture.FirstTsNs, r.Capture.LastTsNs
	order, title := worst, "Throughput of the worst flows (wire bytes)"
	if len(order) == 0 {
		order, title = busiest(r), "Throughput of the busiest flows (wire bytes; no flow has a problem)"
	}
	var series []Series
	missing, left := 0, 0
	for _, i := range order {
		bins, ok := x.Bytes[r.Flows[i].ID]
		switch {
		case !ok:
			missing++
		case len(series) == MaxSeries:
			left++
		default:
			series = append(series, dense(r.Flows[i].ID, bins, x.WidthNs, t0, t1, bitsPerSecond))
		}
	}
	c := ThroughputChart(series, left)
	c.Title = title
	c.Y.Label = "throughput per " + units.Duration(x.WidthNs) + " bin"
	if len(series) > 0 {
		c.Note = join(c.Note, fewBins(x.WidthNs, t0, t1))
	}
	if missing > 0 {
		c.Note = join(c.Note, strconv.Itoa(missing)+" of these flows have no series: only "+
			strconv.Itoa(x.MaxTracked)+" flows are tracked for this plot ("+units.Count(x.Untracked)+" were not)")
	}
	return c
}

// busiest returns the flow indices by bytes, most first, at most MaxSeries.
func busiest(r *analysis.Report) []int {
	out := make([]int, len(r.Flows))
	for i := range out {
		out[i] = i
	}
	sort.SliceStable(out, func(a, b int) bool { return r.Flows[out[a]].Bytes > r.Flows[out[b]].Bytes })
	return out[:min(len(out), MaxSeries)]
}

// join joins two notes with "; " (either may be empty).
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// ratesCongestionChart is the CE-marked packets and CNPs per bin, from the
// rate windows.
func ratesCongestionChart(r *analysis.Report, x *Rates) LineChart {
	t0, t1 := r.Capture.FirstTsNs, r.Capture.LastTsNs
	c := LineChart{
		Title: "CE-marked packets and CNPs over time",
		X:     Axis{Label: "time since the first frame", Unit: UnitTime},
		Y:     Axis{Label: "per " + units.Duration(x.WidthNs) + " bin", Unit: UnitCount},
	}
	if len(x.CE) > 0 {
		c.Series = append(c.Series, dense("CE-marked packets", x.CE, x.WidthNs, t0, t1, identity))
	}
	if len(x.CNPs) > 0 {
		c.Series = append(c.Series, dense("CNPs", x.CNPs, x.WidthNs, t0, t1, identity))
	}
	if len(c.Series) > 0 {
		c.Note = fewBins(x.WidthNs, t0, t1)
	}
	return c
}

// latencyCharts is one CDF per latency kind with samples, with the
// Report's p50 and p99 (exact, over every sample).
func latencyCharts(r *analysis.Report, sets []LatencySet) []LineChart {
	sum := map[string]analysis.LatencySummary{"ack": r.Latency.Ack, "read": r.Latency.Read,
		"read_first": r.Latency.ReadFirst, "atomic": r.Latency.Atomic}
	what := map[string]string{"ack": "ACK latency (request packet to its ACK)",
		"read":       "READ latency (READ Request to the last response)",
		"read_first": "READ first-response latency (READ Request to the first response)",
		"atomic":     "atomic latency (request to its ATOMIC ACKNOWLEDGE)"}
	var out []LineChart
	for _, s := range sets {
		if len(s.Values) == 0 {
			continue
		}
		l := sum[s.Kind]
		name := what[s.Kind]
		if name == "" {
			name = s.Kind + " latency"
		}
		c := LatencyCDF(name, s.Kind+" latency", s.Values, l.P50Ns, l.P99Ns)
		c.Series[0].Name = units.Plural(l.Count, "sample")
		if s.Stride > 1 {
			c.Note = "CDF drawn from 1 in " + units.Count(s.Stride) + " samples; p50/p99 over all " + units.Count(l.Count)
		}
		c.Note = join(c.Note, analysis.LatencyCaveat)
		out = append(out, c)
	}
	return out
}

// dcqcnChart is the target's rate before and after each CNP (rate_before_bps,
// rate_after_bps) of the flows with cc_reaction_cnps, worst first, at most
// MaxSeries flows and MaxDots dots (evenly spread over each flow's CNPs),
// with the line after = before: dots below it are rate cuts.
func dcqcnChart(r *analysis.Report, worst []int) LineChart {
	c := LineChart{
		Title: "DCQCN: the target flow's rate before and after each CNP",
		X:     Axis{Label: "rate before the CNP", Unit: UnitBitsPerSecond},
		Y:     Axis{Label: "rate after the CNP", Unit: UnitBitsPerSecond},
	}
	rank := map[string]int{}
	for n, i := range worst {
		rank[r.Flows[i].ID] = n
	}
	var ids []string
	for i := range r.Flows {
		if r.Flows[i].CCReactionCNPs > 0 {
			ids = append(ids, r.Flows[i].ID)
		}
	}
	sortByRank(ids, rank)
	left := max(len(ids)-(MaxSeries-1), 0) // the last series is the diagonal
	ids = ids[:len(ids)-left]
	if len(ids) == 0 {
		return c
	}
	dots := map[string][]Point{}
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind == "cnp" && e.TargetFlow != nil && e.RateBeforeBps != nil && e.RateAfterBps != nil {
			dots[*e.TargetFlow] = append(dots[*e.TargetFlow], Point{X: *e.RateBeforeBps, Y: *e.RateAfterBps})
		}
	}
	per := MaxDots / len(ids)
	var top int64
	drawn, all := 0, 0
	for _, id := range ids {
		d := dots[id]
		all += len(d)
		d = spread(d, per)
		drawn += len(d)
		for _, p := range d {
			top = max(top, p.X, p.Y)
		}
		c.Series = append(c.Series, Series{Name: id, Points: d, Dots: true})
	}
	c.Series = append(c.Series, Series{Name: "after = before (no change)", Points: []Point{{0, 0}, {top, top}}})
	if left > 0 {
		c.Note = strconv.Itoa(left) + " more flows with CNP reactions not drawn"
	}
	if drawn < all {
		c.Note = join(c.Note, strconv.Itoa(drawn)+" of "+strconv.Itoa(all)+" CNPs drawn (evenly spread per flow)")
	}
	return c
}

// spread returns at most n of ps, evenly spaced (all when len(ps) <= n).
func spread(ps []Point, n int) []Point {
	if len(ps) <= n {
		return ps
	}
	out := make([]Point, 0, n)
	for k := range n {
		out = append(out, ps[k*len(ps)/n])
	}
	return out
}

// sortByRank orders ids by rank (the worst order), unranked last in their
// order.
func sortByRank(ids []string, rank map[string]int) {
	key := func(id string) int {
		if n, ok := rank[id]; ok {
			return n
		}
		return len(rank)
	}
	sort.SliceStable(ids, func(a, b int) bool { return key(ids[a]) < key(ids[b]) })
}
