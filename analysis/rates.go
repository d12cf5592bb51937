package analysis

import (
	"math"
	"math/bits"

	"github.com/rocetrace/rocetrace/flows"
)

// bitsPerSecond returns floor(bytes × 8 × 10^9 / ns) for bytes >= 0 and
// ns > 0, in 128-bit arithmetic (bytes × 8e9 overflows int64 above about
// 1.15 GB); a rate beyond MaxInt64 b/s saturates there.
func bitsPerSecond(bytes, ns int64) int64 {
	if bytes <= 0 || ns <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(bytes), 8_000_000_000)
	if hi >= uint64(ns) { // the quotient needs more than 64 bits
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(ns))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// setRates fills a flow's goodput_bps (null for a flow whose frames share
// one timestamp) and peak_bps (its busiest window of bin ns).
func setRates(fr *FlowReport, f *flows.Flow, bin int64) {
	if d := f.LastTsNs - f.FirstTsNs; d > 0 {
		fr.GoodputBps = ptr(bitsPerSecond(f.PayloadBytes, d))
	}
	fr.PeakBps = bitsPerSecond(f.PeakWindowBytes(), bin)
}
