package analysis

import "github.com/rocetrace/rocetrace/decode"

// Counter counts a capture's frames by the contract's Counting rules. The
// zero value is ready; Observe does not allocate.
//
// Observe counts a frame that is not malformed in one cell of byClass, by
// its kind and ICRC status, and Summary adds the cells up into the
// contract's counters: one increment a frame instead of the tests and
// increments of each counter (the consumer stage of the pipeline runs it
// for every frame).
type Counter struct {
	packets, first, last int64 // frames, and the first and last time (packets > 0)
	truncated, malformed int64

	// byClass[kind<<2 | status]: frames not malformed with Packet.Kind
	// kind (< counterKinds) and Packet.ICRCStatus status (< 4).
	byClass [counterKinds << 2]int64
	// odd counts the frames whose kind or status is outside byClass (no
	// decoder makes them), by the rules Summary applies to byClass.
	odd CaptureSummary
}

// counterKinds bounds the decode.Kind values byClass counts (the decoder's
// five, rounded up to a power of two).
const counterKinds = 8

// Observe counts one frame (a whole record).
func (c *Counter) Observe(p *decode.Packet) {
	ts := p.TsNs
	if c.packets == 0 {
		c.first, c.last = ts, ts
	}
	c.first, c.last = min(c.first, ts), max(c.last, ts)
	c.packets++
	if p.Truncated || p.CapLen < p.Len {
		c.truncated++
	}
	if p.Malformed {
		// Malformed frames count in malformed only: not as RoCE, PFC or
		// PAUSE, nor in the ICRC counts.
		c.malformed++
		return
	}
	if k, st := uint(p.Kind), uint(p.ICRCStatus); k < counterKinds && st < 4 {
		c.byClass[k<<2|st]++
		return
	}
	c.observeOdd(p)
}

// observeOdd counts a frame that is not malformed, whose kind or ICRC
// status byClass has no cell for, in c.odd (out of line: Observe stays
// small).
//
//go:noinline
func (c *Counter) observeOdd(p *decode.Packet) {
	countKind(&c.odd, p.Kind, p.ICRCStatus, 1)
}

// countKind adds n frames that are not malformed, of kind k and ICRC
// status st, to s's counters.
func countKind(s *CaptureSummary, k decode.Kind, st decode.ICRCStatus, n int64) {
	switch k {
	case decode.KindRoCE:
		s.RoCEPackets += n
	case decode.KindCNP:
		s.RoCEPackets += n
		s.CNPPackets += n
	case decode.KindPFC:
		s.PFCFrames += n
	case decode.KindPause:
		s.PauseFrames += n
	case decode.KindOther:
	}
	switch st {
	case decode.ICRCBad:
		s.ICRCBad += n
	case decode.ICRCUnchecked:
		if k == decode.KindRoCE || k == decode.KindCNP {
			s.ICRCUnchecked += n
		}
	case decode.ICRCOK, decode.ICRCMalformed:
	}
}

// Summary returns the counts so far, with the given file names.
func (c *Counter) Summary(files []string) CaptureSummary {
	s := c.odd
	s.Packets, s.Truncated, s.Malformed = c.packets, c.truncated, c.malformed
	if c.packets > 0 {
		s.FirstTsNs, s.LastTsNs = c.first, c.last
	}
	for i, n := range c.byClass {
		if n != 0 {
			countKind(&s, decode.Kind(i>>2), decode.ICRCStatus(i&3), n)
		}
	}
	s.Files = append([]string{}, files...)
	return s
}
