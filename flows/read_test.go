package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// A READ Request with DMA length L = 10000 at PSN 10 takes
// max(1, ceil(10000/PMTU)) PSNs: 10000/1024 = 9.77 -> 10 (PSNs 10..19, next
// request at 20); 10000/4096 = 2.44 -> 3 (PSNs 10..12, next at 13).
func TestReadRequestSpan(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		next uint32
		want []ev
	}{
		{"pmtu1024 next20", Config{PMTU: 1024}, 20, nil},
		{"pmtu4096 next13", Config{PMTU: 4096}, 13, nil},
		// At 4096 the READ ends at 12: a request at 20 skips 13..19 = 7 PSNs.
		{"pmtu4096 next20", Config{PMTU: 4096}, 20, []ev{
			{Kind: "psn_gap", Ts: 2000, Flow: idAB11, Expected: 13, PSN: 20, N: 7, Extra: -1}}},
		// At 1024 the READ ends at 19: a WRITE at 13, the next request,
		// lies inside [11, 19]: a psn_conflict (read_psn 10, read_span 10),
		// not a replay.
		{"pmtu1024 next13", Config{PMTU: 1024}, 13, []ev{
			{Kind: "psn_conflict", Ts: 2000, Flow: idAB11, PSN: 13, Expected: 10, N: 10, Extra: -1}}},
		// PMTU unknown (auto, nothing revealed it): the candidates for
		// L = 10000 are ceil(10000/m) for m = 4096..256: 3, 5, 10, 20, 40.
		// Any of them is accepted.
		{"auto next13", Config{}, 13, nil},
		{"auto next20", Config{}, 20, nil},
		{"auto next50", Config{}, 50, nil}, // 10 + 40
		// 25 - 10 = 15 is no candidate: the largest candidate <= 15 is 10,
		// so expected = 20 and 25 - 20 = 5 are missing.
		{"auto next25", Config{}, 25, []ev{
			{Kind: "psn_gap", Ts: 2000, Flow: idAB11, Expected: 20, PSN: 25, N: 5, Extra: -1}}},
		// 11 - 10 = 1 < smallest candidate 3: expected 13, 11 is behind.
		{"auto next11", Config{}, 11, []ev{
			{Kind: "retransmission", Ts: 2000, Flow: idAB11, PSN: 11, N: 1, Extra: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := run(t, tt.cfg, wr(900, 0x11, 9), read(1000, 0x11, 10, 10000), wr(2000, 0x11, tt.next))
			checkEvents(t, tb, tt.want)
		})
	}
}

// A READ of 0 bytes still takes one PSN; one of 1 byte too.
func TestReadRequestSmall(t *testing.T) {
	for _, l := range []uint32{0, 1, 4096} {
		tb := run(t, Config{PMTU: 4096}, read(1000, 0x11, 10, l), wr(2000, 0x11, 11))
		checkEvents(t, tb, nil)
	}
}

// readResponses builds the responses of a READ of l bytes at psn with the
// given PMTU, skipping the PSNs in drop.
func readResponses(ts int64, qp uint32, psn uint32, l, pmtu int, drop map[uint32]bool) []*decode.Packet {
	n := max(1, (l+pmtu-1)/pmtu)
	var ps []*decode.Packet
	for i := range n {
		op := decode.OpReadResponseMiddle
		size := pmtu
		switch {
		case n == 1:
			op, size = decode.OpReadResponseOnly, l
		case i == 0:
			op = decode.OpReadResponseFirst
		case i == n-1:
			op, size = decode.OpReadResponseLast, l-(n-1)*pmtu
		}
		p := psn + uint32(i)
		if !drop[p] {
			ps = append(ps, resp(ts+int64(i)*10, qp, op, p, size))
		}
	}
	return ps
}

// READ at PSN 10 of 10000 bytes at PMTU 1024: 10 responses, PSN 10..19
// (9 x 1024 + 784). Response 15 is lost: the response flow shows a gap
// {expected 15, psn 16, missing 1}. With PMTU auto, the First response's
// 1024-byte payload reveals the PMTU, so the request at 20 is no gap.
func TestReadResponseGap(t *testing.T) {
	for _, cfg := range []Config{{PMTU: 1024}, {}} {
		ps := []*decode.Packet{read(1000, 0x11, 10, 10000)}
		ps = append(ps, readResponses(1100, 0x22, 10, 10000, 1024, map[uint32]bool{15: true})...)
		ps = append(ps, wr(2000, 0x11, 20))
		tb := run(t, cfg, ps...)
		// response i is at 1100 + 10*(i-10): PSN 16 at 1100 + 60 = 1160
		checkEvents(t, tb, []ev{
			{Kind: "psn_gap", Ts: 1160, Flow: idBA22, Expected: 15, PSN: 16, N: 1, Extra: -1},
		})
		if tb.PMTUFor(flowAB(tb, 0x11)) != 1024 {
			t.Errorf("cfg %+v: pmtu %d", cfg, tb.PMTUFor(flowAB(tb, 0x11)))
		}
		ba := flowBA(tb, 0x22)
		// 9 responses; payload 9*1024 + 784 = 10000, less the lost 1024 = 8976
		if ba.Packets != 9 || ba.PayloadBytes != 8976 || ba.PSNGaps != 1 || ba.MissingPSNs != 1 {
			t.Errorf("ba %+v", countersOf(ba))
		}
	}
}

// Three READs at PMTU 1024: 2048 B at 10 (PSNs 10-11), 1024 B at 12 (PSN
// 12), 3072 B at 13 (13-15). The only response of the second READ is lost:
// after 11 (end of the first READ) the next response expected is 12; 13
// arrives: missing = 0 left of READ 1 + 1 (READ 2) + (13-13) = 1.
func TestReadResponseMissingWholeRead(t *testing.T) {
	drop := map[uint32]bool{12: true}
	ps := []*decode.Packet{read(1000, 0x11, 10, 2048), read(1001, 0x11, 12, 1024), read(1002, 0x11, 13, 3072)}
	ps = append(ps, readResponses(1100, 0x22, 10, 2048, 1024, drop)...)
	ps = append(ps, readResponses(1200, 0x22, 12, 1024, 1024, drop)...)
	ps = append(ps, readResponses(1300, 0x22, 13, 3072, 1024, drop)...)
	ps = append(ps, wr(2000, 0x11, 16))
	tb := run(t, Config{PMTU: 1024}, ps...)
	checkEvents(t, tb, []ev{
		{Kind: "psn_gap", Ts: 1300, Flow: idBA22, Expected: 12, PSN: 13, N: 1, Extra: -1},
	})
}

// With PMTU auto and no First/Middle packet, a READ Response Last reveals
// the READ's span: READ 10000 B at 10 answered by a Last at PSN 12 -> 3 PSNs.
// The next request at 20 then shows a gap of 20 - 13 = 7.
func TestReadSpanFromResponse(t *testing.T) {
	tb := run(t, Config{},
		read(1000, 0x11, 10, 10000),
		resp(1100, 0x22, decode.OpReadResponseLast, 12, 1808),
		wr(2000, 0x11, 20),
	)
	checkEvents(t, tb, []ev{
		{Kind: "psn_gap", Ts: 2000, Flow: idAB11, Expected: 13, PSN: 20, N: 7, Extra: -1},
	})
}
