package points

import (
	"cmp"
	"slices"
)

// maxDistinctDelays bounds the distinct values a hop's delay histogram
// keeps; beyond it the values are rounded down to multiples of 2^shift.
const maxDistinctDelays = 1 << 16

// delayHist counts delays by value: exact nearest-rank percentiles while
// the values fit, memory bounded by the distinct values, not the count.
type delayHist struct {
	n, min, max int64
	shift       uint
	counts      map[int64]int64
}

func (h *delayHist) add(d int64) {
	if h.n == 0 {
		h.min, h.max = d, d
		h.counts = make(map[int64]int64)
	}
	h.n++
	h.min, h.max = min(h.min, d), max(h.max, d)
	h.counts[h.round(d)]++
	for len(h.counts) > maxDistinctDelays {
		h.shift++
		old := h.counts
		h.counts = make(map[int64]int64, len(old)/2)
		for v, c := range old {
			h.counts[h.round(v)] += c
		}
	}
}

// round rounds d down to a multiple of 2^shift (floor, negative values too).
func (h *delayHist) round(d int64) int64 { return d >> h.shift << h.shift }

// summary returns count, min, nearest-rank p50 and p99 and max, of the
// delays or of their negations (neg).
func (h *delayHist) summary(neg bool) Delay {
	if h.n == 0 {
		return Delay{}
	}
	type vc struct{ v, c int64 }
	vs := make([]vc, 0, len(h.counts))
	for v, c := range h.counts {
		if neg {
			v = -v
		}
		vs = append(vs, vc{v, c})
	}
	slices.SortFunc(vs, func(a, b vc) int { return cmp.Compare(a.v, b.v) })
	rank := func(pct int64) int64 {
		r := max(1, (pct*h.n+99)/100) // ceil(pct/100 * n)
		var seen int64
		for _, x := range vs {
			seen += x.c
			if seen >= r {
				return x.v
			}
		}
		return vs[len(vs)-1].v
	}
	d := Delay{Count: h.n, MinNs: h.min, MaxNs: h.max, P50Ns: rank(50), P99Ns: rank(99)}
	if neg {
		d.MinNs, d.MaxNs = -h.max, -h.min
	}
	return d
}
