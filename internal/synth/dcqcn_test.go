package synth

import "testing"

// TestDCQCN follows the model by hand at 25 Gb/s: CNPs at 0, 2 µs and 5 µs
// (reaction delay 1 µs, monitor period 4 µs, time reset 300 µs).
func TestDCQCN(t *testing.T) {
	d := NewDCQCN(25_000_000_000)
	d.CNP(0)     // cut due at 1000
	d.CNP(2_000) // due at 3000: 2 µs after the cut at 1000 < 4 µs, dropped
	d.CNP(5_000) // due at 6000: 5 µs after it, applied
	steps := []struct {
		ts   int64
		want int64
	}{
		{999, 25_000_000_000},
		{1_000, 12_500_000_000}, // RT = 25G, RC = 25G * 50 %
		{3_000, 12_500_000_000}, // the dropped cut
		{6_000, 6_250_000_000},  // RT = 12.5G, RC = 6.25G
		{305_999, 6_250_000_000},
		{306_000, 9_375_000_000},    // fast recovery 1: (12.5 + 6.25) / 2
		{606_000, 10_937_500_000},   // 2: (12.5 + 9.375) / 2
		{906_000, 11_718_750_000},   // 3
		{1_206_000, 12_109_375_000}, // 4
		{1_506_000, 12_304_687_500}, // 5
		// additive increase: RT = 12.5G + 5M = 12.505G; RC = (12.505G + 12.3046875G) / 2
		{1_806_000, 12_404_843_750},
	}
	for _, s := range steps {
		if got := d.RateAt(s.ts); got != s.want {
			t.Errorf("rate at %d ns = %d, want %d", s.ts, got, s.want)
		}
	}
}

func TestDCQCNGapAndIgnore(t *testing.T) {
	d := NewDCQCN(25_000_000_000)
	// 1098 bytes = 8784 bits: 8784e9 / 25e9 = 351.36 -> 352 ns.
	if g := d.Gap(0, 1098); g != 352 {
		t.Errorf("gap at 25G = %d, want 352", g)
	}
	d.CNP(0)
	// 12.5G after the cut at 1 µs: 702.72 -> 703 ns.
	if g := d.Gap(1_000, 1098); g != 703 {
		t.Errorf("gap at 12.5G = %d, want 703", g)
	}
	ig := NewDCQCN(25_000_000_000)
	ig.Ignore = true
	ig.CNP(0)
	if r := ig.RateAt(10_000); r != 25_000_000_000 {
		t.Errorf("ignoring sender at %d, want 25G", r)
	}
	// Hyper increase brings RC back to the line rate and recovery stops.
	h := NewDCQCN(100_000_000_000)
	h.CNP(0)
	if r := h.RateAt(1_000 + 40*300_000); r != 100_000_000_000 {
		t.Errorf("after 40 steps: %d, want 100G", r)
	}
}
