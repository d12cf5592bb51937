package flows

import "math"

// LatencyValues is a read-only view of one flow's latency values of one
// kind (ns, in the order they were taken). The table keeps them as uint32
// while every value fits (up to ~4.29 s, the usual case: half the memory of
// int64), and as pairs of uint32 (low, high half of the int64) from the
// first value that does not (the values taken before it are widened then,
// once). A flow's four kinds cost 96 bytes of slice headers in its latency
// state (latState.vals) and a bit each, as the int64 slices did.
type LatencyValues struct {
	s    []uint32
	wide bool // s holds (low, high) pairs
}

// Len returns the number of values.
func (v LatencyValues) Len() int {
	if v.wide {
		return len(v.s) / 2
	}
	return len(v.s)
}

// At returns the i-th value.
func (v LatencyValues) At(i int) int64 {
	if v.wide {
		return int64(uint64(v.s[2*i]) | uint64(v.s[2*i+1])<<32)
	}
	return int64(v.s[i])
}

// Wide reports whether a value did not fit in uint32 (U32 is nil then: read
// the values with At).
func (v LatencyValues) Wide() bool { return v.wide }

// U32 returns the values when none exceeds 2^32-1 (nil when Wide).
func (v LatencyValues) U32() []uint32 {
	if v.wide {
		return nil
	}
	return v.s
}

// Int64s returns a new slice with the values (nil when there are none).
func (v LatencyValues) Int64s() []int64 {
	if v.Len() == 0 {
		return nil
	}
	return v.AppendInt64s(make([]int64, 0, v.Len()))
}

// AppendInt64s appends the values to dst (a buffer reused from flow to flow
// allocates nothing).
func (v LatencyValues) AppendInt64s(dst []int64) []int64 {
	if !v.wide {
		for _, x := range v.s {
			dst = append(dst, int64(x))
		}
		return dst
	}
	for i := range v.Len() {
		dst = append(dst, v.At(i))
	}
	return dst
}

// appendValue appends x (>= 0) to values s (pairs when wide), widening s at
// the first x that does not fit in uint32.
func appendValue(s []uint32, wide bool, x int64) ([]uint32, bool) {
	if !wide && uint64(x) <= math.MaxUint32 {
		return append(s, uint32(x)), false
	}
	if !wide {
		w := make([]uint32, 2*len(s), 2*len(s)+2)
		for i, y := range s {
			w[2*i] = y // high half 0
		}
		s = w
	}
	return append(s, uint32(uint64(x)), uint32(uint64(x)>>32)), true
}

// addValue records latency value x of kind k.
func (l *latState) addValue(k LatencyKind, x int64) {
	if k >= NumLatencyKinds {
		return // never: the callers pass the kinds' constants (no bounds checks below)
	}
	// The usual value: narrow values with room for one more.
	if s := l.vals[k]; l.wide&(1<<k) == 0 && uint64(x) <= math.MaxUint32 && len(s) < cap(s) {
		s = s[:len(s)+1]
		s[len(s)-1] = uint32(x)
		l.vals[k] = s
		return
	}
	wide := l.wide&(1<<k) != 0
	l.vals[k], wide = appendValue(l.vals[k], wide, x)
	if wide {
		l.wide |= 1 << k
	}
}

// LatencyValues returns the latency values of the samples of kind k whose
// request flow is f (see Latencies), without copying them. They are owned
// by the table.
func (f *Flow) LatencyValues(k LatencyKind) LatencyValues {
	if f.cold == nil || f.cold.lat == nil || k >= NumLatencyKinds {
		return LatencyValues{}
	}
	l := f.cold.lat
	return LatencyValues{s: l.vals[k], wide: l.wide&(1<<k) != 0}
}

// LatencyValuesOf returns vals kept as a table keeps a flow's values (for
// tests and tools that build reports from values of their own).
func LatencyValuesOf(vals ...int64) LatencyValues {
	var v LatencyValues
	for _, x := range vals {
		v.s, v.wide = appendValue(v.s, v.wide, x)
	}
	return v
}
