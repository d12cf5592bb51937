package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
)

// summarize returns count, min, nearest-rank p50 and p99, and max of v,
// which it leaves as it is (summarizeOwned on a copy).
func summarize(v []int64) LatencySummary { return summarizeOwned(slices.Clone(v)) }

// TestSelectKth: every rank of inputs of many shapes (sorted, reversed,
// all equal, few distinct values, random, organ pipe, wide values) is the
// value a sort puts there, with the partition property around it; also
// when the budget runs out at once or after one partition (the sorting
// fallback).
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(i, n int) int64{
		"sorted":    func(i, n int) int64 { return int64(i) },
		"reversed":  func(i, n int) int64 { return int64(n - i) },
		"equal":     func(i, n int) int64 { return 2000 },
		"two":       func(i, n int) int64 { return int64(i%2) * 1000 },
		"few":       func(i, n int) int64 { return int64(rng.IntN(5)) * 100 },
		"random":    func(i, n int) int64 { return rng.Int64N(1 << 40) },
		"organ":     func(i, n int) int64 { return int64(min(i, n-i)) },
		"wide":      func(i, n int) int64 { return int64(rng.Uint64() >> 1) },
		"sawtooth":  func(i, n int) int64 { return int64(i % 7) },
		"one-large": func(i, n int) int64 { return map[bool]int64{true: 1 << 62, false: 5}[i == n/2] },
	}
	for name, gen := range shapes {
		for _, n := range []int{1, 2, 3, 24, 25, 26, 100, 257, 1000} {
			v := make([]int64, n)
			for i := range v {
				v[i] = gen(i, n)
			}
			sorted := slices.Sorted(slices.Values(v))
			for _, budget := range []int{-1, 0, 1} {
				for k := 0; k < n; k += max(1, n/37) {
					s := slices.Clone(v)
					if budget < 0 {
						selectKth(s, k)
					} else {
						selectWithin(s, k, budget)
					}
					if s[k] != sorted[k] {
						t.Fatalf("%s n=%d budget %d: s[%d] = %d, want %d", name, n, budget, k, s[k], sorted[k])
					}
					for i := range s {
						if (i < k && s[i] > s[k]) || (i > k && s[i] < s[k]) {
							t.Fatalf("%s n=%d budget %d k=%d: s[%d] = %d on the wrong side of %d", name, n, budget, k, i, s[i], s[k])
						}
					}
					if !slices.Equal(slices.Sorted(slices.Values(s)), sorted) {
						t.Fatalf("%s n=%d: values lost or duplicated", name, n)
					}
				}
			}
		}
	}
}

// TestSummarizeMatchesSort: summarize by selection gives what the sort did,
// on random samples of every length up to 300 and a few long ones.
func TestSummarizeMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range append(slices.Collect(func(yield func(int) bool) {
		for n := 1; n <= 300; n++ {
			if !yield(n) {
				return
			}
		}
	}), 1000, 4097, 20000) {
		v := make([]int64, n)
		for i := range v {
			v[i] = 1000 + rng.Int64N(int64(1+n/3)) // repeats
		}
		s := slices.Sorted(slices.Values(v))
		want := LatencySummary{Count: int64(n), MinNs: s[0], MaxNs: s[n-1],
			P50Ns: s[nearestRank(50, n)-1], P99Ns: s[nearestRank(99, n)-1]}
		if got := summarize(v); got != want {
			t.Fatalf("n=%d: %+v, want %+v", n, got, want)
		}
		// A flow's values, kept as 32 bits, and wide (one past 2^32-1).
		var sc latScratch
		if got := summarizeValues(flows.LatencyValuesOf(v...), &sc); got != want {
			t.Fatalf("n=%d, 32-bit values: %+v, want %+v", n, got, want)
		}
		wide := append(slices.Clone(v), 1<<33)
		w := slices.Sorted(slices.Values(wide))
		m := len(w)
		wantWide := LatencySummary{Count: int64(m), MinNs: w[0], MaxNs: w[m-1],
			P50Ns: w[nearestRank(50, m)-1], P99Ns: w[nearestRank(99, m)-1]}
		vals := flows.LatencyValuesOf(wide...)
		if !vals.Wide() {
			t.Fatal("values not wide")
		}
		if got := summarizeValues(vals, &sc); got != wantWide {
			t.Fatalf("n=%d, wide values: %+v, want %+v", n, got, wantWide)
		}
	}
}

// BenchmarkSummarizeValues: one flow's 2,000 ack latencies (the 10M-frame
// capture's flows hold about that many).
func BenchmarkSummarizeValues(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]int64, 2000)
	for i := range v {
		v[i] = 1500 + rng.Int64N(3000)
	}
	vals := flows.LatencyValuesOf(v...)
	var sc latScratch
	for b.Loop() {
		summarizeValues(vals, &sc)
	}
}
