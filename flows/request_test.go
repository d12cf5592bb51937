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
	tests := []struct {
		name   string
		prefix []*decode.Packet
		last   *decode.Packet
	}{
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
			if got, want := requestStateOf(fa), requestStateOf(fb); !reflect.DeepEqual(got, want) {
				t.Errorf("observeRequest left\n%+v\ntrackRequest\n%+v", got, want)
			}
			if got, want := compact(a), compact(b); !slices.Equal(got, want) {
				t.Errorf("events %+v, want %+v", got, want)
			}
		})
	}
}
