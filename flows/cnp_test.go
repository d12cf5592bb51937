package flows

import (
	"fmt"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// CE bursts on A->B qp 0x11 answered by coalesced CNPs B->A to qp 0x22 (the
// requester's QP, the same flow as the ACKs, so its peer is the target).
func TestCNPLatency(t *testing.T) {
	tb := run(t, Config{},
		wr(1000, 0x11, 0), ack(1050, 0x22, 0), // pairs AB:11 <-> BA:22
		ce(wr(2000, 0x11, 1)), ce(wr(2100, 0x11, 2)), ce(wr(2200, 0x11, 3)),
		cnp(2500, 0x22), // first CE since the start at 2000: 2500 - 2000 = 500
		ce(wr(3000, 0x11, 4)),
		cnp(3300, 0x22), // 3300 - 3000 = 300
		cnp(3400, 0x22), // no CE since the CNP at 3300: null
		ce(wr(4000, 0x11, 5)), ce(wr(4050, 0x11, 6)),
		cnp(4100, 0x22), // 4100 - 4000 = 100
	)
	checkEvents(t, tb, []ev{
		{Kind: "cnp", Ts: 2500, Flow: idBA22, Extra: 500, Target: idAB11},
		{Kind: "cnp", Ts: 3300, Flow: idBA22, Extra: 300, Target: idAB11},
		{Kind: "cnp", Ts: 3400, Flow: idBA22, Extra: -1, Target: idAB11},
		{Kind: "cnp", Ts: 4100, Flow: idBA22, Extra: 100, Target: idAB11},
	})
	ab, ba := flowAB(tb, 0x11), flowBA(tb, 0x22)
	// ab: 7 writes, 6 CE-marked, 4 CNPs received; ba: 1 ACK + 4 CNPs.
	if ab.ECNCE != 6 || ab.CNPsReceived != 4 || ab.CNPs != 0 {
		t.Errorf("ab %+v", countersOf(ab))
	}
	if ba.CNPs != 4 || ba.Packets != 5 || ba.CNPsReceived != 0 || ba.Transport() != "RC" {
		t.Errorf("ba %+v %s", countersOf(ba), ba.Transport())
	}
}

// UC traffic has no ACKs: the CNP flow B->A:0x41 carries only CNPs
// (transport "CNP") and has no peer; the fallback finds the only unpaired
// A->B flow. A CNP with no CE before it has a null latency.
func TestCNPFallbackUC(t *testing.T) {
	uc := func(ts int64, psn uint32) *decode.Packet {
		return req(ts, ipA, ipB, 0x31, decode.Opcode(0x20|decode.OpWriteOnly), psn)
	}
	tb := run(t, Config{},
		cnp(500, 0x41), // before any data: no candidate, target null
		uc(1000, 0), ce(uc(1100, 1)),
		cnp(1300, 0x41), // 1300 - 1100 = 200
		cnp(1400, 0x41), // no CE since: null
	)
	idUC := "10.0.0.1>10.0.0.2:qp0x000031"
	idCNP := "10.0.0.2>10.0.0.1:qp0x000041"
	checkEvents(t, tb, []ev{
		{Kind: "cnp", Ts: 500, Flow: idCNP, Extra: -1},
		{Kind: "cnp", Ts: 1300, Flow: idCNP, Extra: 200, Target: idUC},
		{Kind: "cnp", Ts: 1400, Flow: idCNP, Extra: -1, Target: idUC},
	})
	if f := flowBA(tb, 0x41); f.Transport() != "CNP" || f.Peer() != nil || f.CNPs != 3 {
		t.Errorf("cnp flow %s peer=%v cnps=%d", f.Transport(), f.Peer(), f.CNPs)
	}
	if f := flowAB(tb, 0x31); f.Transport() != "UC" || f.CNPsReceived != 2 {
		t.Errorf("uc flow %s cnps_received=%d", f.Transport(), f.CNPsReceived)
	}
}

// Four QPs between the same two hosts, with distinct initial PSNs and ACK
// QPNs in another order than the data QPNs; interleaved traffic. Every
// A->B:0x10i must pair with B->A:0x20(3-i), and a CNP to 0x20(3-i) must
// target A->B:0x10i.
func TestManyQPsPairing(t *testing.T) {
	starts := []uint32{5, 1_000_005, 0xFFFFF0, 7_000_000}
	var ps []*decode.Packet
	for k := range 20 {
		for i := range 4 {
			ts := int64(k)*1000 + int64(i)*10
			p := wr(ts, 0x100+uint32(i), starts[i]+uint32(k))
			if k == 10 {
				ce(p)
			}
			ps = append(ps, p)
		}
		if k%5 == 4 {
			for i := 3; i >= 0; i-- { // ACKs in reverse order
				ps = append(ps, ack(int64(k)*1000+500+int64(3-i), 0x200+uint32(3-i), starts[i]+uint32(k)))
			}
		}
		if k == 12 {
			for i := range 4 {
				ps = append(ps, cnp(int64(k)*1000+600+int64(i), 0x200+uint32(3-i)))
			}
		}
	}
	tb := run(t, Config{}, ps...)
	for i := range 4 {
		ab, ba := flowAB(tb, 0x100+uint32(i)), flowBA(tb, 0x200+uint32(3-i))
		if ab.Peer() != ba || ba.Peer() != ab {
			t.Errorf("QP %d: ab.peer=%v ba.peer=%v", i, ab.Peer(), ba.Peer())
		}
		if ab.CNPsReceived != 1 || ab.PSNGaps != 0 {
			t.Errorf("QP %d: %+v", i, countersOf(ab))
		}
	}
	// CNP for QP i at 12600+i; CE at 10000 + 10*i: latency 2600 - 9*i.
	var want []ev
	for i := range 4 {
		want = append(want, ev{Kind: "cnp", Ts: 12600 + int64(i), Flow: fmt.Sprintf("10.0.0.2>10.0.0.1:qp0x%06x", 0x200+3-i),
			Extra: 2600 - 9*int64(i), Target: fmt.Sprintf("10.0.0.1>10.0.0.2:qp0x%06x", 0x100+i)})
	}
	checkEvents(t, tb, want)
}

// Four QPs that all start at PSN 0 but progress at different rates: each
// round QP i sends 40*(i+1) requests, then each QP's ACK (for its last PSN)
// comes back. An ACK PSN is then in range of several QPs (e.g. round 1:
// QP 0's ACK 39 is below every QP's high-water mark 40, 80, 120, 160), so
// pairing needs two consecutive exact matches: 39 is among the last 32
// request PSNs (8..39) of QP 0 only (QP 1's are 48..79, QP 2's 88..119,
// QP 3's 128..159). QP 3's ACK 159 is in range of QP 3 alone (the others
// stop at 39, 79, 119) and pairs at once; all four pair correctly after two
// rounds.
func TestManyQPsOverlappingPSNs(t *testing.T) {
	var ps []*decode.Packet
	next := make([]uint32, 4)
	ts := int64(0)
	tb := NewTable(Config{})
	for round := range 3 {
		for i := range 4 {
			for range 40 * (i + 1) {
				ts += 10
				ps = append(ps, wr(ts, 0x100+uint32(i), next[i]))
				next[i]++
			}
		}
		for i := range 4 {
			ts += 10
			ps = append(ps, ack(ts, 0x200+uint32(i), next[i]-1))
		}
		for _, p := range ps {
			tb.Observe(p)
		}
		ps = ps[:0]
		for i := range 4 {
			ab, ba := flowAB(tb, 0x100+uint32(i)), flowBA(tb, 0x200+uint32(i))
			paired := ab.Peer() == ba && ba.Peer() == ab
			if paired != (round >= 1 || i == 3) {
				t.Errorf("round %d QP %d: paired=%v", round, i, paired)
			}
		}
	}
}

// Identical QPs in lockstep (same PSNs, same times) cannot be told apart by
// PSNs: they stay unpaired rather than paired wrongly.
func TestLockstepQPsStayUnpaired(t *testing.T) {
	var ps []*decode.Packet
	for k := range 10 {
		for i := range 2 {
			ps = append(ps, wr(int64(k)*100, 0x100+uint32(i), uint32(k)))
		}
		for i := range 2 {
			ps = append(ps, ack(int64(k)*100+50, 0x200+uint32(i), uint32(k)))
		}
	}
	tb := run(t, Config{}, ps...)
	for _, f := range tb.Flows() {
		if f.Peer() != nil {
			t.Errorf("%s paired with %s", f.ID(), f.Peer().ID())
		}
	}
}

// RNR NAK timer code 14 = 1.28 ms = 1,280,000 ns; NAK codes 0-4 and a
// reserved one, each counted on the flow that carries it.
func TestRNRAndNAKCodes(t *testing.T) {
	ps := []*decode.Packet{wr(1000, 0x11, 0), wr(1100, 0x11, 1), wr(1200, 0x11, 2), rnr(1300, 0x22, 1, 14)}
	for c := range uint8(6) {
		ps = append(ps, nak(2000+int64(c), 0x22, 2, c))
	}
	tb := run(t, Config{}, ps...)
	want := []ev{{Kind: "rnr_nak", Ts: 1300, Flow: idBA22, PSN: 1, N: 14, Extra: 1_280_000, Target: idAB11}}
	for c := range int64(6) {
		want = append(want, ev{Kind: "nak", Ts: 2000 + c, Flow: idBA22, PSN: 2, N: c, Extra: -1, Target: idAB11})
	}
	checkEvents(t, tb, want)
	ba := flowBA(tb, 0x22)
	if ba.RNRNAKs != 1 || ba.NAKs != 6 {
		t.Errorf("rnr=%d naks=%d", ba.RNRNAKs, ba.NAKs)
	}
}

// UD SENDs from two source QPs to one destination QP: two flows.
func TestUDTwoSourceQPs(t *testing.T) {
	ud := func(ts int64, src uint32, psn uint32) *decode.Packet {
		p := req(ts, ipA, ipB, 0x1, decode.OpcodeUDSendOnly, psn)
		p.DETH.SrcQP = src
		return p
	}
	tb := run(t, Config{}, ud(1000, 0x55, 7), ud(1100, 0x66, 100), ud(1200, 0x55, 8), ud(1300, 0x66, 101))
	fl := tb.Flows()
	if len(fl) != 2 {
		t.Fatalf("%d flows", len(fl))
	}
	want := []string{"10.0.0.1>10.0.0.2:qp0x000001/src0x000055", "10.0.0.1>10.0.0.2:qp0x000001/src0x000066"}
	for i, f := range fl {
		if f.ID() != want[i] || f.Transport() != "UD" || f.Packets != 2 || f.PSNGaps != 0 {
			t.Errorf("flow %d: %s %s %+v", i, f.ID(), f.Transport(), countersOf(f))
		}
	}
	checkEvents(t, tb, nil)
}

// A CNP to a UD sender QP targets the UD flow whose DETH source QP it names.
func TestCNPTargetsUD(t *testing.T) {
	ud := func(ts int64, src uint32, psn uint32) *decode.Packet {
		p := req(ts, ipA, ipB, 0x1, decode.OpcodeUDSendOnly, psn)
		p.DETH.SrcQP = src
		return p
	}
	tb := run(t, Config{}, ud(1000, 0x55, 7), ce(ud(1100, 0x66, 100)), cnp(1500, 0x66))
	checkEvents(t, tb, []ev{{Kind: "cnp", Ts: 1500, Flow: "10.0.0.2>10.0.0.1:qp0x000066", Extra: 400,
		Target: "10.0.0.1>10.0.0.2:qp0x000001/src0x000066"}})
}

// A UD flow keeps no request memory (its latency state, made for a
// replay's stall figures, holds its first request only): a replay of it
// knows no time of the original, and the lookups of its replayed PSNs
// find nothing, however often it goes back.
func TestUDReplayKnowsNoOriginal(t *testing.T) {
	ud := func(ts int64, psn uint32) *decode.Packet {
		p := req(ts, ipA, ipB, 0x1, decode.OpcodeUDSendOnly, psn)
		p.DETH.SrcQP = 0x55
		return p
	}
	tb := run(t, Config{}, ud(1000, 7), ud(1100, 8), ud(1200, 9), ud(1300, 7), ud(1400, 8), ud(1500, 7), ud(1600, 10))
	n := 0
	for i := range tb.NumEvents() {
		e := tb.Event(i)
		if e.Kind != EventRetransmission {
			continue
		}
		n++
		if e.HasSinceOriginal() {
			t.Errorf("replay at %d: since_original %d on a UD flow", e.TsNs, e.SinceOriginalNs())
		}
	}
	if n != 2 {
		t.Errorf("%d retransmission events, want 2", n)
	}
}
