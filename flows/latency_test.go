package flows

import (
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// smp is a latency sample for comparisons: request flow id, kind, PSN,
// request and response times.
type smp struct {
	Flow     string
	Kind     string
	PSN      uint32
	Req, Rsp int64
}

// fetchAdd is an RC FETCH_ADD A->B to QP qp.
func fetchAdd(ts int64, qp, psn uint32) *decode.Packet {
	p := req(ts, ipA, ipB, qp, decode.Opcode(decode.OpFetchAdd), psn)
	p.PayloadLen = 0
	return p
}

// atomicAck is an ATOMIC ACKNOWLEDGE B->A to QP qp.
func atomicAck(ts int64, qp, psn uint32) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.Opcode(decode.OpAtomicAcknowledge), psn)
	p.Ext = decode.ExtAETH | decode.ExtAtomicAckETH
	p.AETH.Syndrome = 0x1F
	return p
}

// sendOnly is an RC SEND Only A->B to QP qp.
func sendOnly(ts int64, qp, psn uint32) *decode.Packet {
	return req(ts, ipA, ipB, qp, decode.Opcode(decode.OpSendOnly), psn)
}

// runSamples observes ps (in that order) and returns the samples the sink
// received, and the table.
func runSamples(t *testing.T, cfg Config, ps ...*decode.Packet) ([]smp, *Table) {
	t.Helper()
	var got []smp
	cfg.LatencySink = func(s LatencySample) {
		if s.LatencyNs() != s.ResponseTsNs-s.RequestTsNs {
			t.Errorf("LatencyNs %d", s.LatencyNs())
		}
		got = append(got, smp{s.Flow.ID(), s.Kind.String(), uint32(s.PSN), s.RequestTsNs, s.ResponseTsNs})
	}
	return got, run(t, cfg, ps...)
}

// Flows: A->B:0x11 sends the requests, B->A:0x22 the responses; every
// sample's request flow is idAB11. Each case's expectation is worked out
// in its comment.
func TestLatencySamples(t *testing.T) {
	pmtu1024 := Config{PMTU: 1024}
	tests := []struct {
		name string
		cfg  Config
		ps   []*decode.Packet
		want []smp
	}{
		// Coalesced: three WRITEs at 1000, 1100, 1200, one ACK naming 12
		// at 1500 (it also pairs the flows): one sample, 1500 - 1200.
		{"coalesced ack", Config{}, []*decode.Packet{
			wr(1000, 0x11, 10), wr(1100, 0x11, 11), wr(1200, 0x11, 12), ack(1500, 0x22, 12),
		}, []smp{{idAB11, "ack", 12, 1200, 1500}}},
		// ACK 11 at 1300 gives 1300 - 1100; ACK 10 (behind the highest ACK
		// PSN 11) and ACK 11 again (not ahead) give none; ACK 12 (ahead)
		// gives 1600 - 1200.
		{"ack already acked", Config{}, []*decode.Packet{
			wr(1000, 0x11, 10), wr(1100, 0x11, 11), ack(1300, 0x22, 11), wr(1200, 0x11, 12),
			ack(1400, 0x22, 10), ack(1500, 0x22, 11), ack(1600, 0x22, 12),
		}, []smp{{idAB11, "ack", 11, 1100, 1300}, {idAB11, "ack", 12, 1200, 1600}}},
		// 11 is replayed at 1200 (Karn): ACK 11 gives nothing; ACK 10 at
		// 1250 still does (10 was sent once): 1250 - 1000.
		{"replayed psn", Config{}, []*decode.Packet{
			wr(1000, 0x11, 10), wr(1100, 0x11, 11), wr(1200, 0x11, 11), ack(1250, 0x22, 10), ack(1300, 0x22, 11),
		}, []smp{{idAB11, "ack", 10, 1000, 1250}}},
		// PMTU 1024: READ 3000 B at 10 takes ceil(3000/1024) = 3 PSNs
		// (10..12). First at 1100 -> read_first 100; Last (PSN 12) at
		// 1120 -> read 120.
		{"read known pmtu", pmtu1024, []*decode.Packet{
			read(1000, 0x11, 10, 3000),
			resp(1100, 0x22, decode.OpReadResponseFirst, 10, 1024), resp(1110, 0x22, decode.OpReadResponseMiddle, 11, 1024),
			resp(1120, 0x22, decode.OpReadResponseLast, 12, 952),
		}, []smp{{idAB11, "read_first", 10, 1000, 1100}, {idAB11, "read", 10, 1000, 1120}}},
		// PMTU unknown and no First/Middle to learn it from: the range is
		// ceil(3000/256) = 12 PSNs (10..21), so a Last at 12 (1120) is in
		// it: read 120; no First, no read_first.
		{"read unknown pmtu", Config{}, []*decode.Packet{
			read(1000, 0x11, 10, 3000), resp(1120, 0x22, decode.OpReadResponseLast, 12, 952),
		}, []smp{{idAB11, "read", 10, 1000, 1120}}},
		// At PMTU 1024 a READ of 512 B takes 1 PSN: an Only at 1050 gives
		// read_first and read, both 50.
		{"read only", pmtu1024, []*decode.Packet{
			read(1000, 0x11, 10, 512), resp(1050, 0x22, decode.OpReadResponseOnly, 10, 512),
		}, []smp{{idAB11, "read_first", 10, 1000, 1050}, {idAB11, "read", 10, 1000, 1050}}},
		// Re-read: First at 1100 (read_first 100), then the requester
		// re-reads from 11 at 1150 (inside 10..12): the Last at 1200 gives
		// no read sample.
		{"re-read", pmtu1024, []*decode.Packet{
			read(1000, 0x11, 10, 3000), resp(1100, 0x22, decode.OpReadResponseFirst, 10, 1024),
			read(1150, 0x11, 11, 1976), resp(1200, 0x22, decode.OpReadResponseLast, 12, 952),
		}, []smp{{idAB11, "read_first", 10, 1000, 1100}}},
		// FETCH_ADD 10 at 1000, ATOMIC ACK 10 at 1300: atomic 300; a plain
		// ACK naming 10 at 1400 gives no ack sample (not a SEND/WRITE); the
		// WRITE at 900 is never acked.
		{"atomic", Config{}, []*decode.Packet{
			wr(900, 0x11, 9), fetchAdd(1000, 0x11, 10), atomicAck(1300, 0x22, 10), ack(1400, 0x22, 10),
		}, []smp{{idAB11, "atomic", 10, 1000, 1300}}},
		// Merged files with unsynchronised clocks: the ACK for 10 is
		// stamped 1500, before the request stamped 2000 that was observed
		// first: no sample. The ACK for 11 (2200 - 2100) gives one.
		{"response before request", Config{}, []*decode.Packet{
			wr(2000, 0x11, 10), ack(1500, 0x22, 10), wr(2100, 0x11, 11), ack(2200, 0x22, 11),
		}, []smp{{idAB11, "ack", 11, 2100, 2200}}},
		// PSN wrap (serial arithmetic mod 2^24): WRITEs 0xFFFFFF at 1000
		// and 0 at 1100; ACK 0 at 1200 is ahead of nothing yet: 1200 -
		// 1100; ACK 0xFFFFFF at 1300 is behind 0: none; WRITE 1 at 1400,
		// ACK 1 at 1500: 1500 - 1400.
		{"ack across psn wrap", Config{}, []*decode.Packet{
			wr(1000, 0x11, 0xFFFFFF), wr(1100, 0x11, 0), ack(1200, 0x22, 0), ack(1300, 0x22, 0xFFFFFF),
			wr(1400, 0x11, 1), ack(1500, 0x22, 1),
		}, []smp{{idAB11, "ack", 0, 1100, 1200}, {idAB11, "ack", 1, 1400, 1500}}},
		// "An earlier ACK on F" is an ACK syndrome ACKNOWLEDGE only: the NAK
		// naming 12 at 1200 does not raise the ACK high-water mark, so ACK
		// 12 at 1300 gives 1300 - 1150.
		{"nak is not an earlier ack", Config{}, []*decode.Packet{
			wr(1000, 0x11, 10), ack(1050, 0x22, 10), wr(1100, 0x11, 11), wr(1150, 0x11, 12),
			nak(1200, 0x22, 12, 0), ack(1300, 0x22, 12),
		}, []smp{{idAB11, "ack", 10, 1000, 1050}, {idAB11, "ack", 12, 1150, 1300}}},
		// Nor is a READ Response: READ 11 (one PSN) answered at 1100, then
		// an ACK naming 10 at 1200 names 10 for the first time: 1200 - 1000.
		{"read response is not an earlier ack", pmtu1024, []*decode.Packet{
			wr(1000, 0x11, 10), read(1010, 0x11, 11, 100), resp(1100, 0x22, decode.OpReadResponseOnly, 11, 100),
			ack(1200, 0x22, 10),
		}, []smp{{idAB11, "read_first", 11, 1010, 1100}, {idAB11, "read", 11, 1010, 1100}, {idAB11, "ack", 10, 1000, 1200}}},
		// The re-read rule applies to read_first too: the re-read from 11
		// at 1050 comes before the First at 1100: no sample at all.
		{"re-read before the first response", pmtu1024, []*decode.Packet{
			read(1000, 0x11, 10, 3000), read(1050, 0x11, 11, 1976),
			resp(1100, 0x22, decode.OpReadResponseFirst, 10, 1024), resp(1200, 0x22, decode.OpReadResponseLast, 12, 952),
		}, nil},
		// In timestamp order the ACK at 900 precedes every request: it
		// pairs nothing and names 10 before the request exists; the ACK
		// for 11 gives 1200 - 1100.
		{"response first in merged order", Config{}, []*decode.Packet{
			ack(900, 0x22, 10), wr(1000, 0x11, 10), wr(1100, 0x11, 11), ack(1200, 0x22, 11),
		}, []smp{{idAB11, "ack", 11, 1100, 1200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, tb := runSamples(t, tt.cfg, tt.ps...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("samples\n got %+v\nwant %+v", got, tt.want)
			}
			// The table keeps the values per request flow and kind.
			f := flowAB(tb, 0x11)
			for k := range NumLatencyKinds {
				var want []int64
				for _, s := range tt.want {
					if s.Kind == k.String() {
						want = append(want, s.Rsp-s.Req)
					}
				}
				if got := f.Latencies(k); !slices.Equal(got, want) {
					t.Errorf("%s values %v, want %v", k, got, want)
				}
				if got := flowBA(tb, 0x22).Latencies(k); len(got) != 0 {
					t.Errorf("response flow has %s values %v", k, got)
				}
			}
		})
	}
}

// The request memory keeps at least the latest 1024 unanswered requests of
// a paired flow: WRITE 0 and its ACK pair the flows (sample 1 - 0), then
// 3000 WRITEs (PSN i at 10*i), none answered. The memory grows to 1024
// entries and then forgets the oldest: it holds 1977..3000 (3000 - 1023 =
// 1977), so an ACK naming 1977 at 40 000 gives 40 000 - 19 770.
func TestLatencyMemoryBound(t *testing.T) {
	var ps []*decode.Packet
	ps = append(ps, wr(0, 0x11, 0), ack(1, 0x22, 0)) // pairs; sample 1 - 0
	for i := 1; i <= 3000; i++ {
		ps = append(ps, wr(int64(i)*10, 0x11, uint32(i)))
	}
	ps = append(ps, ack(40_000, 0x22, 1977))
	got, tb := runSamples(t, Config{}, ps...)
	want := []smp{{idAB11, "ack", 0, 0, 1}, {idAB11, "ack", 1977, 19770, 40_000}}
	if !slices.Equal(got, want) {
		t.Errorf("samples %+v, want %+v", got, want)
	}
	l := &flowAB(tb, 0x11).cold.mem
	if n := len(l.ring); n != reqMemPaired {
		t.Errorf("ring size %d, want %d", n, reqMemPaired)
	}
	// The oldest remembered is PSN 3000 - 1023 = 1977 (1024 entries).
	if e := l.at(l.tail); e.psn() != 1977 || l.head-l.tail != reqMemPaired {
		t.Errorf("oldest %d, %d entries", e.psn(), l.head-l.tail)
	}
}

// Answered requests leave the memory: 10 000 WRITEs each acked at once stay
// within the first ring (4 entries), with no allocation per packet.
func TestLatencyMemoryAnswered(t *testing.T) {
	tb := NewTable(Config{})
	for i := range 10_000 {
		tb.Observe(wr(int64(i)*10, 0x11, uint32(i)))
		tb.Observe(ack(int64(i)*10+5, 0x22, uint32(i)))
	}
	f := flowAB(tb, 0x11)
	if n := len(f.cold.mem.ring); n != reqMemStart {
		t.Errorf("ring %d entries, want %d", n, reqMemStart)
	}
	if n := len(f.Latencies(LatencyAck)); n != 10_000 {
		t.Errorf("%d samples", n)
	}
}

// idle_ns and since_original_ns of replays. WRITEs 10 at 1000, 11 at
// 1100; 11 replayed at 1200: idle = 1200 - 1100 (the latest request) =
// 100, since_original = 1200 - 1100 = 100. A gap skips 13 (12 at 1300, 14
// at 1400); 13 sent at 1500 is behind (replay) but was never seen: idle
// 1500 - 1400 = 100, since_original null.
func TestReplayStall(t *testing.T) {
	tb := run(t, Config{},
		wr(1000, 0x11, 10), wr(1100, 0x11, 11), wr(1200, 0x11, 11),
		wr(1300, 0x11, 12), wr(1400, 0x11, 14), wr(1500, 0x11, 13), wr(1600, 0x11, 15))
	type stall struct {
		PSN         PSN
		Idle, Since int64
		HasSince    bool
	}
	var got []stall
	for _, e := range tb.Events() {
		if e.Kind == EventRetransmission {
			got = append(got, stall{e.PSN, e.IdleNs(), e.SinceOriginalNs(), e.HasSinceOriginal()})
		}
	}
	want := []stall{{11, 100, 100, true}, {13, 100, 0, false}}
	if !slices.Equal(got, want) {
		t.Errorf("replays %+v, want %+v", got, want)
	}
}

// A timeout replay after ~4.2 ms: WRITEs 10 at 0 and 11 at 1000, then 11
// again at 1000 + 4 200 000: idle_ns = since_original_ns = 4 200 000.
func TestReplayStallTimeout(t *testing.T) {
	tb := run(t, Config{}, wr(0, 0x11, 10), wr(1000, 0x11, 11), wr(4_201_000, 0x11, 11))
	evs := tb.Events()
	if len(evs) != 1 || evs[0].Kind != EventRetransmission || evs[0].IdleNs() != 4_200_000 ||
		!evs[0].HasSinceOriginal() || evs[0].SinceOriginalNs() != 4_200_000 || evs[0].HasAfterNAK() {
		t.Fatalf("events %+v", evs)
	}
}

// PMTU mismatch, as in rxe_devstack_read_2400b_stall.pcapng: the responder
// answers a READ in n packets at PMTU 1024; the requester, at a larger
// PMTU, numbers its next SEND inside the READ's range.
//   - 2400 B: responses 1024 + 1024 + 352 at PSN 10..12 (n = 3); SEND at
//     12 = 10 + ceil(2400/2048): sender_span 2 (only 2048 gives 2; 4096
//     gives 1), read_span 3 (only 1024 gives 3; 512 gives 5).
//   - 5000 B: responses 4 x 1024 + 904 at 10..14 (n = 5); SEND at 12 = 10 +
//     ceil(5000/4096): sender_span 2 (only 4096; 2048 gives 3), read_span
//     5 (only 1024).
//
// Either way the SEND is no replay, the expected PSN becomes 13, and a
// WRITE at 13 follows without a gap or replay.
func TestPSNConflict(t *testing.T) {
	tests := []struct {
		l                   int
		n                   int32
		senderPMTUs, respPM uint8 // bit i: 256 << i
	}{
		{2400, 3, 1 << 3, 1 << 2},
		{5000, 5, 1 << 4, 1 << 2},
	}
	for _, tt := range tests {
		for _, cfg := range []Config{{}, {PMTU: 1024}} {
			ps := []*decode.Packet{read(1000, 0x11, 10, uint32(tt.l))}
			ps = append(ps, readResponses(1100, 0x22, 10, tt.l, 1024, nil)...)
			ps = append(ps, sendOnly(2000, 0x11, 12), wr(2100, 0x11, 13))
			tb := run(t, cfg, ps...)
			evs := tb.Events()
			if len(evs) != 1 {
				t.Fatalf("L=%d cfg %+v: events %+v", tt.l, cfg, compact(tb))
			}
			e := evs[0]
			if e.Kind != EventPSNConflict || e.TsNs != 2000 || e.PSN != 12 || e.ReadPSN() != 10 || e.ReadSpan() != tt.n ||
				e.SenderSpan() != 2 || e.Opcode() != uint8(decode.OpSendOnly) || e.SenderPMTUs() != tt.senderPMTUs || e.ResponderPMTUs() != tt.respPM {
				t.Errorf("L=%d cfg %+v: event %+v", tt.l, cfg, e)
			}
			if f := flowAB(tb, 0x11); f.Retransmitted != 0 || f.PSNGaps != 0 {
				t.Errorf("L=%d: retransmitted %d, gaps %d", tt.l, f.Retransmitted, f.PSNGaps)
			}
		}
	}
}

// With the PMTU unknown (auto, no First/Middle seen, no response) a SEND
// inside a READ's possible range is read as the psn_gap rules read it: READ
// 2400 B at 10, SEND at 12: the advance 2 is the candidate ceil(2400/2048),
// so no event at all. And a SEND that is not the READ's next request (a
// WRITE came between) is no conflict either: READ 2400 B at 10 at PMTU
// 1024 (10..12), WRITE 13, then SEND 11: a replay.
func TestPSNConflictNot(t *testing.T) {
	tb := run(t, Config{}, read(1000, 0x11, 10, 2400), sendOnly(2000, 0x11, 12))
	if evs := compact(tb); len(evs) != 0 {
		t.Errorf("unknown PMTU: events %+v", evs)
	}
	tb = run(t, Config{PMTU: 1024}, read(1000, 0x11, 10, 2400), wr(1500, 0x11, 13), sendOnly(2000, 0x11, 11))
	want := []ev{{Kind: "retransmission", Ts: 2000, Flow: idAB11, PSN: 11, N: 1, Extra: -1}}
	checkEvents(t, tb, want)
}
