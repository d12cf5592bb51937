package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

const (
	idAB11 = "10.0.0.1>10.0.0.2:qp0x000011"
	idBA22 = "10.0.0.2>10.0.0.1:qp0x000022"
)

func TestKeyString(t *testing.T) {
	tests := []struct {
		k    Key
		want string
	}{
		{Key{Src: ipA, Dst: ipB, DstQPN: 0x11}, idAB11},
		{Key{Src: ipA, Dst: ipB, DstQPN: 1, UD: true, HasSrcQPN: true, SrcQPN: 0xabcdef}, "10.0.0.1>10.0.0.2:qp0x000001/src0xabcdef"},
		{Key{Src: ipA, Dst: ipB, DstQPN: 1, UD: true}, "10.0.0.1>10.0.0.2:qp0x000001/src?"},
		{Key{Src: mustAddr("fd00::1"), Dst: mustAddr("fd00::2"), DstQPN: 0xffffff}, "[fd00::1]>[fd00::2]:qp0xffffff"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.k, got, tt.want)
		}
	}
}

// A clean RC WRITE stream: PSN 100..109 every 100 ns, ACKs coalesced to
// PSN 104 and 109. ACK PSNs skip: no gap, no retransmission.
func TestCleanWriteCoalescedACKs(t *testing.T) {
	var ps []*decode.Packet
	for i := range 10 {
		ps = append(ps, wr(1000+int64(i)*100, 0x11, 100+uint32(i)))
		if i == 4 || i == 9 {
			ps = append(ps, ack(1050+int64(i)*100, 0x22, 100+uint32(i)))
		}
	}
	tb := run(t, Config{}, ps...)
	checkEvents(t, tb, nil)
	ab, ba := flowAB(tb, 0x11), flowBA(tb, 0x22)
	if ab == nil || ba == nil || ab.Peer() != ba || ba.Peer() != ab {
		t.Fatalf("pairing: ab=%v ba=%v", ab, ba)
	}
	// 10 requests of FrameLen 130 = 1300 bytes, payload 10*64 = 640;
	// first at 1000, last at 1000+9*100 = 1900.
	want := Flow{Packets: 10, Bytes: 1300, PayloadBytes: 640, FirstTsNs: 1000, LastTsNs: 1900}
	if got := countersOf(ab); got != countersOf(&want) {
		t.Errorf("ab counters %+v, want %+v", got, countersOf(&want))
	}
	// 2 ACKs of FrameLen 100, payload 0, at 1450 and 1950.
	want = Flow{Packets: 2, Bytes: 200, FirstTsNs: 1450, LastTsNs: 1950}
	if got := countersOf(ba); got != countersOf(&want) {
		t.Errorf("ba counters %+v, want %+v", got, countersOf(&want))
	}
	if ab.Transport() != "RC" || ba.Transport() != "RC" {
		t.Errorf("transport %s %s", ab.Transport(), ba.Transport())
	}
}

type counters struct {
	Packets, Bytes, Payload, First, Last, Gaps, Missing, Retr, NAKs, RNR, CE, CNPs, CNPRx int64
}

func countersOf(f *Flow) counters {
	return counters{f.Packets, f.Bytes, f.PayloadBytes, f.FirstTsNs, f.LastTsNs, f.PSNGaps, f.MissingPSNs,
		f.Retransmitted, f.NAKs, f.RNRNAKs, f.ECNCE, f.CNPs, f.CNPsReceived}
}

// PSN 4 is lost before the capture point; the responder NAKs it
// (PSN_SEQUENCE_ERROR, PSN 4 = the first missing one) and the requester
// goes back to 4. Later, PSN 7 is replayed again without any NAK (timeout).
func TestGapNAKGoBackN(t *testing.T) {
	tb := run(t, Config{},
		wr(1000, 0x11, 0), wr(1100, 0x11, 1), wr(1200, 0x11, 2), wr(1300, 0x11, 3),
		wr(1500, 0x11, 5), // expected 4: gap, missing 5-4 = 1
		wr(1600, 0x11, 6),
		nak(1650, 0x22, 4, decode.NAKCodePSNSequenceError),
		wr(2000, 0x11, 4), wr(2100, 0x11, 5), wr(2200, 0x11, 6), // replay 4,5,6: 3 packets
		wr(2300, 0x11, 7), // = high-water 6 + 1: ends the episode
		ack(2400, 0x22, 7),
		wr(9000, 0x11, 7), // behind expected 8: replay, no NAK since the last replay
		wr(9100, 0x11, 8),
	)
	checkEvents(t, tb, []ev{
		{Kind: "psn_gap", Ts: 1500, Flow: idAB11, Expected: 4, PSN: 5, N: 1, Extra: -1},
		{Kind: "nak", Ts: 1650, Flow: idBA22, PSN: 4, N: 0, Extra: -1, Target: idAB11},
		// after_nak_ns = 2000 - 1650 = 350
		{Kind: "retransmission", Ts: 2000, Flow: idAB11, PSN: 4, N: 3, Extra: 350},
		// the NAK at 1650 was answered by the replay at 2000: timeout, null
		{Kind: "retransmission", Ts: 9000, Flow: idAB11, PSN: 7, N: 1, Extra: -1},
	})
	ab, ba := flowAB(tb, 0x11), flowBA(tb, 0x22)
	// 12 requests; 1 gap of 1; 3+1 retransmitted.
	if got, want := countersOf(ab), (counters{Packets: 12, Bytes: 12 * 130, Payload: 12 * 64, First: 1000, Last: 9100,
		Gaps: 1, Missing: 1, Retr: 4}); got != want {
		t.Errorf("ab %+v, want %+v", got, want)
	}
	if ba.NAKs != 1 || ab.NAKs != 0 {
		t.Errorf("naks ab=%d ba=%d", ab.NAKs, ba.NAKs)
	}
}

// A replay with no NAK at all: after_nak_ns is null.
func TestReplayTimeout(t *testing.T) {
	tb := run(t, Config{},
		wr(1000, 0x11, 0), wr(1100, 0x11, 1), wr(1200, 0x11, 2), wr(1300, 0x11, 3), wr(1400, 0x11, 4),
		ack(1450, 0x22, 1),
		wr(5000, 0x11, 2), wr(5100, 0x11, 3), wr(5200, 0x11, 4), // 3 replayed
		wr(5300, 0x11, 5),
	)
	checkEvents(t, tb, []ev{
		{Kind: "retransmission", Ts: 5000, Flow: idAB11, PSN: 2, N: 3, Extra: -1},
	})
	if r := flowAB(tb, 0x11).Retransmitted; r != 3 {
		t.Errorf("retransmitted %d, want 3", r)
	}
}

// A replay still open at the end of the capture is reported by Finish.
func TestReplayOpenAtEnd(t *testing.T) {
	tb := run(t, Config{}, wr(1000, 0x11, 10), wr(1100, 0x11, 11), wr(1200, 0x11, 10))
	checkEvents(t, tb, []ev{{Kind: "retransmission", Ts: 1200, Flow: idAB11, PSN: 10, N: 1, Extra: -1}})
}

func TestPSNWrap(t *testing.T) {
	tests := []struct {
		name string
		psns []uint32
		want []ev
	}{
		{"clean", []uint32{0xFFFFFD, 0xFFFFFE, 0xFFFFFF, 0, 1, 2}, nil},
		// 0xFFFFFF and 0 lost: expected 0xFFFFFF, got 1: 1 - 0xFFFFFF = 2 (mod 2^24)
		{"loss", []uint32{0xFFFFFD, 0xFFFFFE, 1, 2}, []ev{
			{Kind: "psn_gap", Ts: 1200, Flow: idAB11, Expected: 0xFFFFFF, PSN: 1, N: 2, Extra: -1}}},
		// 0xFFFFFE after 1: behind (1 - 0xFFFFFE = 3 back): a replay across the wrap
		{"replay", []uint32{0xFFFFFE, 0xFFFFFF, 0, 1, 0xFFFFFE, 0xFFFFFF, 0, 1, 2}, []ev{
			{Kind: "retransmission", Ts: 1400, Flow: idAB11, PSN: 0xFFFFFE, N: 4, Extra: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []*decode.Packet
			for i, psn := range tt.psns {
				ps = append(ps, wr(1000+int64(i)*100, 0x11, psn))
			}
			checkEvents(t, run(t, Config{}, ps...), tt.want)
		})
	}
}

func TestPSNArithmetic(t *testing.T) {
	tests := []struct {
		a, b  PSN
		diff  int64
		ahead bool
	}{
		{5, 3, 2, true},
		{3, 5, -2, false},
		{0, 0xFFFFFF, 1, true},          // wrap: 0 is one after 2^24-1
		{0xFFFFFF, 0, -1, false},        // and 2^24-1 one before 0
		{1, 0xFFFFFE, 3, true},          // 1 - (2^24-2) = 3 mod 2^24
		{0x7FFFFF, 0, 0x7FFFFF, true},   // 2^23-1 ahead: still ahead
		{0x800000, 0, -0x800000, false}, // exactly 2^23: behind, not ahead
	}
	for _, tt := range tests {
		if d := tt.a.Diff(tt.b); d != tt.diff {
			t.Errorf("%#x.Diff(%#x) = %d, want %d", tt.a, tt.b, d, tt.diff)
		}
		if a := tt.a.Ahead(tt.b); a != tt.ahead {
			t.Errorf("%#x.Ahead(%#x) = %v", tt.a, tt.b, a)
		}
	}
	// Diff is the masked difference, less 2^24 from 2^23 on, for any
	// uint32 operands (bits above the 24 ignored).
	for _, a := range []uint32{0, 1, 0x7FFFFF, 0x800000, 0x800001, 0xFFFFFF, 0x1000000, 0xFF123456, 0xFFFFFFFF} {
		for _, b := range []uint32{0, 1, 0x7FFFFF, 0x800000, 0xFFFFFE, 0xFFFFFF, 0x1800000, 0xFFFFFFFF} {
			want := int64((a - b) & psnMask)
			if want >= psnHalf {
				want -= PSNModulus
			}
			if d := PSN(a).Diff(PSN(b)); d != want {
				t.Errorf("%#x.Diff(%#x) = %d, want %d", a, b, d, want)
			}
		}
	}
	if got := PSN(0xFFFFFE).Add(3); got != 1 {
		t.Errorf("Add wrap = %#x, want 1", got)
	}
	if got := PSN(1).Add(-2); got != 0xFFFFFF {
		t.Errorf("Add negative = %#x, want 0xffffff", got)
	}
}

// ObserveFlow returns the flow FlowOf finds after it: the frame's own
// (created by the frame when new), nil for PFC, PAUSE and other frames.
func TestObserveFlowReturnsTheFramesFlow(t *testing.T) {
	other := &decode.Packet{Kind: decode.KindOther, TsNs: 5}
	frames := []*decode.Packet{
		wr(1, 0x11, 0), ack(2, 0x11, 0), wr(3, 0x12, 7), cnp(4, 0x11),
		pfcFrame(5, [6]byte{2, 0, 0, 0, 0, 1}, 0x08, [8]uint16{3: 100}),
		pauseFrame(6, [6]byte{2, 0, 0, 0, 0, 1}, 10), other, wr(7, 0x11, 1),
	}
	tb := NewTable(Config{})
	var got []*Flow
	for _, p := range frames {
		f := tb.ObserveFlow(p)
		if want := tb.FlowOf(p); f != want {
			t.Errorf("frame at %d: ObserveFlow %v, FlowOf %v", p.TsNs, f, want)
		}
		got = append(got, f)
	}
	for i, wantNil := range []bool{false, false, false, false, true, true, true, false} {
		if (got[i] == nil) != wantNil {
			t.Errorf("frame %d: flow %v", i, got[i])
		}
	}
	if got[0] != got[7] || got[0] == got[1] || got[0] == got[2] || len(tb.Flows()) != 3 {
		t.Errorf("flows %v, table %d flows", got, len(tb.Flows()))
	}
}

// Malformed frames belong to no flow (contract, "Readings settled"): a
// malformed RoCE frame or CNP neither starts a flow nor counts on its flow,
// and a malformed PFC or PAUSE frame pauses nothing.
func TestMalformedInNoFlow(t *testing.T) {
	bad := func(p *decode.Packet) *decode.Packet {
		p.Malformed, p.ICRCStatus = true, decode.ICRCMalformed
		return p
	}
	badPFC := pfcFrame(5, [6]byte{2, 0, 0, 0, 0, 1}, 0x08, [8]uint16{3: 100})
	badPause := pauseFrame(6, [6]byte{2, 0, 0, 0, 0, 1}, 10)
	badPFC.Malformed, badPause.Malformed = true, true
	tb := NewTable(Config{})
	// wr(1) starts the only flow; the malformed write on it (PSN 5, a gap
	// were it counted), the malformed write and CNP of other QPs do not.
	frames := []*decode.Packet{wr(1, 0x11, 0), bad(wr(2, 0x11, 5)), bad(wr(3, 0x12, 7)), bad(cnp(4, 0x11)), badPFC, badPause}
	for i, p := range frames {
		f := tb.ObserveFlow(p)
		if (f == nil) != (i > 0) || tb.FlowOf(p) != f {
			t.Errorf("frame %d: ObserveFlow %v, FlowOf %v", i, f, tb.FlowOf(p))
		}
		if _, ok := KeyOf(p); ok != (i == 0) {
			t.Errorf("frame %d: KeyOf ok %v", i, ok)
		}
	}
	tb.Finish()
	if fl := tb.Flows(); len(fl) != 1 || fl[0].Packets != 1 || fl[0].PSNGaps != 0 {
		t.Errorf("flows %+v, want one flow of 1 packet without a gap", fl)
	}
	if len(tb.PFC()) != 0 || len(tb.Events()) != 0 {
		t.Errorf("PFC %v, events %v: want none", tb.PFC(), tb.Events())
	}
}
