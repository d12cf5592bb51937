package flows

// CNPRateWindow is the number of request packets of a CNP's target flow that
// its rate_before_bps and rate_after_bps are computed over (contract
// "Congestion-control reaction (DCQCN)").
const CNPRateWindow = 16

// Rate window state. The before-window is read from the flow's recent
// request ring (recentRing >= CNPRateWindow entries, made at the flow's second
// request: flows that never send two requests never pay for it), whose
// entries carry the frame's wire length in what was their padding. The
// after-window of the latest CNP that targets a flow is pending in the
// flow's cold state (ccPending, ccCount) until CNPRateWindow requests have
// followed it; a newer CNP to the same flow cuts it (rate_after_bps stays
// null). No state is made per packet.

// windowRate returns the rate of f's last CNPRateWindow request packets:
// floor((wire bytes of packets 2..16) * 8 * 10^9 / (t16 - t1)), and false
// when f has fewer than CNPRateWindow requests or t16 <= t1 (no time passed,
// or timestamps going backwards: no rate can be told).
func (f *Flow) windowRate() (int64, bool) {
	if f.req.nRecent < CNPRateWindow || f.cold == nil || f.cold.recent == nil {
		return 0, false
	}
	newest := f.recentAt(0)
	oldest := f.recentAt(CNPRateWindow - 1)
	dt := newest.ts - oldest.ts
	if dt <= 0 {
		return 0, false
	}
	var bytes int64
	for i := uint32(0); i < CNPRateWindow-1; i++ { // packets 16 down to 2
		bytes += int64(f.recentAt(i).wire)
	}
	return rateBps(bytes, dt), true
}

// rateBps returns floor(bytes * 8 * 10^9 / dtNs) for dtNs > 0. bytes is at
// most 15 frames of at most 2^18 bytes, so the product stays far below 2^63.
func rateBps(bytes, dtNs int64) int64 {
	return bytes * 8 * 1_000_000_000 / dtNs
}

// cnpRates sets the before-rate of the cnp event e to its target and opens
// the target's after-window, cutting the previous CNP's window if it is
// still open. idx is the index the event will have in t.events.
func (t *Table) cnpRates(e *Event, idx int) {
	target := e.Target
	if r, ok := target.windowRate(); ok {
		e.setRateBefore(r)
	}
	c := target.more()
	c.ccPending = idx + 1 // a pending window of an earlier CNP is cut here
	c.ccCount = 0
}

// countAfterCNP counts a request packet of f, whose cold state c has a
// pending after-window (c.ccPending != 0: observeRequest tests it), and
// fills the window of the latest CNP that targets f once it is whole.
func (t *Table) countAfterCNP(f *Flow, c *flowCold) {
	c.ccCount++
	if c.ccCount < CNPRateWindow {
		return
	}
	e := t.events.at(c.ccPending - 1)
	c.ccPending = 0
	if r, ok := f.windowRate(); ok {
		e.setRateAfter(r)
	}
}
