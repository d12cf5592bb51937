package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// ucBurst returns n UC WRITE Only requests A->B:0x31 of wire length wire,
// the first at ts0 and then one every gap ns, PSNs from psn0.
func ucBurst(ts0 int64, n int, gap int64, wire int, psn0 uint32) []*decode.Packet {
	out := make([]*decode.Packet, n)
	for i := range out {
		p := req(ts0+int64(i)*gap, ipA, ipB, 0x31, decode.Opcode(0x20|decode.OpWriteOnly), psn0+uint32(i))
		p.FrameLen = wire
		out[i] = p
	}
	return out
}

// seq concatenates frames and frame lists.
func seq(parts ...any) []*decode.Packet {
	var out []*decode.Packet
	for _, p := range parts {
		switch v := p.(type) {
		case *decode.Packet:
			out = append(out, v)
		case []*decode.Packet:
			out = append(out, v...)
		}
	}
	return out
}

// TestCNPRates checks rate_before_bps / rate_after_bps by hand. The UC flow
// A->B:0x31 has no ACKs: its CNPs B->A:0x41 find it by the fallback.
// rate = floor((wire bytes of packets 2..16) * 8e9 / (t16 - t1)); -1 = null.
func TestCNPRates(t *testing.T) {
	type rates struct{ before, after int64 }
	big := ucBurst(1000, 1, 0, 9000, 0) // a jumbo first packet: its bytes never count
	tests := []struct {
		name string
		ps   []*decode.Packet
		want []rates
	}{
		{
			// 100G: 1078-byte frames every 88 ns (87.84 ns on the wire), then every 176 ns.
			// before: 15*1078*8e9 / (15*88) = 8624e9/88 = 98_000_000_000 exactly;
			// after: 8624e9/176 = 49_000_000_000.
			name: "100G halved",
			ps:   seq(ucBurst(1000, 16, 88, 1078, 0), cnp(2330, 0x41), ucBurst(2400, 16, 176, 1078, 16)),
			want: []rates{{98_000_000_000, 49_000_000_000}},
		},
		{
			// 25G: packet 1 is 9000 bytes (not counted), packets 2..16 1078 bytes every
			// 351 ns: 15*1078*8e9 / (15*351) = 8624e9/351 = 24_569_800_569.8 -> floor
			// 24_569_800_569. After: 15 packets only before the capture ends: null.
			name: "25G floor, after too short",
			ps:   seq(big, ucBurst(1351, 15, 351, 1078, 1), cnp(7000, 0x41), ucBurst(7100, 15, 351, 1078, 16)),
			want: []rates{{24_569_800_569, -1}},
		},
		{
			// 15 requests before the CNP: null; 16 after at 100 ns, 1000 bytes:
			// 15000*8e9/1500 = 80_000_000_000.
			name: "15 before",
			ps:   seq(ucBurst(1000, 15, 100, 1000, 0), cnp(2450, 0x41), ucBurst(2500, 16, 100, 1000, 15)),
			want: []rates{{-1, 80_000_000_000}},
		},
		{
			// CNP1 at 2550 after 16 requests every 100 ns (t 1000, 1100, ..., 2500):
			// before 15000*8e9/1500 = 80e9. 10
			// requests every 200 ns (2700..4500), CNP2 at 4550 cuts CNP1's after-window:
			// null. CNP2's before-window spans CNP1: the last 6 of the first burst (2000..2500)
			// and the 10: t1 = 2000, t16 = 4500, 15000*8e9/2500 = 48e9. After: 16 every 400 ns:
			// 15000*8e9/6000 = 20e9.
			name: "window cut by the next CNP",
			ps: seq(ucBurst(1000, 16, 100, 1000, 0), cnp(2550, 0x41), ucBurst(2700, 10, 200, 1000, 16),
				cnp(4550, 0x41), ucBurst(4700, 16, 400, 1000, 26)),
			want: []rates{{80_000_000_000, -1}, {48_000_000_000, 20_000_000_000}},
		},
		{
			// 16 requests with one timestamp: t16 - t1 = 0, no rate on either side.
			name: "no time passes",
			ps:   seq(ucBurst(1000, 16, 0, 1000, 0), cnp(1500, 0x41), ucBurst(1600, 16, 0, 1000, 16)),
			want: []rates{{-1, -1}},
		},
		{
			// A CNP with no target (before any data) gets no rates, the next one does.
			name: "no target",
			ps:   seq(cnp(500, 0x41), ucBurst(1000, 16, 88, 1078, 0), cnp(2330, 0x41)),
			want: []rates{{-1, -1}, {98_000_000_000, -1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := run(t, Config{}, tc.ps...)
			var got []rates
			for _, e := range tb.Events() {
				if e.Kind != EventCNP {
					continue
				}
				r := rates{-1, -1}
				if e.HasRateBefore() {
					r.before = e.RateBeforeBps()
				}
				if e.HasRateAfter() {
					r.after = e.RateAfterBps()
				}
				got = append(got, r)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d cnp events %v, want %v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("cnp %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestCNPRatesNoAllocs: requests of a flow with an open after-window do
// not allocate.
func TestCNPRatesNoAllocs(t *testing.T) {
	tb := NewTable(Config{})
	for _, p := range ucBurst(1000, 20, 100, 1000, 0) {
		tb.Observe(p)
	}
	tb.Observe(cnp(3000, 0x41))
	p := ucBurst(3100, 1, 0, 1000, 20)[0]
	psn := uint32(20)
	allocs := testing.AllocsPerRun(100, func() {
		p.TsNs += 100
		p.BTH.PSN = psn
		psn++
		tb.Observe(p)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per request", allocs)
	}
}
