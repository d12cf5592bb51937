package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// TestFrameEvents: the events mask of each frame, worked out by hand.
//
//	1 WRITE PSN 100 to QP 0x11      sets the expectation (101)
//	2 WRITE PSN 102                 psn_gap (expected 101, 1 missing)
//	3 RNR NAK B->A                  rnr_nak
//	4 NAK B->A                      nak
//	5 WRITE PSN 101                 behind 103: starts a replay -> retransmission
//	6 WRITE PSN 102                 in the replay: nothing
//	7 WRITE PSN 103                 passes the high-water mark: ends the replay
//	                                (the event is emitted here but shows on 5)
//	8 CNP B->A                      cnp
//	9 READ PSN 104, 2048 bytes      (2 PSNs at PMTU 1024: next 106)
//	10 READ Response First PSN 104  first response (expects 105 next)
//	11 READ Response Last PSN 105   as expected: nothing
//	12 PFC XOFF priority 3          arms a pause -> pause
//	13 PFC XOFF priority 3          re-arms: nothing
//	14 PFC XON priority 3           ends it (the event shows on 12)
func TestFrameEvents(t *testing.T) {
	tb := NewTable(Config{PMTU: 1024})
	xoff := [8]uint16{3: 0xffff}
	frames := []*decode.Packet{
		wr(1000, 0x11, 100),
		wr(2000, 0x11, 102),
		rnr(3000, 0x22, 101, 5),
		nak(4000, 0x22, 101, 0),
		wr(5000, 0x11, 101),
		wr(6000, 0x11, 102),
		wr(7000, 0x11, 103),
		cnp(8000, 0x22),
		read(9000, 0x11, 104, 2048),
		resp(10000, 0x22, decode.OpReadResponseFirst, 104, 1024),
		resp(11000, 0x22, decode.OpReadResponseLast, 105, 1024),
		pfcFrame(12000, macA, 1<<3, xoff),
		pfcFrame(13000, macA, 1<<3, xoff),
		pfcFrame(14000, macA, 1<<3, [8]uint16{}),
	}
	want := []EventMask{
		0, EventPSNGap.Bit(), EventRNRNAK.Bit(), EventNAK.Bit(), EventRetransmission.Bit(), 0, 0,
		EventCNP.Bit(), 0, 0, 0, EventPause.Bit(), 0, 0,
	}
	for i, p := range frames {
		tb.Observe(p)
		if got := tb.FrameEvents(); got != want[i] {
			t.Errorf("frame %d: events %08b, want %08b", i+1, got, want[i])
		}
		list := tb.FrameEventList()
		switch i + 1 {
		case 2:
			if len(list) != 1 || list[0].Kind != EventPSNGap || list[0].ExpectedPSN() != 101 || list[0].PSN != 102 || list[0].Missing() != 1 {
				t.Errorf("frame 2 list %+v", list)
			}
		case 7:
			// The replay (101, 102: 2 packets) ends here; frame 7 shows
			// no event, so its list is empty.
			if len(list) != 0 {
				t.Errorf("frame 7 list %+v", list)
			}
		}
	}
	tb.Finish()
	for _, e := range tb.Events() {
		if e.Kind == EventRetransmission && (e.TsNs != 5000 || e.Packets() != 2) {
			t.Errorf("retransmission event %+v: want frame 5's time, 2 packets", e)
		}
	}
	if !EventPause.Bit().Has(EventPause) || EventMask(0).Has(EventCNP) || EventKind(9).Bit() != 0 || EventKind(8).Bit() != 1<<7 {
		t.Error("Bit/Has")
	}
}

// The mask costs nothing on the hot path: known flows, no event.
func TestFrameEventsNoAllocs(t *testing.T) {
	tb := NewTable(Config{})
	p := wr(1000, 0x11, 100)
	tb.Observe(p)
	psn := uint32(101)
	n := testing.AllocsPerRun(1000, func() {
		p.BTH.PSN = psn
		psn++
		tb.Observe(p)
		_ = tb.FrameEvents()
	})
	if n != 0 {
		t.Errorf("%v allocations per frame", n)
	}
}
