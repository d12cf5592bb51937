package flows

import (
	"reflect"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// requestState is what following a flow's request PSNs changes.
type requestState struct {
	Req                                 reqState
	First                               PSN
	FirstTs                             int64
	Gaps, Missing, Retransmitted        int64
	Mem                                 []reqMem
	Head, Tail                          uint64
	Recent                              []recentReq
	ReplayPSN, ReplayCursor             PSN
	ReplayTs, ReplayPackets, ReplayIdle int64
	Reads                               uint64
	CCPending                           int // the pending after-window of a CNP (ccrate.go)
	CCCount                             uint8
	RatesAfter                          []int64 // of the table's CNP events
}

func requestStateOf(f *Flow) requestState {
	s := requestState{Req: f.req, First: f.reqFirst, FirstTs: f.reqTs0,
		Gaps: f.PSNGaps, Missing: f.MissingPSNs, Retransmitted: f.Retransmitted}
	if c := f.cold; c != nil {
		m := &c.mem
		for q := m.tail; q < m.head; q++ {
			s.Mem = append(s.Mem, *m.at(q))
		}
		s.Head, s.Tail, s.Recent = m.head, m.tail, slices.Clone(c.recent)
		s.CCPending, s.CCCount = c.ccPending, c.ccCount
		if c.lat != nil {
			s.ReplayIdle = c.lat.replayIdle
		}
		if r := c.rare; r != nil {
			s.ReplayPSN, s.ReplayCursor, s.ReplayTs, s.ReplayPackets = r.replayPSN, r.replayCursor, r.replayTs, r.replayPackets
			s.Reads = r.nReads
		}
	}
	return s
}

// observeRequest's in-order path (the expected PSN of a flow with no
// replay open and no READ span pending, not a READ Request: remember it,
// move the expected PSN on) must leave the flow and the events as
// trackRequest's tests do, and every other request must take those tests:
// each case runs the last request through observeRequest on one table and
// through trackRequest on a clone, and compares.
func TestRequestInOrderPath(t *testing.T) {
	const qp = 0x11
	seq := func(ts int64, psns ...uint32) []*decode.Packet {
		var ps []*decode.Packet
		for i, psn := range psns {
			ps = append(ps, wr(ts+int64(i)*10, qp, psn))
		}
		return ps
	}
	// acked is the requests of PSNs from..to-1 (at 10 ns a PSN), every
	// third one ACKed: the pair is made, and the request memory drops its
	// answered entries instead of filling up.
	acked := func(from, to int) []*decode.Packet {
		var ps []*decode.Packet
		for i := from; i < to; i++ {
			ts := int64(i) * 10
			ps = append(ps, wr(ts, qp, uint32(i)))
			if i%3 == 2 {
				ps = append(ps, ack(ts+5, qp, uint32(i)))
			}
		}
		return ps
	}
	tests := []struct {
		name   string
		prefix []*decode.Packet
		last   *decode.Packet
	}{
		{"the recent ring grows", seq(0, 0, 1, 2, 3), wr(100, qp, 4)},
		{"paired, ACKed: the memory not full, the recent ring whole", acked(0, 41), wr(1000, qp, 41)},
		{"paired, ACKed: the memory full", acked(0, 40), wr(1000, qp, 40)},
		{"after a CNP: its after-window counts the request", append(acked(0, 41), cnp(405, qp)), wr(1000, qp, 41)},
		{"the last of a CNP's after-window", append(append(acked(0, 41), cnp(405, qp)), acked(41, 56)...), wr(1000, qp, 56)},
		{"in order", seq(0, 0, 1, 2), wr(100, qp, 3)},
		{"first request", nil, wr(100, qp, 7)},
		{"first request, PSN 0 (the zero expected PSN)", nil, wr(100, qp, 0)},
		{"second request", seq(0, 7), wr(100, qp, 8)},
		{"ring full", seq(0, 0, 1, 2, 3, 4, 5, 6, 7, 8), wr(100, qp, 9)},
		{"gap", seq(0, 0, 1), wr(100, qp, 5)},
		{"behind: a replay starts", seq(0, 0, 1, 2, 3, 4, 5), wr(100, qp, 2)},
		{"in a replay", seq(0, 0, 1, 2, 3, 4, 5, 2), wr(100, qp, 3)},
		{"a replay passes the high-water mark", seq(0, 0, 1, 2, 3, 4, 5, 2, 3, 4, 5), wr(200, qp, 6)},
		{"READ Request in order", seq(0, 0, 1), read(100, qp, 2, 4096)},
		{"after a READ whose span is pending", append(seq(0, 0), read(10, qp, 1, 4096)), wr(100, qp, 2)},
		{"PSN wrap", seq(0, PSNModulus-2, PSNModulus-1), wr(100, qp, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewTable(Config{})
			k := Key{Src: ipA, Dst: ipB, DstQPN: qp}
			a.newFlow(k)
			for _, p := range tc.prefix {
				a.Observe(p)
			}
			b := a.Clone()
			fa, fb := a.Flow(k), b.Flow(k)
			p := tc.last
			a.observeRequest(fa, p)
			psn := PSN(p.BTH.PSN & psnMask)
			b.trackRequest(fb, p, psn)
			fb.addRecent(psn, p.TsNs, p.FrameLen)
			if c := fb.cold; c != nil && c.ccPending != 0 {
				b.countAfterCNP(fb, c)
			}
			// The prefix ran through observeRequest on both tables: its
			// memory must still be whole (no more entries than slots, in
			// ascending PSN order).
			if c := fa.cold; c != nil {
				m := &c.mem
				if m.head-m.tail > uint64(len(m.ring)) {
					t.Fatalf("request memory holds %d entries in %d slots", m.head-m.tail, len(m.ring))
				}
				for q := m.tail + 1; q < m.head; q++ {
					if m.at(q).psn().Diff(m.at(q-1).psn()) <= 0 {
						t.Errorf("request memory: entry %d PSN %d after %d", q, m.at(q).psn(), m.at(q-1).psn())
					}
				}
			}
			sa, sb := requestStateOf(fa), requestStateOf(fb)
			for i := range a.NumEvents() {
				if e := a.Event(i); e.Kind == EventCNP {
					sa.RatesAfter = append(sa.RatesAfter, e.RateAfterBps())
				}
			}
			for i := range b.NumEvents() {
				if e := b.Event(i); e.Kind == EventCNP {
					sb.RatesAfter = append(sb.RatesAfter, e.RateAfterBps())
				}
			}
			if got, want := sa, sb; !reflect.DeepEqual(got, want) {
				t.Errorf("observeRequest left\n%+v\ntrackRequest\n%+v", got, want)
			}
			if got, want := compact(a), compact(b); !slices.Equal(got, want) {
				t.Errorf("events %+v, want %+v", got, want)
			}
		})
	}
}

// roomInMem must drop the entries done's loop over the ring drops, and
// tell whether that made room: every kind, with and without memDone,
// before, at and after ackedTo, with no ACK yet, and across the PSN wrap.
func TestRoomInMem(t *testing.T) {
	kinds := []uint8{memOther, memSendWrite, memRead, memAtomic, memAny}
	for _, acked := range []PSN{0, 5, PSNModulus - 2} {
		for _, hasAcked := range []bool{false, true} {
			for _, k := range kinds {
				for _, flags := range []uint8{0, memDone, memReplayed | memFirstDone} {
					for _, off := range []int64{-3, -1, 0, 1, 2} {
						for _, tested := range []uint64{0, 3, 7} { // the entry of that kind: first, inside, last
							c := &flowCold{ackedTo: acked, hasAcked: hasAcked}
							l := &c.mem
							l.ring = make([]reqMem, 8)
							l.tail, l.head = 6, 14 // full, and wraps the ring
							for s := l.tail; s < l.head; s++ {
								// the others: SEND/WRITEs, answered before it, not after
								e := reqMem{psnFlags: uint32(acked.Add(off + int64(s-l.tail) - int64(tested)))}
								e.set(memSendWrite)
								if s == l.tail+tested {
									e = reqMem{psnFlags: uint32(acked.Add(off))}
									e.set(k | flags)
								}
								*l.at(s) = e
							}
							want := l.tail
							for want < l.head && c.done(l.at(want)) {
								want++
							}
							room := c.roomInMem()
							if l.tail != want || room != (want > 6) {
								t.Errorf("ackedTo %d (%v), kind %d flags %#x at %d, PSN ackedTo%+d: tail %d room %v, done's loop %d",
									acked, hasAcked, k, flags, tested, off, l.tail, room, want)
							}
						}
					}
				}
			}
		}
	}
}
