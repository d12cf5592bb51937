package main

import (
	"sort"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/htmlreport"
)

// Bounds of what report --html keeps of the rate windows and latencies
// while the capture is read (htmlRates, htmlExtra).
const (
	// htmlMaxBins is the most coarse bins over the capture's span: the bin
	// width grows (×2, ×5, ×2, ...: 1, 2, 10, 20, 100 times --bin, each a
	// multiple of the one before) when the windows span more.
	htmlMaxBins = 250
	// htmlMaxFlows is how many flows get a throughput series, first come;
	// as many more whose first window shows a problem (loss, replays,
	// NAKs, CE marks, CNPs received) by its close.
	htmlMaxFlows = 20_000
	// htmlMaxPoints caps the stored points of all series: past it the bins
	// grow too.
	htmlMaxPoints = 1 << 20
	// htmlMaxLatency is the most latency values kept per kind for a CDF
	// (one in Stride beyond it; p50/p99 come from the Report).
	htmlMaxLatency = 1 << 20
)

// coarseBin is one bin of a flow's series: k·width, bytes.
type coarseBin struct{ k, n int64 }

// htmlRates is a flows.Config.RateSink for report --html: it re-bins every
// flow's rate windows into coarse bins (at most htmlMaxBins over the
// windows seen) for the throughput plot, and sums the CE marks and CNPs of
// every window per bin. Memory is bounded: htmlMaxFlows·2 series of at
// most htmlMaxBins bins, htmlMaxPoints bins in all.
type htmlRates struct {
	bin    int64 // --bin (the table's window)
	width  int64 // coarse bin width: bin × 1, 2, 10, 20, 100, ...
	step   int
	lo, hi int64 // coarse indexes seen, when seen
	seen   bool
	series map[*flows.Flow][]coarseBin
	points int
	ce     map[int64]int64
	cnps   map[int64]int64
	// only, when set, is the table whose flows count (--point: the
	// reference point's; the other points' windows are skipped).
	only      *flows.Table
	untracked int64
}

func newHTMLRates(bin int64) *htmlRates {
	return &htmlRates{bin: bin, width: bin, series: map[*flows.Flow][]coarseBin{}, ce: map[int64]int64{}, cnps: map[int64]int64{}}
}

// add takes one closed rate window (the RateSink).
func (h *htmlRates) add(w flows.RateWindow) {
	f := w.Flow
	if h.only != nil && h.only.Flow(f.Key) != f {
		return
	}
	k := floorDiv(w.StartNs, h.width)
	if !h.seen {
		h.lo, h.hi, h.seen = k, k, true
	}
	h.lo, h.hi = min(h.lo, k), max(h.hi, k)
	for h.hi-h.lo+1 > htmlMaxBins {
		h.coarsen()
		k = floorDiv(w.StartNs, h.width)
	}
	if w.ECNCE != 0 {
		h.ce[k] += w.ECNCE
	}
	if w.CNPs != 0 {
		h.cnps[k] += w.CNPs
	}
	s, ok := h.series[f]
	if !ok && !h.track(w) {
		return
	}
	if n := len(s); n > 0 && s[n-1].k == k {
		s[n-1].n += w.Bytes
		return
	}
	h.series[f] = append(s, coarseBin{k, w.Bytes})
	h.points++
	for h.points > htmlMaxPoints && h.width < 1<<61 {
		h.coarsen()
	}
}

// track reports whether the flow of w, not tracked yet, gets a series:
// only at its first window (a series never misses its start), while under
// htmlMaxFlows, or under twice that when the flow shows a problem.
func (h *htmlRates) track(w flows.RateWindow) bool {
	f := w.Flow
	if w.StartNs > f.FirstTsNs || floorDiv(f.FirstTsNs, h.bin)*h.bin != w.StartNs {
		return false // a later window of a flow refused at its first
	}
	n := len(h.series)
	problem := f.PSNGaps > 0 || f.Retransmitted > 0 || f.NAKs > 0 || f.RNRNAKs > 0 || f.ECNCE > 0 || f.CNPsReceived > 0
	if n < htmlMaxFlows || (problem && n < 2*htmlMaxFlows) {
		return true
	}
	h.untracked++
	return false
}

// coarsen grows the bin width one step of the ladder (×2, then ×5) and
// merges the bins.
func (h *htmlRates) coarsen() {
	h.step++
	m := int64(2)
	if h.step%2 == 0 {
		m = 5
	}
	h.width *= m
	h.lo, h.hi = floorDiv(h.lo, m), floorDiv(h.hi, m)
	h.points = 0
	for f, s := range h.series {
		out := s[:0]
		for _, b := range s {
			b.k = floorDiv(b.k, m)
			if n := len(out); n > 0 && out[n-1].k == b.k {
				out[n-1].n += b.n
				continue
			}
			out = append(out, b)
		}
		h.series[f] = out
		h.points += len(out)
	}
	h.ce, h.cnps = remap(h.ce, m), remap(h.cnps, m)
}

func remap(c map[int64]int64, m int64) map[int64]int64 {
	out := make(map[int64]int64, len(c))
	for k, v := range c {
		out[floorDiv(k, m)] += v
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// result returns the series for the page.
func (h *htmlRates) result() *htmlreport.Rates {
	r := &htmlreport.Rates{WidthNs: h.width, Bytes: make(map[string][]htmlreport.Bin, len(h.series)),
		CE: bins(h.ce, h.width), CNPs: bins(h.cnps, h.width), Untracked: h.untracked, MaxTracked: 2 * htmlMaxFlows}
	for f, s := range h.series {
		b := make([]htmlreport.Bin, len(s))
		for i, c := range s {
			b[i] = htmlreport.Bin{StartNs: c.k * h.width, N: c.n}
		}
		r.Bytes[f.ID()] = b
	}
	return r
}

func bins(c map[int64]int64, w int64) []htmlreport.Bin {
	out := make([]htmlreport.Bin, 0, len(c))
	for k, v := range c {
		out = append(out, htmlreport.Bin{StartNs: k * w, N: v})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].StartNs < out[b].StartNs })
	return out
}

// latencySets returns the latency values of t's flows per kind for the
// page, at most htmlMaxLatency per kind (one in Stride past it).
func latencySets(t *flows.Table, r *analysis.Report) []htmlreport.LatencySet {
	counts := [flows.NumLatencyKinds]int64{r.Latency.Ack.Count, r.Latency.Read.Count, r.Latency.ReadFirst.Count, r.Latency.Atomic.Count}
	var out []htmlreport.LatencySet
	for k := range flows.NumLatencyKinds {
		n := counts[k]
		if n == 0 {
			continue
		}
		stride := (n + htmlMaxLatency - 1) / htmlMaxLatency
		set := htmlreport.LatencySet{Kind: k.String(), Stride: stride, Values: make([]int64, 0, n/stride+1)}
		var i int64
		for _, f := range t.Flows() {
			for _, v := range f.Latencies(k) {
				if i%stride == 0 {
					set.Values = append(set.Values, v)
				}
				i++
			}
		}
		out = append(out, set)
	}
	return out
}
