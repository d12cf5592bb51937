package flows

import (
	"math"
	"slices"
)

// LatencyValues is a read-only view of one flow's latency values of one
// kind (ns, in the order they were taken). They are kept as uint32 while
// every value fits (up to ~4.29 s, the usual case: half the memory of
// int64), and as int64 from the first value that does not (the values taken
// before it are widened then, once). Exactly one of U32 and I64 is non-empty
// when there are values.
type LatencyValues struct {
	u32 []uint32
	i64 []int64
}

// Len returns the number of values.
func (v LatencyValues) Len() int { return len(v.u32) + len(v.i64) }

// At returns the i-th value.
func (v LatencyValues) At(i int) int64 {
	if v.i64 != nil {
		return v.i64[i]
	}
	return int64(v.u32[i])
}

// U32 returns the values when they are kept as uint32 (nil otherwise).
func (v LatencyValues) U32() []uint32 { return v.u32 }

// I64 returns the values when they are kept as int64 (nil otherwise).
func (v LatencyValues) I64() []int64 { return v.i64 }

// Int64s returns a new slice with the values.
func (v LatencyValues) Int64s() []int64 {
	if v.i64 != nil {
		return slices.Clone(v.i64)
	}
	if len(v.u32) == 0 {
		return nil
	}
	s := make([]int64, len(v.u32))
	for i, x := range v.u32 {
		s[i] = int64(x)
	}
	return s
}

// add appends x (>= 0), widening the values to int64 at the first x that
// does not fit in uint32.
func (v *LatencyValues) add(x int64) {
	if v.i64 == nil && uint64(x) <= math.MaxUint32 {
		v.u32 = append(v.u32, uint32(x))
		return
	}
	if v.i64 == nil {
		v.i64 = make([]int64, len(v.u32), len(v.u32)+1)
		for i, y := range v.u32 {
			v.i64[i] = int64(y)
		}
		v.u32 = nil
	}
	v.i64 = append(v.i64, x)
}

// clip returns v with its slices clipped, so that an append to either copy
// never writes into the other's memory.
func (v LatencyValues) clip() LatencyValues {
	return LatencyValues{u32: slices.Clip(v.u32), i64: slices.Clip(v.i64)}
}

// LatencyValues returns the latency values of the samples of kind k whose
// request flow is f (see Latencies), without copying them. They are owned
// by the table.
func (f *Flow) LatencyValues(k LatencyKind) LatencyValues {
	if f.cold == nil || f.cold.lat == nil || f.cold.lat.vals == nil || k >= NumLatencyKinds {
		return LatencyValues{}
	}
	return f.cold.lat.vals[k]
}

// LatencyValuesOf returns vals kept as a table keeps a flow's values (for
// tests and tools that build reports from values of their own).
func LatencyValuesOf(vals ...int64) LatencyValues {
	var v LatencyValues
	for _, x := range vals {
		v.add(x)
	}
	return v
}
