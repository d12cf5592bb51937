package flows

import "github.com/rocetrace/rocetrace/decode"

// pmtuCandidates are the five IB path MTUs, largest first (smallest span first).
var pmtuCandidates = [...]int64{4096, 2048, 1024, 512, 256}

// readSpanFor returns max(1, ceil(L/pmtu)).
func readSpanFor(dmaLen uint32, pmtu int64) int64 {
	n := (int64(dmaLen) + pmtu - 1) / pmtu
	return max(n, 1)
}

// readSpan returns the number of PSNs READ request e uses, or 0 when it is
// not known yet: from the PMTU when known, else from a READ Response
// Last/Only seen for it.
func (t *Table) readSpan(f *Flow, e *readReq) int64 {
	if !e.hasLen {
		return e.span
	}
	if m := t.PMTUFor(f); m > 0 {
		return readSpanFor(e.dmaLen, int64(m))
	}
	return e.span
}

// readSpanBound returns an upper bound of the READ's span, used to decide
// whether a response PSN belongs to it: the span when known, else the span at
// the smallest PMTU (256), else (no DMA length) 2^23.
func (t *Table) readSpanBound(f *Flow, e *readReq) int64 {
	if n := t.readSpan(f, e); n > 0 {
		return n
	}
	if e.hasLen {
		return readSpanFor(e.dmaLen, 256)
	}
	return psnHalf
}

// findRead returns the sequence number of f's most recent READ request whose
// PSN range contains psn.
func (t *Table) findRead(f *Flow, psn PSN) (uint64, *readReq, bool) {
	n := f.nReads()
	for i := uint64(0); i < readRing && i < n; i++ {
		seq := n - 1 - i
		e := &f.cold.rare.reads[seq%readRing]
		d := psn.Diff(e.psn)
		if d < 0 {
			continue
		}
		if d < t.readSpanBound(f, e) {
			return seq, e, true
		}
		return 0, nil, false // past the newest READ that starts at or before psn
	}
	return 0, nil, false
}

// resolvePending settles the span of the last READ request, whose span was
// unknown when it was seen, now that the next request (PSN psn) arrived.
//
// Rule: the PMTU if known by now, else the span a READ Response Last/Only
// revealed, else the observed advance d = psn - readPSN read as the most
// favourable PMTU: the largest of max(1, ceil(L/m)), m in {4096 ... 256},
// that is <= d (the smallest if none is), so that an unknown PMTU never
// invents a gap. A READ whose RETH was cut off takes max(1, d).
func (t *Table) resolvePending(f *Flow, psn PSN) {
	r := &f.req
	r.pending = false
	e := f.read(f.cold.rare.pendingSeq)
	if e == nil {
		return
	}
	n := t.readSpan(f, e)
	if n == 0 {
		d := psn.Diff(e.psn)
		if !e.hasLen {
			n = max(1, d)
		} else {
			n = readSpanFor(e.dmaLen, pmtuCandidates[0])
			for _, m := range pmtuCandidates[1:] {
				if c := readSpanFor(e.dmaLen, m); c <= d {
					n = c
				}
			}
		}
	}
	r.next = e.psn.Add(n)
}

// observeRequest follows a flow's request PSNs (trackRequest), then
// records the request in the recent ring and counts it in the pending
// after-window of the latest CNP that targets f (countAfterCNP). Calls in
// a row, not a defer: this runs for most frames of a capture.
//
// The usual request, the expected PSN of a flow with no replay open and
// no READ span pending, not a READ Request, takes trackRequest's path
// without its tests: it is remembered and moves the expected PSN on.
func (t *Table) observeRequest(f *Flow, p *decode.Packet) {
	psn := PSN(p.BTH.PSN & psnMask)
	r := &f.req
	if psn == r.next && r.init && !r.pending && !r.inReplay &&
		p.BTH.Opcode.Operation() != decode.OpReadRequest {
		if c := f.cold; c != nil && c.lat != nil && r.nRecent != 0 && !f.Key.UD &&
			(len(c.recent) == recentRing || uint32(len(c.recent)) > r.nRecent) &&
			(c.mem.head-c.mem.tail < uint64(len(c.mem.ring)) || c.roomInMem()) {
			// The usual request of a flow with a request memory (with
			// room, once its answered entries are dropped) and a recent
			// ring (not to grow): remember's and addRecent's stores,
			// without their tests and calls.
			ts := p.TsNs
			l := &c.mem
			e := l.at(l.head)
			e.psnFlags, e.dmaLen, e.ts = uint32(psn)|uint32(memKinds[p.BTH.Opcode])<<24, 0, ts
			l.head++
			r.next = psn.Add(1)
			c.recent[r.nRecent&uint32(len(c.recent)-1)] = recentReq{psn: psn, wire: uint32(p.FrameLen), ts: ts}
			if r.nRecent++; r.nRecent == 0 { // wrapped: as addRecent
				r.nRecent = recentRing
			}
			if c.ccPending != 0 {
				t.countAfterCNP(f, c)
			}
			return
		}
		t.remember(f, p, psn)
		r.next = psn.Add(1)
	} else {
		t.trackRequest(f, p, psn)
	}
	f.addRecent(psn, p.TsNs, p.FrameLen)
	if c := f.cold; c != nil && c.ccPending != 0 {
		t.countAfterCNP(f, c)
	}
}

// trackRequest follows a flow's request PSNs: gaps, replays, READ spans.
func (t *Table) trackRequest(f *Flow, p *decode.Packet, psn PSN) {
	r := &f.req
	op := p.BTH.Opcode
	isRead := op.Operation() == decode.OpReadRequest &&
		(op.Transport() == decode.TransportRC || op.Transport() == decode.TransportXRC)

	if r.pending {
		t.resolvePending(f, psn)
	}
	if !r.init {
		r.init = true
		f.reqFirst = psn
		r.next = psn // the first packet sets the expectation
	}

	d := psn.Diff(r.next)
	if d < 0 && !r.inReplay && !isRead && t.psnConflict(f, p, psn) {
		r.next = psn.Add(1)
		t.remember(f, p, psn)
		return
	}
	if r.inReplay {
		if d < 0 {
			c := f.cold.rare
			since, known := t.markReplayed(f, psn)
			if psn.Diff(c.replayCursor) < 0 {
				// Went back again: a new replay episode.
				t.endReplay(f)
				t.startReplay(f, psn, p.TsNs)
				t.replayStall(f, p.TsNs, since, known)
			} else {
				c.replayPackets++
			}
			f.Retransmitted++
			c.replayCursor = psn.Add(1)
			if isRead {
				t.recordReplayedRead(f, p, psn)
			}
			return
		}
		t.endReplay(f) // passed the high-water mark
	}
	if d < 0 {
		since, known := t.markReplayed(f, psn)
		t.startReplay(f, psn, p.TsNs)
		t.replayStall(f, p.TsNs, since, known)
		f.Retransmitted++
		f.cold.rare.replayCursor = psn.Add(1)
		if isRead {
			t.recordReplayedRead(f, p, psn)
		}
		return
	}
	if d > 0 {
		f.PSNGaps++
		f.MissingPSNs += d
		t.emit(gapEvent(p.TsNs, f, r.next, psn, d))
	}
	t.remember(f, p, psn)
	if !isRead {
		r.next = psn.Add(1)
		return
	}
	seq := f.addRead(psn, p.RETH.DMALen, p.Ext&decode.ExtRETH != 0, p.TsNs)
	if n := t.readSpan(f, f.read(seq)); n > 0 {
		r.next = psn.Add(n)
		return
	}
	r.pending = true
	f.cold.rare.pendingSeq = seq
	r.next = psn.Add(1) // placeholder until resolvePending
}

// recordReplayedRead records a re-issued READ request unless an earlier READ
// in the ring already covers its PSN (a re-read of the missing tail uses the
// original request's range).
func (t *Table) recordReplayedRead(f *Flow, p *decode.Packet, psn PSN) {
	if _, _, ok := t.findRead(f, psn); ok {
		return
	}
	f.addRead(psn, p.RETH.DMALen, p.Ext&decode.ExtRETH != 0, p.TsNs)
}

func (t *Table) startReplay(f *Flow, psn PSN, ts int64) {
	t.markFrame(EventRetransmission)
	f.req.inReplay = true
	c := f.rare()
	c.replayPSN = psn
	c.replayTs = ts
	c.replayPackets = 1
}

func (t *Table) endReplay(f *Flow) {
	f.req.inReplay = false
	c := f.cold.rare
	e := retransmissionEvent(c.replayTs, f, c.replayPSN, c.replayPackets)
	if l := f.cold.lat; l != nil {
		e.setIdle(l.replayIdle, l.replaySince, l.replayHasSince)
	}
	t.emit(e)
}

// observeReadResponse pairs and checks READ Response PSNs against the READ
// requests of the peer flow.
func (t *Table) observeReadResponse(f *Flow, p *decode.Packet) {
	psn := PSN(p.BTH.PSN & psnMask)
	if !f.paired() && !f.Key.UD { // tryPair's first test written out
		t.tryPair(f, psn, p.TsNs, matchRead)
	}
	q := f.Peer()
	if q == nil {
		return
	}
	t.latencyReadResponse(f, p, psn)
	seq, e, ok := t.findRead(q, psn)
	if !ok {
		return
	}
	switch p.BTH.Opcode.Operation() {
	case decode.OpReadResponseLast, decode.OpReadResponseOnly:
		if e.span == 0 {
			e.span = psn.Diff(e.psn) + 1
		}
	}
	s := &f.rare().resp
	if !s.init {
		s.init = true
		s.cur = seq
		s.next = psn.Add(1)
		return
	}
	switch {
	case seq == s.cur:
		if d := psn.Diff(s.next); d > 0 {
			t.responseGap(f, s.next, psn, d, p.TsNs)
		}
	case seq > s.cur:
		t.responseJump(f, q, seq, e, psn, p.TsNs)
	}
	// seq < s.cur, or a PSN behind the expected one: the responder replays
	// an earlier READ; follow it.
	s.cur = seq
	s.next = psn.Add(1)
}

// responseJump handles a READ response for a later READ than the one being
// answered: the rest of the current READ, any READ in between and the
// start of this one up to psn are missing.
func (t *Table) responseJump(f, q *Flow, seq uint64, e *readReq, psn PSN, ts int64) {
	s := &f.cold.rare.resp
	r := q
	expected := s.next
	var missing int64
	if cur := r.read(s.cur); cur != nil {
		if n := t.readSpan(q, cur); n > 0 {
			if rem := cur.psn.Add(n).Diff(s.next); rem > 0 {
				missing += rem
			} else {
				expected = e.psn // current READ complete: expect the next READ's first
				if nx := r.read(s.cur + 1); nx != nil {
					expected = nx.psn
				}
			}
		}
	}
	for k := s.cur + 1; k < seq; k++ {
		if mid := r.read(k); mid != nil {
			if n := t.readSpan(q, mid); n > 0 {
				missing += n
			} else {
				missing++ // at least its first response
			}
		}
	}
	missing += psn.Diff(e.psn)
	if missing > 0 {
		t.responseGap(f, expected, psn, missing, ts)
	}
}

func (t *Table) responseGap(f *Flow, expected, psn PSN, missing int64, ts int64) {
	f.PSNGaps++
	f.MissingPSNs += missing
	t.emit(gapEvent(ts, f, expected, psn, missing))
}
