package analysis

import "github.com/rocetrace/rocetrace/flows"

// valuesRange returns the smallest and largest of v's values (v not empty),
// reading them in their stored width.
func valuesRange(v flows.LatencyValues) (lo, hi int64) {
	if w := v.I64(); w != nil {
		lo, hi = w[0], w[0]
		for _, x := range w {
			lo, hi = min(lo, x), max(hi, x)
		}
		return lo, hi
	}
	u := v.U32()
	a, b := u[0], u[0]
	for _, x := range u {
		a, b = min(a, x), max(b, x)
	}
	return int64(a), int64(b)
}

// countRange adds to cnt[(x-lo)>>shift] one for each value x of v in
// [lo, hi] (selectRank's histogram pass).
func countRange(v flows.LatencyValues, lo, hi int64, shift uint, cnt []int) {
	if w := v.I64(); w != nil {
		for _, x := range w {
			if x >= lo && x <= hi {
				cnt[(uint64(x)-uint64(lo))>>shift]++
			}
		}
		return
	}
	for _, y := range v.U32() {
		if x := int64(y); x >= lo && x <= hi {
			cnt[(uint64(x)-uint64(lo))>>shift]++
		}
	}
}
