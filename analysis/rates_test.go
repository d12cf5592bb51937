package analysis

import (
	"math"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
)

func TestBitsPerSecond(t *testing.T) {
	tests := []struct {
		bytes, ns, want int64
	}{
		{1058, 300_000, 28_213_333},               // 28 213 333.3: floored
		{6000, 3_000_007, 15_999_962},             // 15 999 962.67
		{0, 1_000, 0},                             // nothing sent
		{1, 0, 0},                                 // no duration: callers print null
		{1_000_000_000_000, 1_000, 8e18},          // bytes × 8e9 = 8e21 overflows int64; the quotient does not
		{2_000_000_000_000, 1_000, math.MaxInt64}, // 1.6e19 b/s: saturated
		{math.MaxInt64, 1, math.MaxInt64},         // the 128-bit quotient overflows 64 bits: saturated
	}
	for _, tc := range tests {
		if got := bitsPerSecond(tc.bytes, tc.ns); got != tc.want {
			t.Errorf("bitsPerSecond(%d, %d) = %d, want %d", tc.bytes, tc.ns, got, tc.want)
		}
	}
}

// TestFlowRates: a flow of one frame has no goodput (duration 0) and its
// peak from its one window; the default bin is 1 ms.
func TestFlowRates(t *testing.T) {
	tests := []struct {
		name    string
		cfg     flows.Config
		goodput *int64
		peak    int64
	}{
		// 130 wire bytes: 130 × 8e9 / 1e6 = 1 040 000 b/s.
		{"one frame, default bin", flows.Config{}, nil, 1_040_000},
		// 130 × 8e9 / 7e3 = 148 571 428.57: floored.
		{"one frame, 7 µs bin", flows.Config{Bin: 7_000}, nil, 148_571_428},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, tc.cfg, Options{}, wr(5, 0x11, 0))
			f := r.Flows[0]
			if f.GoodputBps != nil || f.PeakBps != tc.peak {
				t.Errorf("goodput %v, peak %d; want null, %d", f.GoodputBps, f.PeakBps, tc.peak)
			}
		})
	}
	// Two frames 2 µs apart, 64 payload bytes each: 128 × 8e9 / 2000 =
	// 512 000 000 b/s; with a 1 µs bin they are in windows t0/1000 and
	// t0/1000 + 2 (t0 is a multiple of 1 µs): peak 130 × 8e9 / 1e3 = 1.04e9.
	r := build(t, flows.Config{Bin: 1_000}, Options{}, wr(0, 0x11, 0), wr(2_000, 0x11, 1))
	if f := r.Flows[0]; f.GoodputBps == nil || *f.GoodputBps != 512_000_000 || f.PeakBps != 1_040_000_000 {
		t.Errorf("goodput %v, peak %d; want 512000000, 1040000000", f.GoodputBps, f.PeakBps)
	}
}
