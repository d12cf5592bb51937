package flows

import (
	"math"
	"slices"
	"testing"
)

// LatencyValues keeps values as uint32 until one exceeds 2^32-1 ns
// (~4.29 s), then as int64, widening the earlier ones; the values and their
// order never change.
func TestLatencyValues(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		wide bool // kept as int64
	}{
		{"empty", nil, false},
		{"small", []int64{0, 1, 1500, 3}, false},
		{"max uint32 still fits", []int64{7, math.MaxUint32}, false},
		{"one past widens the earlier", []int64{7, 9, math.MaxUint32 + 1, 2}, true},
		{"first wide", []int64{1 << 40}, true},
		// with room left in the slice when the wide value comes, and after it
		{"wide with room to spare", []int64{7, 9, 11, math.MaxUint32 + 1, 2, 3, 4, 1 << 40, 5}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := LatencyValuesOf(tt.in...)
			if v.Len() != len(tt.in) {
				t.Fatalf("Len %d, want %d", v.Len(), len(tt.in))
			}
			if got := v.Int64s(); !slices.Equal(got, tt.in) {
				t.Errorf("values %v, want %v", got, tt.in)
			}
			for i, x := range tt.in {
				if v.At(i) != x {
					t.Errorf("At(%d) = %d, want %d", i, v.At(i), x)
				}
			}
			if v.Wide() != tt.wide || (len(tt.in) > 0 && (v.U32() == nil) != tt.wide) {
				t.Errorf("wide %v (u32 %v), want %v", v.Wide(), v.U32(), tt.wide)
			}
		})
		// In a table: a clone's values do not share room with the
		// original's (an append to one leaves the other as it was).
		t.Run(tt.name+"/clone", func(t *testing.T) {
			l := &latState{}
			for _, x := range tt.in {
				l.addValue(LatencyAck, x)
			}
			c := l.clone()
			c.addValue(LatencyAck, 5)
			if got := ackValues(l); !slices.Equal(got, tt.in) {
				t.Errorf("after append to a clone: %v, want %v", got, tt.in)
			}
			if cg, want := ackValues(c), append(slices.Clone(tt.in), 5); !slices.Equal(cg, want) {
				t.Errorf("clone %v, want %v", cg, want)
			}
		})
	}
}

// ackValues returns l's ack values as int64.
func ackValues(l *latState) []int64 {
	f := &Flow{cold: &flowCold{lat: l}}
	return f.LatencyValues(LatencyAck).Int64s()
}
