package analysis

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Five WRITEs A->B:0x11 at 0, 100, ... 400, each acked (B->A:0x22) after
// 500, 100, 400, 200, 300 ns. Sorted: 100 200 300 400 500. Nearest rank:
// p50 = ceil(0.50*5) = 3rd = 300, p99 = ceil(0.99*5) = 5th = 500. The flow
// fields are on the request flow A->B; B->A has none (count 0, nulls).
func TestLatencyPercentiles(t *testing.T) {
	delays := []int64{500, 100, 400, 200, 300}
	var ps []*decode.Packet
	for i := range delays {
		ps = append(ps, wr(int64(i)*100, 0x11, uint32(i)))
	}
	// ACK times: 0+500, 100+100, 200+400, 300+200, 400+300 = 500, 200, 600,
	// 500, 700. ACKs must name PSNs in increasing order to count, so they
	// are sent in PSN order at those times (a later PSN at an earlier time
	// is fine: only the PSN order matters).
	for i, d := range delays {
		ps = append(ps, ack(int64(i)*100+d, 0x22, uint32(i)))
	}
	r := build(t, flows.Config{}, Options{}, ps...)
	want := LatencySummary{Count: 5, MinNs: 100, P50Ns: 300, P99Ns: 500, MaxNs: 500}
	if r.Latency.Ack != want {
		t.Errorf("latency.ack %+v, want %+v", r.Latency.Ack, want)
	}
	if r.Latency.Read != (LatencySummary{}) || r.Latency.ReadFirst != (LatencySummary{}) || r.Latency.Atomic != (LatencySummary{}) {
		t.Errorf("latency %+v", r.Latency)
	}
	ab, ba := r.Flows[0], r.Flows[1]
	if ab.AckLatencyCount != 5 || *ab.AckLatencyP50Ns != 300 || *ab.AckLatencyP99Ns != 500 || *ab.AckLatencyMaxNs != 500 ||
		ab.ReadLatencyCount != 0 || ab.ReadLatencyP50Ns != nil || ab.ReadLatencyP99Ns != nil || ab.ReadLatencyMaxNs != nil {
		t.Errorf("flow %s: %+v", ab.ID, ab)
	}
	if ba.AckLatencyCount != 0 || ba.AckLatencyP50Ns != nil || ba.AckLatencyP99Ns != nil || ba.AckLatencyMaxNs != nil {
		t.Errorf("flow %s: %+v", ba.ID, ba)
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  ack         5 samples: p50 0.300 µs  p99 0.500 µs  max 0.500 µs\n",
		"  read        no samples\n",
		"  (" + LatencyCaveat + ")\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, b.String())
		}
	}
}

// TimeoutK: the smallest k with 4096 ns * 2^k >= idle.
func TestTimeoutK(t *testing.T) {
	tests := []struct {
		idle int64
		k    int
		ok   bool
	}{
		{0, 0, true},
		{4096, 0, true},               // 4096 * 2^0 = 4096 >= 4096
		{4097, 1, true},               // 8192
		{4_200_000, 11, true},         // 4096 * 2^10 = 4 194 304 < 4.2 ms <= 4096 * 2^11 = 8 388 608
		{4_194_304, 10, true},         // exactly 2^10 units
		{8_796_093_022_208, 31, true}, // 4096 * 2^31
		{8_796_093_022_209, 0, false},
	}
	for _, tt := range tests {
		if k, ok := TimeoutK(tt.idle); k != tt.k || ok != tt.ok {
			t.Errorf("TimeoutK(%d) = %d, %v; want %d, %v", tt.idle, k, ok, tt.k, tt.ok)
		}
	}
}

// A timeout replay after ~4.2 ms: WRITEs 10 at 0 and 11 at 1000, 11 again
// at 4 201 000 with no NAK: idle 4 200 000 ns, so timeout_k = 11.
func TestTimeoutFindingK(t *testing.T) {
	r := build(t, flows.Config{}, Options{}, wr(0, 0x11, 10), wr(1000, 0x11, 11), wr(4_201_000, 0x11, 11))
	var f *Finding
	for i := range r.Findings {
		if r.Findings[i].Code == CodeRetransmissionTimeout {
			f = &r.Findings[i]
		}
	}
	if f == nil || f.TimeoutK == nil || *f.TimeoutK != 11 || f.IdleNs == nil || *f.IdleNs != 4_200_000 {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Message, "k = 11") {
		t.Errorf("message %q", f.Message)
	}
	if len(r.Events) != 1 || *r.Events[0].IdleNs != 4_200_000 || *r.Events[0].SinceOriginalNs != 4_200_000 {
		t.Errorf("events %+v", r.Events)
	}
	// Other findings carry null timeout_k and idle_ns.
	for _, g := range r.Findings {
		if g.Code != CodeRetransmissionTimeout && (g.TimeoutK != nil || g.IdleNs != nil) {
			t.Errorf("%s has timeout fields", g.Code)
		}
	}
}

// readReq, readResp: READ Request A->B and its responses B->A (PMTU 1024).
func readReq(ts int64, qp, psn uint32, l uint32) *decode.Packet {
	p := base(ts, ipA, ipB, qp, decode.Opcode(decode.OpReadRequest), psn)
	p.RETH.DMALen = l
	return p
}

func readResps(ts int64, qp, psn uint32, l int) []*decode.Packet {
	n := (l + 1023) / 1024
	var ps []*decode.Packet
	for i := range n {
		op, size := decode.OpReadResponseMiddle, 1024
		switch {
		case i == 0:
			op = decode.OpReadResponseFirst
		case i == n-1:
			op, size = decode.OpReadResponseLast, l-(n-1)*1024
		}
		p := base(ts+int64(i), ipB, ipA, qp, decode.Opcode(op), psn+uint32(i))
		p.PayloadLen = size
		ps = append(ps, p)
	}
	return ps
}

// The PMTU-mismatch READ of the real capture at two sizes (see
// flows.TestPSNConflict for the spans): 2400 B -> requester 2048,
// responder 1024; 5000 B -> requester 4096, responder 1024. The report has
// the psn_conflict event with its fields, one pmtu_mismatch error, no
// retransmission and no retransmission_timeout; the READ gives read and
// read_first samples (the Last at +2 and +4 ns after the First).
func TestPMTUMismatchFinding(t *testing.T) {
	tests := []struct {
		l       int
		span    int64
		msg     string
		readNs  int64
		firstNs int64
	}{
		{2400, 3, "1 PSN conflict: requester behaves as PMTU 2048, responder as 1024", 1102 - 1000, 100},
		{5000, 5, "1 PSN conflict: requester behaves as PMTU 4096, responder as 1024", 1104 - 1000, 100},
	}
	for _, tt := range tests {
		ps := []*decode.Packet{readReq(1000, 0x11, 10, uint32(tt.l))}
		ps = append(ps, readResps(1100, 0x22, 10, tt.l)...)
		send := base(2000, ipA, ipB, 0x11, decode.Opcode(decode.OpSendOnly), 12)
		send.PayloadLen = 16
		ps = append(ps, send)
		r := build(t, flows.Config{}, Options{}, ps...)
		if len(r.Events) != 1 {
			t.Fatalf("L=%d: events %+v", tt.l, r.Events)
		}
		e := r.Events[0]
		if e.Kind != "psn_conflict" || *e.PSN != 12 || *e.OpcodeName != "RC_SEND_ONLY" || *e.ReadPSN != 10 ||
			*e.ReadSpan != tt.span || *e.SenderSpan != 2 {
			t.Errorf("L=%d: event %+v", tt.l, e)
		}
		c := codes(r)
		if c[CodePMTUMismatch] != 1 || c[CodeRetransmissionTimeout] != 0 {
			t.Errorf("L=%d: findings %v", tt.l, c)
		}
		for _, f := range r.Findings {
			if f.Code == CodePMTUMismatch && (f.Severity != SeverityError || !strings.HasPrefix(f.Message, tt.msg) || *f.Flow != r.Flows[0].ID) {
				t.Errorf("L=%d: finding %+v", tt.l, f)
			}
		}
		if r.Latency.Read.Count != 1 || r.Latency.Read.MaxNs != tt.readNs || r.Latency.ReadFirst.MaxNs != tt.firstNs {
			t.Errorf("L=%d: latency %+v", tt.l, r.Latency)
		}
		if r.Flows[0].Retransmitted != 0 || r.Flows[0].ReadLatencyCount != 1 {
			t.Errorf("L=%d: flow %+v", tt.l, r.Flows[0])
		}
	}
}

// selectRank over several sets equals the sorted union's element, for
// every rank, on values with ties, spread over a wide range (several
// passes) and a narrow one.
func TestSelectRank(t *testing.T) {
	// The first two sets are kept as int64 (1<<40 does not fit in uint32),
	// the third as uint32.
	sets := []flows.LatencyValues{flows.LatencyValuesOf(5, 1<<40, 7, 7), flows.LatencyValuesOf(0, 3, 1<<40+1),
		flows.LatencyValuesOf(7, 123456789)}
	union := []int64{0, 3, 5, 7, 7, 7, 123456789, 1 << 40, 1<<40 + 1} // sorted by hand
	cnt := make([]int, selectBuckets)
	for r := 1; r <= len(union); r++ {
		if got := selectRank(sets, r, 0, 1<<40+1, cnt); got != union[r-1] {
			t.Errorf("rank %d: %d, want %d", r, got, union[r-1])
		}
	}
	// summarizeSets: 9 values, p50 = ceil(4.5) = 5th = 7, p99 = ceil(8.91) = 9th.
	s, _ := summarizeSets(sets, nil)
	want := LatencySummary{Count: 9, MinNs: 0, P50Ns: 7, P99Ns: 1<<40 + 1, MaxNs: 1<<40 + 1}
	if s != want {
		t.Errorf("summary %+v, want %+v", s, want)
	}
}

// TestReplayIdleSince pins idle_ns, since_original_ns and the
// retransmission_timeout finding on two episodes, worked by hand:
//   - WRITEs 10@0, 11@100, 12@200, replayed 10@10000, 11@10100, 12@10200
//     (one episode of 3 packets: it ends when 13 passes the high-water mark
//     12): idle 10000 - 200 = 9800 (the latest request before the replay,
//     whatever its PSN), since_original 10000 - 0;
//   - 13@20000, replayed at 30000: idle 10000, since_original 10000;
//   - the finding: shortest idle 9800, k = 2 (4096·2^1 = 8192 < 9800 <=
//     16384 = 4096·2^2).
//
// And a re-read inside a READ's range (PMTU 1024, READ 10 of 3000 B spans
// 10..12, re-read from 11): PSN 11 was never a BTH PSN, so
// since_original_ns is null; idle 5000 - 1000.
func TestReplayIdleSince(t *testing.T) {
	type ev struct{ psn, packets, idle, since int64 }
	get := func(r Report) []ev {
		var out []ev
		for _, e := range r.Events {
			if e.Kind != "retransmission" || e.AfterNAKNs != nil {
				t.Fatalf("event %+v", e)
			}
			s := int64(-1)
			if e.SinceOriginalNs != nil {
				s = *e.SinceOriginalNs
			}
			out = append(out, ev{int64(*e.PSN), *e.Packets, *e.IdleNs, s})
		}
		return out
	}
	r := build(t, flows.Config{}, Options{}, wr(0, 0x11, 10), wr(100, 0x11, 11), wr(200, 0x11, 12),
		wr(10_000, 0x11, 10), wr(10_100, 0x11, 11), wr(10_200, 0x11, 12), wr(20_000, 0x11, 13), wr(30_000, 0x11, 13))
	if got, want := get(r), []ev{{10, 3, 9800, 10_000}, {13, 1, 10_000, 10_000}}; !slices.Equal(got, want) {
		t.Errorf("events %+v, want %+v", got, want)
	}
	var f *Finding
	for i := range r.Findings {
		if r.Findings[i].Code == CodeRetransmissionTimeout {
			f = &r.Findings[i]
		}
	}
	if f == nil || *f.TimeoutK != 2 || *f.IdleNs != 9800 {
		t.Errorf("finding %+v", f)
	}
	r = build(t, flows.Config{PMTU: 1024}, Options{}, readReq(1000, 0x11, 10, 3000), readReq(5000, 0x11, 11, 2000))
	if got, want := get(r), []ev{{11, 1, 4000, -1}}; !slices.Equal(got, want) {
		t.Errorf("re-read events %+v, want %+v", got, want)
	}
}
