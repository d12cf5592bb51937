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
			if wide := v.I64() != nil; wide != tt.wide || (len(tt.in) > 0 && (v.U32() != nil) == tt.wide) {
				t.Errorf("wide %v (u32 %v), want %v", wide, v.U32(), tt.wide)
			}
			// A clipped copy does not share room with the original: an
			// append to the copy leaves the original as it was.
			c := v.clip()
			c.add(5)
			if got := v.Int64s(); !slices.Equal(got, tt.in) {
				t.Errorf("after append to a clip: %v, want %v", got, tt.in)
			}
		})
	}
}
