package htmlreport

import (
	"slices"
	"strconv"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/internal/units"
)

// Bins counts timestamps into N equal bins over [T0, T0+N*Width): the
// series of the time plots, bounded whatever the capture's size.
type Bins struct {
	T0, Width int64
	Span      int64 // the bins end at T0+Span
	Counts    []int64
}

// DefaultBins is the number of bins of the time plots.
const DefaultBins = 200

// NewBins returns the bins covering span ns from t0 with about n bins:
// Width is ceil(span/n) rounded up to 1, 2 or 5 times a power of ten ns
// (bins of 5 µs, not 4.37 µs). The bins end at End = t0+span: the last one
// is partial (a step drawn narrower), unless that part is under a tenth of
// a bin, which then counts in the bin before (so that a sliver does not
// plot as a drop to zero).
func NewBins(t0, span int64, n int) *Bins {
	span = max(span, 0)
	w := niceCeil(max((span+int64(n)-1)/int64(n), 1))
	k := max(span/w, 1)
	if rem := span - k*w; rem*10 >= w {
		k++
	}
	return &Bins{T0: t0, Width: w, Span: span, Counts: make([]int64, k)}
}

// niceCeil returns the smallest 1, 2 or 5 times a power of ten that is >= v
// (v >= 1).
func niceCeil(v int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}

// Add counts ts in its bin; times outside the bins count in the first or
// the last one.
func (b *Bins) Add(ts int64) {
	i := (ts - b.T0) / b.Width
	i = min(max(i, 0), int64(len(b.Counts)-1))
	b.Counts[i]++
}

// Series returns the counts as a step series: X is the start of each bin
// in ns since T0, and a last point closes the last bin at Span.
func (b *Bins) Series(name string) Series {
	pts := make([]Point, 0, len(b.Counts)+1)
	for i, c := range b.Counts {
		pts = append(pts, Point{X: int64(i) * b.Width, Y: c})
	}
	if n := len(b.Counts); n > 0 {
		pts = append(pts, Point{X: max(b.Span, int64(n-1)*b.Width+1), Y: b.Counts[n-1]})
	}
	return Series{Name: name, Points: pts, Step: true}
}

// MaxCDFPoints caps the points of a CDF series.
const MaxCDFPoints = 256

// CDF returns the empirical CDF of samples as a step series (X the sample,
// Y the share of samples <= X in permille, floor), with at most
// MaxCDFPoints points: the k-th point of m is the ceil(k*n/m)-th smallest
// sample.
func CDF(name string, samples []int64) Series {
	n := len(samples)
	if n == 0 {
		return Series{Name: name, Step: true}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	m := min(n, MaxCDFPoints)
	pts := make([]Point, 0, m+1)
	pts = append(pts, Point{X: s[0], Y: 0})
	for k := 1; k <= m; k++ {
		rank := (k*n + m - 1) / m
		pts = append(pts, Point{X: s[rank-1], Y: int64(rank) * 1000 / int64(n)})
	}
	return Series{Name: name, Points: pts, Step: true}
}

// LatencyCDF is the distribution plot of one latency: the CDF of samples
// (ns) with p50 and p99 marked. The ECN→CNP plot uses it; the ACK and READ
// latency plots are meant to (the `latency` summaries and samples, once
// the Report has them): one call per distribution.
func LatencyCDF(title, what string, samples []int64, p50, p99 int64) LineChart {
	c := LineChart{
		Title: title,
		X:     Axis{Label: what, Unit: UnitDuration},
		Y:     Axis{Label: "share of samples ≤ x", Unit: UnitPermille},
	}
	if len(samples) == 0 {
		return c
	}
	c.Series = []Series{CDF(units.Plural(int64(len(samples)), "sample"), samples)}
	c.Marks = []Mark{{X: p50, Label: "p50 " + units.Duration(p50)}, {X: p99, Label: "p99 " + units.Duration(p99)}}
	return c
}

// ThroughputChart is the per-flow throughput plot: one step series per
// flow, X in ns since the first frame, Y in bit/s, binned by the caller
// (the rate windows of --bin). Not on the page yet: the Report has no rate
// windows on this branch. Pass at most MaxSeries flows (the worst, see
// WorstFlows); left is how many were not drawn.
func ThroughputChart(series []Series, left int) LineChart {
	c := LineChart{
		Title:  "Throughput of the worst flows",
		X:      Axis{Label: "time since the first frame", Unit: UnitTime},
		Y:      Axis{Label: "throughput", Unit: UnitBitsPerSecond},
		Series: series,
	}
	if left > 0 {
		c.Note = strconv.Itoa(left) + " more flows not drawn"
	}
	return c
}

// eventOrder is the order of the event kinds in the events plot; kinds
// not in it follow in order of first appearance.
var eventOrder = []string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause"}

// eventsChart bins every event by kind over the capture.
func eventsChart(r *analysis.Report) LineChart {
	t0, span := r.Capture.FirstTsNs, r.Capture.LastTsNs-r.Capture.FirstTsNs
	byKind := map[string]*Bins{}
	kinds := slices.Clone(eventOrder)
	var width int64
	for i := range r.Events {
		e := &r.Events[i]
		b := byKind[e.Kind]
		if b == nil {
			b = NewBins(t0, span, DefaultBins)
			byKind[e.Kind] = b
			if !slices.Contains(kinds, e.Kind) {
				kinds = append(kinds, e.Kind)
			}
		}
		width = b.Width
		b.Add(e.TsNs)
	}
	c := LineChart{
		Title: "Events over time",
		X:     Axis{Label: "time since the first frame", Unit: UnitTime},
		Y:     Axis{Label: "events per bin", Unit: UnitCount},
	}
	for _, k := range kinds {
		if b := byKind[k]; b != nil {
			c.Series = append(c.Series, b.Series(k))
		}
	}
	if len(c.Series) > MaxSeries {
		c.Note = strconv.Itoa(len(c.Series)-MaxSeries) + " more event kinds not drawn"
	}
	if width > 0 {
		c.Y.Label = "events per " + units.Duration(width) + " bin"
	}
	return c
}

// congestionChart bins the CNPs, and the CE marks the CNPs answer (the
// first CE mark of the target flow since its previous CNP: ts_ns −
// ecn_to_cnp_ns), over the capture. The Report has no per-window CE counts
// on this branch; with the rate windows the CE series becomes their
// ecn_ce.
func congestionChart(r *analysis.Report) LineChart {
	t0, span := r.Capture.FirstTsNs, r.Capture.LastTsNs-r.Capture.FirstTsNs
	cnps, marks := NewBins(t0, span, DefaultBins), NewBins(t0, span, DefaultBins)
	var n, m int
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind != "cnp" {
			continue
		}
		cnps.Add(e.TsNs)
		n++
		if e.ECNToCNPNs != nil {
			marks.Add(e.TsNs - *e.ECNToCNPNs)
			m++
		}
	}
	c := LineChart{
		Title: "CNPs and the CE marks they answer",
		X:     Axis{Label: "time since the first frame", Unit: UnitTime},
		Y:     Axis{Label: "per " + units.Duration(cnps.Width) + " bin", Unit: UnitCount},
	}
	if n > 0 {
		c.Series = append(c.Series, cnps.Series("CNPs"))
	}
	if m > 0 {
		c.Series = append(c.Series, marks.Series("first CE mark before a CNP"))
	}
	return c
}

// cnpLatencyChart is the ECN→CNP latency distribution with the Report's
// p50 and p99.
func cnpLatencyChart(r *analysis.Report) LineChart {
	var v []int64
	for i := range r.Events {
		if e := &r.Events[i]; e.Kind == "cnp" && e.ECNToCNPNs != nil {
			v = append(v, *e.ECNToCNPNs)
		}
	}
	return LatencyCDF("ECN → CNP latency (first CE mark to the CNP)", "ECN → CNP latency", v, r.CNPLatency.P50Ns, r.CNPLatency.P99Ns)
}
