package flows

import "math"

// DefaultBinNs is the rate window used when Config.Bin is 0: 1 ms.
const DefaultBinNs int64 = 1_000_000

// RateWindow is one non-empty window [StartNs, StartNs+W) of a flow's
// counters (W = Config.Bin): what the flow's counters gained while its
// frames (and, for CNPsReceived, the CNPs that named it) fell in that
// window. A flow's windows add up to its totals.
type RateWindow struct {
	Flow         *Flow
	StartNs      int64 // k·W, ns since the Unix epoch
	Packets      int64
	Bytes        int64
	PayloadBytes int64
	ECNCE        int64
	CNPs         int64
	CNPsReceived int64
}

// rateCounts is a snapshot of the flow counters that rate windows split.
type rateCounts struct {
	packets, bytes, payload, ce, cnps, cnpsRecv int64
}

// rateState is the flow's current rate window (in flowCold: a flow that saw
// one frame has one window, implied by FirstTsNs and its totals). Its end,
// (k+1)·W saturated at MaxInt64, is flowCold.rateEndB (biased), next to
// the other fields every frame reads.
type rateState struct {
	start int64      // current window's start, k·W
	base  rateCounts // the flow's counters when the window opened
	peak  int64      // most wire bytes in a closed window
}

// bias maps int64 order onto uint64 order, MinInt64 to 0.
func bias(v int64) uint64 { return uint64(v) ^ 1<<63 }

// openRate makes [start, start+w) the current window.
func (c *flowCold) openRate(start, w int64) {
	end := int64(math.MaxInt64)
	if start <= math.MaxInt64-w {
		end = start + w
	}
	c.rate.start, c.rateEndB = start, bias(end)
}

func (f *Flow) rateCounts() rateCounts {
	return rateCounts{f.Packets, f.Bytes, f.PayloadBytes, f.ECNCE, f.CNPs, f.CNPsReceived}
}

// windowStart returns k·w for the k with k·w <= ts < (k+1)·w (floor
// division, also for negative ts).
func windowStart(ts, w int64) int64 {
	k := ts / w
	if ts%w < 0 {
		k--
	}
	return k * w
}

// Bin returns the rate window in ns (Config.Bin; DefaultBinNs for 0, which Config then returns).
func (t *Table) Bin() int64 { return t.cfg.Bin }

// rateTick moves f's current window to the one holding ts, closing the
// current one when ts is past its end. It is called before a frame at ts
// (or a CNP that names f) changes f's counters. A frame earlier than the
// current window (timestamps out of order in a file) counts in the current
// window. A flow's first frame needs nothing: its window is FirstTsNs's.
// observeFlow has the test written out (rateTick is too large to be
// inlined); rateMove is the rare rest.
func (t *Table) rateTick(f *Flow, ts int64) {
	if c := f.cold; c != nil && bias(ts) < c.rateEndB {
		return
	}
	t.rateMove(f, ts)
}

// rateMove is rateTick's slow path: the window state is made (the flow's
// second frame, or a CNP naming a flow of one frame), or ts is past the
// current window's end.
func (t *Table) rateMove(f *Flow, ts int64) {
	if f.Packets == 0 {
		return
	}
	c := f.more()
	r := &c.rate
	if c.rateEndB == 0 {
		c.openRate(windowStart(f.FirstTsNs, t.cfg.Bin), t.cfg.Bin)
	}
	if bias(ts) < c.rateEndB {
		return
	}
	start := nextWindowStart(c, ts, t.cfg.Bin)
	if start == r.start { // the last window of time, whose end saturated
		return
	}
	t.closeWindow(f, r)
	c.openRate(start, t.cfg.Bin)
	r.setBase(f)
}

// setBase makes f's counters now the window's base, field by field: a
// rateCounts built and copied whole costs store-forwarding stalls (wide
// loads of the narrow stores that built it), and this runs at every
// window's end of every flow.
func (r *rateState) setBase(f *Flow) {
	b := &r.base
	b.packets, b.bytes, b.payload = f.Packets, f.Bytes, f.PayloadBytes
	b.ce, b.cnps, b.cnpsRecv = f.ECNCE, f.CNPs, f.CNPsReceived
}

// nextWindowStart is windowStart(ts, w) for a ts at or past the end of
// c's current window: the next window's start, that window's end, when ts
// is before the end of the next one (a flow that sends at least once per
// window: most moves), without a division.
func nextWindowStart(c *flowCold, ts, w int64) int64 {
	end := int64(c.rateEndB ^ 1<<63)
	// end-start == w: the end did not saturate. ts >= end, so the
	// unsigned difference is exact.
	if end-c.rate.start == w && uint64(ts)-uint64(end) < uint64(w) {
		return end
	}
	return windowStart(ts, w)
}

// closeWindow ends f's current window, whose counters are f's now − r.base:
// it updates the peak and hands the window to Config.RateSink.
func (t *Table) closeWindow(f *Flow, r *rateState) {
	b := &r.base
	r.peak = max(r.peak, f.Bytes-b.bytes)
	if t.cfg.RateSink == nil {
		return
	}
	t.cfg.RateSink(RateWindow{
		Flow: f, StartNs: r.start,
		Packets: f.Packets - b.packets, Bytes: f.Bytes - b.bytes, PayloadBytes: f.PayloadBytes - b.payload,
		ECNCE: f.ECNCE - b.ce, CNPs: f.CNPs - b.cnps, CNPsReceived: f.CNPsReceived - b.cnpsRecv,
	})
}

// finishRates hands every flow's last window to Config.RateSink, in
// first-seen order of the flows.
func (t *Table) finishRates() {
	if t.cfg.RateSink == nil {
		return
	}
	for _, f := range t.order {
		if f.cold != nil && f.cold.rateEndB != 0 {
			t.closeWindow(f, &f.cold.rate)
			continue
		}
		c := f.rateCounts()
		t.cfg.RateSink(RateWindow{
			Flow: f, StartNs: windowStart(f.FirstTsNs, t.cfg.Bin),
			Packets: c.packets, Bytes: c.bytes, PayloadBytes: c.payload,
			ECNCE: c.ce, CNPs: c.cnps, CNPsReceived: c.cnpsRecv,
		})
	}
}

// PeakWindowBytes returns the most wire bytes of the flow in one window of
// Table.Bin (the current, still open, window included).
func (f *Flow) PeakWindowBytes() int64 {
	if f.cold == nil || f.cold.rateEndB == 0 {
		return f.Bytes
	}
	r := &f.cold.rate
	return max(r.peak, f.Bytes-r.base.bytes)
}
