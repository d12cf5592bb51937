package htmlreport

import (
	"math"
	"strconv"
	"strings"
)

// Unit says what the int64 values of an axis are, and so how its ticks
// read. Every axis of every plot names its unit in its label.
type Unit int

// Units of an axis.
const (
	// UnitTime is nanoseconds since the first frame of the capture; ticks
	// read in ns, µs, ms or s, whichever fits the axis's span.
	UnitTime Unit = iota
	// UnitDuration is a duration in nanoseconds (a latency); ticks as
	// UnitTime.
	UnitDuration
	// UnitCount is a plain count (frames, events); ticks read in units,
	// thousands (k) or millions (M).
	UnitCount
	// UnitBitsPerSecond is a rate in bit/s; ticks in b/s, kb/s, Mb/s or
	// Gb/s.
	UnitBitsPerSecond
	// UnitBytes is a byte count; ticks in B, kB, MB or GB (powers of 1000).
	UnitBytes
	// UnitPermille is a share in thousandths (0..1000, a CDF); ticks in %.
	UnitPermille
)

// Axis is one axis of a plot: its label (without the unit, which the plot
// appends) and the unit of its values.
type Axis struct {
	Label string
	Unit  Unit
}

// scale is how an axis shows its values: value/div, with suffix as the
// unit in the label.
type scale struct {
	div    float64
	suffix string
}

// scaleFor returns the display scale of unit for values up to maxAbs.
func scaleFor(u Unit, maxAbs int64) scale {
	m := float64(maxAbs)
	pick := func(steps []float64, names []string) scale {
		i := 0
		for i+1 < len(steps) && m >= steps[i+1] {
			i++
		}
		return scale{steps[i], names[i]}
	}
	switch u {
	case UnitTime, UnitDuration:
		return pick([]float64{1, 1e3, 1e6, 1e9}, []string{"ns", "µs", "ms", "s"})
	case UnitBitsPerSecond:
		return pick([]float64{1, 1e3, 1e6, 1e9}, []string{"b/s", "kb/s", "Mb/s", "Gb/s"})
	case UnitBytes:
		return pick([]float64{1, 1e3, 1e6, 1e9}, []string{"B", "kB", "MB", "GB"})
	case UnitPermille:
		return scale{10, "%"}
	}
	return pick([]float64{1, 1e3, 1e6}, []string{"count", "thousands", "millions"})
}

// minStep is the smallest tick step of the scale: 1 when values show
// unscaled (whole numbers), else none.
func (s scale) minStep() float64 {
	if s.div == 1 {
		return 1
	}
	return 0
}

// label returns the axis label with its unit: "time since first frame (ms)".
func (a Axis) label(s scale) string {
	return a.Label + " (" + s.suffix + ")"
}

// ticks returns about n "nice" tick values (1, 2 or 5 times a power of ten,
// in display units) covering [lo, hi] (display units), and the step, which
// is at least minStep (1 for integers shown unscaled: no tick at 0.5 frames).
func ticks(lo, hi float64, n int, minStep float64) ([]float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if step >= raw {
			break
		}
	}
	step = max(step, minStep)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out, step
}

// tickLabel prints a tick value with as many decimals as the step needs.
func tickLabel(v, step float64) string {
	dec := 0
	for s := step; s < 1 && dec < 6; s *= 10 {
		dec++
	}
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// num formats a pixel coordinate with one decimal, without a trailing ".0".
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}
