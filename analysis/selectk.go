package analysis

import (
	"math/bits"
	"slices"

	"github.com/rocetrace/rocetrace/flows"
)

// Nearest-rank percentiles by selection. A report's flows each summarize
// their latency samples (count, min, p50, p99, max); sorting them all was
// most of the cost of a flow's row (~2,000 ack samples a flow at 10M
// frames). Selection finds a rank in linear expected time: a quickselect
// with three-way partitions (latencies repeat often) and a budget of
// rounds, past which it sorts what is left, so an unlucky input costs a
// sort, never a quadratic time. The values found are those a sort gives.

// selectSmall is the length under which selectKth sorts.
const selectSmall = 24

// selectKth reorders s so that s[k] is the value a sort would put there,
// s[:k] holding none greater and s[k+1:] none smaller (0 <= k < len(s)).
func selectKth[T int64 | uint32](s []T, k int) { selectWithin(s, k, 2*bits.Len(uint(len(s)))) }

// selectWithin is selectKth with at most budget partitions before it sorts.
func selectWithin[T int64 | uint32](s []T, k, budget int) {
	lo, hi := 0, len(s)
	for hi-lo > selectSmall {
		if budget == 0 {
			slices.Sort(s[lo:hi])
			return
		}
		budget--
		lt, gt := partition3(s[lo:hi])
		switch {
		case k < lo+lt:
			hi = lo + lt
		case k >= lo+gt:
			lo += gt
		default:
			return // s[k] equals the pivot, in its final place
		}
	}
	slices.Sort(s[lo:hi])
}

// partition3 partitions s around a pivot (the median of its first, middle
// and last values): s[:lt] < pivot, s[lt:gt] == pivot, s[gt:] > pivot.
func partition3[T int64 | uint32](s []T) (lt, gt int) {
	a, b, c := s[0], s[len(s)/2], s[len(s)-1]
	p := max(min(a, b), min(max(a, b), c))
	lt, i, gt := 0, 0, len(s)
	for i < gt {
		switch x := s[i]; {
		case x < p:
			s[lt], s[i] = x, s[lt]
			lt++
			i++
		case x > p:
			gt--
			s[i], s[gt] = s[gt], x
		default:
			i++
		}
	}
	return lt, gt
}

// summarizeOwned is summarize on a slice it reorders.
func summarizeOwned[T int64 | uint32](s []T) LatencySummary {
	n := len(s)
	if n == 0 {
		return LatencySummary{}
	}
	lo, hi := s[0], s[0]
	for _, x := range s[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	k50, k99 := nearestRank(50, n)-1, nearestRank(99, n)-1
	selectKth(s, k50)
	// s[k50:] holds the values of ranks k50 and up: rank k99 is its
	// (k99-k50)th smallest.
	selectKth(s[k50:], k99-k50)
	return LatencySummary{Count: int64(n), MinNs: int64(lo), MaxNs: int64(hi), P50Ns: int64(s[k50]), P99Ns: int64(s[k99])}
}

// latScratch is the buffers summarizeValues copies a flow's values into,
// reused from flow to flow.
type latScratch struct {
	u32 []uint32
	i64 []int64
}

// summarizeValues summarizes a flow's latency values (a copy: the table's
// stay in order), as 32-bit values unless one did not fit.
func summarizeValues(v flows.LatencyValues, sc *latScratch) LatencySummary {
	if u := v.U32(); u != nil {
		sc.u32 = append(sc.u32[:0], u...)
		return summarizeOwned(sc.u32)
	}
	sc.i64 = v.AppendInt64s(sc.i64[:0])
	return summarizeOwned(sc.i64)
}
