package flows

import "github.com/rocetrace/rocetrace/decode"

// replayStall records the stall figures of the replay episode that starts
// with a packet at ts: idle_ns (ts minus the flow's latest earlier request
// packet, whatever its PSN; addRecent has not recorded this packet yet) and
// since_original_ns (ts minus the first time the flow sent that PSN, when
// the request memory still holds it).
func (t *Table) replayStall(f *Flow, ts, first int64, known bool) {
	l := f.latReq().lat
	l.replayIdle = 0
	if f.req.nRecent > 0 {
		l.replayIdle = ts - f.recentAt(0).ts
	}
	l.replaySince, l.replayHasSince = 0, known
	if known {
		l.replaySince = ts - first
	}
}

// psnConflict reports whether request p (PSN psn, behind the expected PSN,
// not a READ Request, not in a replay) is numbered inside the range of the
// flow's latest request, a READ: [r+1, r+n-1], n from the READ's responses,
// else from the PMTU. With the PMTU unknown it never is (the psn_gap rules
// read it). When it is, the psn_conflict event is emitted.
func (t *Table) psnConflict(f *Flow, p *decode.Packet, psn PSN) bool {
	nr := f.nReads()
	if nr == 0 || f.req.nRecent == 0 {
		return false
	}
	e := f.read(nr - 1)
	if last := f.recentAt(0); e == nil || last.psn != e.psn || last.ts != e.ts || !e.hasLen {
		return false // the latest request is not that READ
	}
	m := t.PMTUFor(f)
	if m == 0 {
		return false
	}
	n := e.span
	if n == 0 {
		n = readSpanFor(e.dmaLen, int64(m))
	}
	sd := psn.Diff(e.psn)
	if sd < 1 || sd > n-1 {
		return false
	}
	t.emit(conflictEvent(p.TsNs, f, psn, uint8(p.BTH.Opcode), e.psn, int32(n),
		pmtusForSpan(e.dmaLen, sd), pmtusForSpan(e.dmaLen, n)))
	return true
}

// pmtusForSpan returns the mask of PMTUs m = 256<<i (bit i) with
// max(1, ceil(L/m)) == span.
func pmtusForSpan(dmaLen uint32, span int64) uint8 {
	var mask uint8
	for i := range 5 {
		if readSpanFor(dmaLen, int64(256)<<i) == span {
			mask |= 1 << i
		}
	}
	return mask
}
