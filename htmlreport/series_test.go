package htmlreport

import (
	"reflect"
	"testing"
)

func TestNewBins(t *testing.T) {
	cases := []struct {
		name  string
		span  int64
		n     int
		width int64
		bins  int
	}{
		// ceil(1000/200) = 5, already nice; 1000/5 = 200 bins, no remainder.
		{"exact", 1000, 200, 5, 200},
		// ceil(100,000,100/200) = 500,001 -> 1,000,000 (1 ms); floor(100.0001) = 100 bins;
		// the remainder 100 ns is under a tenth of a bin: it counts in bin 99.
		{"sliver folded", 100_000_100, 200, 1_000_000, 100},
		// ceil(1050/10) = 105 -> 200; floor(1050/200) = 5, remainder 50 >= 200/10: a 6th, partial bin.
		{"partial bin", 1050, 10, 200, 6},
		// An empty span: one bin of 1 ns.
		{"zero span", 0, 200, 1, 1},
		// ceil(3/200) = 1: 3 bins of 1 ns.
		{"tiny span", 3, 200, 1, 3},
	}
	for _, c := range cases {
		b := NewBins(1000, c.span, c.n)
		if b.Width != c.width || len(b.Counts) != c.bins {
			t.Errorf("%s: width %d, %d bins; want %d, %d", c.name, b.Width, len(b.Counts), c.width, c.bins)
		}
	}
}

func TestBinsAddSeries(t *testing.T) {
	// t0 = 1000, span 1050, about 10 bins: width 200, 6 bins (the last covers 1000..1050).
	b := NewBins(1000, 1050, 10)
	for _, ts := range []int64{999, 1000, 1199, 1200, 2049, 2050, 5000} {
		b.Add(ts)
	}
	// 999 (before t0) and 1000, 1199 -> bin 0; 1200 -> bin 1; 2049 = t0+1049 -> bin 5;
	// 2050 (the end) and 5000 (after it) -> the last bin, 5.
	if want := []int64{3, 1, 0, 0, 0, 3}; !reflect.DeepEqual(b.Counts, want) {
		t.Fatalf("counts %v, want %v", b.Counts, want)
	}
	s := b.Series("x")
	// Bin starts 0, 200, ..., 1000, then the close at the span, 1050, holding the last count.
	want := []Point{{0, 3}, {200, 1}, {400, 0}, {600, 0}, {800, 0}, {1000, 3}, {1050, 3}}
	if !s.Step || !reflect.DeepEqual(s.Points, want) {
		t.Errorf("series %+v, want step %v", s, want)
	}
}

func TestCDF(t *testing.T) {
	// Five samples: each is a fifth (200 permille) more; a first point at the smallest, 0.
	got := CDF("x", []int64{5, 1, 3, 2, 4}).Points
	want := []Point{{1, 0}, {1, 200}, {2, 400}, {3, 600}, {4, 800}, {5, 1000}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CDF of 5: %v, want %v", got, want)
	}
	// 512 samples 1..512 give 256 points: the k-th is the ceil(k*512/256) = 2k-th smallest,
	// the value 2k, at floor(2k*1000/512) permille: k=1 -> (2, 3), k=128 -> (256, 500), k=256 -> (512, 1000).
	v := make([]int64, 512)
	for i := range v {
		v[i] = int64(512 - i)
	}
	pts := CDF("x", v).Points
	if len(pts) != MaxCDFPoints+1 || pts[1] != (Point{2, 3}) || pts[128] != (Point{256, 500}) || pts[256] != (Point{512, 1000}) {
		t.Errorf("CDF of 512: %d points, %v %v %v", len(pts), pts[1], pts[128], pts[256])
	}
	if p := CDF("x", nil).Points; len(p) != 0 {
		t.Errorf("CDF of nothing: %v", p)
	}
}

func TestTicks(t *testing.T) {
	cases := []struct {
		lo, hi  float64
		n       int
		minStep float64
		want    []float64
		step    float64
	}{
		// (100-0)/8 = 12.5: 10 is too small, 20 is the step.
		{0, 100, 8, 0, []float64{0, 20, 40, 60, 80, 100}, 20},
		// 2/5 = 0.4 -> 0.5, but counts step by at least 1.
		{0, 2, 5, 1, []float64{0, 1, 2}, 1},
		// 0.7/5 = 0.14 -> 0.2; ticks start at the first multiple >= 0.2 (0.2 itself).
		{0.2, 0.9, 5, 0, []float64{0.2, 0.4, 0.6, 0.8}, 0.2},
	}
	for _, c := range cases {
		got, step := ticks(c.lo, c.hi, c.n, c.minStep)
		if step != c.step || len(got) != len(c.want) {
			t.Errorf("ticks(%v, %v): %v step %v, want %v step %v", c.lo, c.hi, got, step, c.want, c.step)
			continue
		}
		for i := range got {
			if d := got[i] - c.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("ticks(%v, %v): %v, want %v", c.lo, c.hi, got, c.want)
				break
			}
		}
	}
	if l := tickLabel(0.4000000001, 0.2); l != "0.4" {
		t.Errorf("tickLabel = %q", l)
	}
}

func TestScaleFor(t *testing.T) {
	cases := []struct {
		u      Unit
		max    int64
		suffix string
	}{
		{UnitTime, 999, "ns"},
		{UnitTime, 100_000_100, "ms"}, // 100 ms: >= 1e6, < 1e9
		{UnitDuration, 40_000, "µs"},
		{UnitBitsPerSecond, 25_000_000_000, "Gb/s"},
		{UnitBytes, 1_500, "kB"},
		{UnitCount, 60, "count"},
		{UnitCount, 2_000_000, "millions"},
		{UnitPermille, 1000, "%"},
	}
	for _, c := range cases {
		if s := scaleFor(c.u, c.max); s.suffix != c.suffix {
			t.Errorf("scaleFor(%d, %d) = %q, want %q", c.u, c.max, s.suffix, c.suffix)
		}
	}
}

func TestMergeSpans(t *testing.T) {
	in := []Span{{10, 20}, {0, 5}, {22, 30}, {40, 50}, {41, 45}}
	// Sorted: {0,5} {10,20} {22,30} {40,50} {41,45}. Gap 2: 10 > 5+2 stays apart; 22 <= 20+2
	// merges into {10,30}; 40 > 32 apart; {41,45} lies inside {40,50}.
	want := []Span{{0, 5}, {10, 30}, {40, 50}}
	if got := MergeSpans(in, 2); !reflect.DeepEqual(got, want) {
		t.Errorf("MergeSpans = %v, want %v", got, want)
	}
	if in[0] != (Span{10, 20}) {
		t.Error("MergeSpans changed its input")
	}
}

func TestLanePath(t *testing.T) {
	// 10 pixel columns over 0..1000: each column is 100 units.
	f := frame{x0: 0, x1: 10, xlo: 0, xhi: 1000}
	spans := []Span{
		{0, 100},   // column 0 paused throughout: shade ceil(4*100/100) = 4
		{150, 160}, // column 1 paused 10 of 100: ceil(0.4) = 1
		{250, 350}, // columns 2 and 3 paused 50 each: ceil(2) = 2, one rectangle two wide
		{900, 900}, // an instant at column 9: shade 1
	}
	got := lanePath(f, spans, 4)
	want := [pauseShades + 1]string{
		"",
		"M1 4h1v14h-1zM9 4h1v14h-1z",
		"M2 4h2v14h-2z",
		"",
		"M0 4h1v14h-1z",
	}
	if got != want {
		t.Errorf("lanePath = %q, want %q", got, want)
	}
}
