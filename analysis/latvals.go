package analysis

import "github.com/rocetrace/rocetrace/flows"

// valuesRange returns the smallest and largest of v's values (v not empty),
// reading them in their stored width.
func valuesRange(v flows.LatencyValues) (lo, hi int64) {
	if u := v.U32(); u != nil {
		a, b := u[0], u[0]
		for _, x := range u {
			a, b = min(a, x), max(b, x)
		}
		return int64(a), int64(b)
	}
	lo, hi = v.At(0), v.At(0)
	for i := range v.Len() {
		x := v.At(i)
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// countRange adds to cnt[(x-lo)>>shift] one for each value x of v in
// [lo, hi] (selectRank's histogram pass).
func countRange(v flows.LatencyValues, lo, hi int64, shift uint, cnt []int) {
	if u := v.U32(); u != nil {
		for _, y := range u {
			if x := int64(y); x >= lo && x <= hi {
				cnt[(uint64(x)-uint64(lo))>>shift]++
			}
		}
		return
	}
	for i := range v.Len() {
		if x := v.At(i); x >= lo && x <= hi {
			cnt[(uint64(x)-uint64(lo))>>shift]++
		}
	}
}
