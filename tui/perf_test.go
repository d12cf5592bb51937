package tui

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// perfT0 is perfCapture's first frame: a whole number of milliseconds, so
// that the flow's frames all fall in one 1 ms rate window (peak_bps).
const perfT0 int64 = 1_767_323_045_000_000_000

// perfCapture: QP 0x11 on 10.0.0.1 (A) -> QP 0x22 on 10.0.0.2 (B), times
// after perfT0:
//
//   - +0: READ Request PSN 10 for 2400 B, numbered as PMTU 2048 (2 PSNs:
//     A's next request is PSN 12); +100, +101, +102 ns: B answers in 3
//     packets (PMTU 1024, PSNs 10..12): read sample 102 ns, read_first
//     100 ns.
//   - +2 µs: SEND Only PSN 12 (16 B), inside the READ's range [11, 12]: a
//     psn_conflict {psn 12, read_psn 10, read_span 3, sender_span 2}; ACK
//     PSN 12 at +5 µs: an ack sample of 3 µs.
//   - +i×10 µs, i = 1..10: WRITE Only PSN 12+i (1024 B), ACKed i µs later:
//     ack samples 1..10 µs.
//   - +200 µs: WRITE Only PSN 23, unanswered; +300 µs: the same PSN again
//     (a replay after a timeout: idle_ns = since_original_ns = 100 µs), ACKed
//     at +301 µs (no sample: Karn's rule).
func perfCapture(t testing.TB) string {
	c := &synth.Capture{}
	q := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 10, 5000)
	q.PMTU = 2048
	read := q.ReadRequest(synth.A, perfT0, 2400)
	q.PMTU = 1024
	q.ReadResponse(synth.B, perfT0+100, 1, read, 2400)
	_, psns := q.Send(synth.A, perfT0+2_000, 0, 16)
	q.Ack(synth.B, perfT0+5_000, psns[0])
	for i := int64(1); i <= 10; i++ {
		ts := perfT0 + i*10_000
		_, psns = q.Write(synth.A, ts, 0, 1024)
		q.Ack(synth.B, ts+i*1_000, psns[0])
	}
	_, psns = q.Write(synth.A, perfT0+200_000, 0, 1024)
	q.SetPSN(synth.A, psns[0])
	q.Write(synth.A, perfT0+300_000, 0, 1024)
	q.Ack(synth.B, perfT0+301_000, psns[0])
	c.Sort()
	return writeScenario(t, "latency_conflict", c, synth.PcapNanos)
}

func dcqcn(t testing.TB) string {
	return writeScenario(t, "dcqcn_reaction", synth.DCQCNReaction(), synth.PcapNanos)
}

// The overview's latency lines, the flow detail's latency, goodput and
// latency chart, the events' replay times and psn_conflict, and the kind
// filter, on perfCapture (expected values worked out in its comment).
func TestLatencyScreens(t *testing.T) {
	hs := newHarness(t, 120, 40, perfCapture(t))
	// ack: 11 samples, sorted 1, 2, 3, 3, 4, ..., 10 µs: p50 is the
	// ceil(0.5×11) = 6th (5 µs), p99 the ceil(0.99×11) = 11th (10 µs).
	hs.contains("ACK lat    11: p50 5 µs, p99 10 µs, max 10 µs")
	hs.contains("READ lat   1: p50 102 ns, p99 102 ns, max 102 ns")
	hs.contains("READ 1st   1: p50 100 ns, p99 100 ns, max 100 ns")

	hs.key(tcell.KeyEnter, 0) // the connection's data flow
	hs.contains("Flow #1")
	hs.contains("ACK lat   11: p50 5 µs, p99 10 µs, max 10 µs")
	hs.contains("READ lat  1: p50 102 ns, p99 102 ns, max 102 ns")
	// goodput: payload 16 + 12×1024 = 12,304 B over 300 µs:
	// floor(12304×8×10^9 / 300000) = 328,106,666 b/s. peak: every frame
	// in one 1 ms window, 74 (READ Request) + 74 (SEND) + 12×1098 (WRITE
	// Only) = 13,324 B: 13324×8×10^9 / 10^6 = 106,592,000 b/s.
	hs.contains("Goodput   328.1 Mb/s, peak 106.6 Mb/s")
	hs.contains("ACK latency") // the latency chart's band, to the largest sample
	hs.contains("0–10 µs max")
	hs.contains("READ lat.")
	hs.contains("0–102 ns max")

	hs = newHarness(t, 200, 50, hs.m.cfg.Paths[0]) // the details whole
	hs.key(tcell.KeyRune, '3')
	hs.contains("psn_conflict")
	hs.contains("RC_SEND_ONLY PSN 12 inside READ 10: span 3, sender's 2 (PMTU mismatch?)")
	hs.contains("replay from PSN 23, 1 packet, no NAK seen (timeout), idle 100 µs, 100 µs since the original")
	v := hs.u.events
	for range 7 { // all, psn_gap, ..., pause, psn_conflict
		hs.key(tcell.KeyRune, 't')
	}
	if v.kind != "psn_conflict" || len(v.rows) != 1 {
		t.Fatalf("kind %q: %d rows", v.kind, len(v.rows))
	}
}

// The DCQCN scenario's flow detail: the reaction line, the CNPs marked
// under the rate, and the selected CNP's rates in the rate chart's title.
func TestDCQCNDetail(t *testing.T) {
	hs := newHarness(t, 120, 40, dcqcn(t))
	hs.key(tcell.KeyRune, '2')
	hs.key(tcell.KeyEnter, 0) // flow #1: 10.0.0.1 QP 0x300 -> QP 0x301, the one that reacts
	hs.contains("Flow #1")
	// Its CNPs' ratios (the report's rates): 14961702127/24936170212 =
	// 0.600, 6934911242/12468085106 = 0.556, 3230875258/6242343541 =
	// 0.518; the nearest-rank median is the 2nd smallest, 0.556.
	hs.contains("DCQCN     3 CNPs with rates, median after/before 0.56")
	hs.contains("CNPs rx")
	hs.contains("3 CNPs")
	// The first event (selected) is the CNP at +5 µs.
	hs.contains("Rate, CNP +5 µs: rate 24.9 Gb/s → 15.0 Gb/s (×0.60)")
	hs.key(tcell.KeyDown, 0)
	hs.contains("Rate, CNP +15 µs: rate 12.5 Gb/s → 6.9 Gb/s (×0.56)")

	// Flow #2 ignores its CNPs: 3 of its 4 have both rates (the one at +30
	// µs has too few packets before the next CNP at +32 µs), ratio 1 each.
	hs.key(tcell.KeyEscape, 0)
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.contains("Flow #2")
	hs.contains("DCQCN     3 CNPs with rates, median after/before 1.00, no") // wrapped at 120 columns
	hs.contains("reaction (cc_no_reaction)")
}

// The golden screens of the new content, at every size.
func TestPerfScreens(t *testing.T) {
	for _, sc := range []struct {
		name    string
		capture func(t testing.TB) string
		keys    func(hs *harness)
	}{
		{"overview_latency", perfCapture, func(*harness) {}},
		{"detail_latency", perfCapture, func(hs *harness) { hs.key(tcell.KeyEnter, 0) }},
		{"events_latency", perfCapture, func(hs *harness) { hs.key(tcell.KeyRune, '3') }},
		{"detail_dcqcn", dcqcn, func(hs *harness) {
			hs.key(tcell.KeyRune, '2')
			hs.key(tcell.KeyEnter, 0)
		}},
		{"flows_dcqcn", dcqcn, func(hs *harness) { hs.key(tcell.KeyRune, '2') }},
	} {
		path := sc.capture(t)
		for _, sz := range screenSizes {
			name := sc.name
			if sz != [2]int{120, 40} {
				name = fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1])
			}
			t.Run(name, func(t *testing.T) {
				hs := newHarness(t, sz[0], sz[1], path)
				sc.keys(hs)
				hs.golden(name)
			})
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// The details of the new event kinds and fields, from hand-made events.
func TestNewEventDetails(t *testing.T) {
	for _, tc := range []struct {
		e    analysis.EventReport
		want string
	}{
		{analysis.EventReport{Kind: "retransmission", PSN: ptrTo[uint32](7), Packets: ptrTo[int64](2), AfterNAKNs: ptrTo[int64](1500),
			IdleNs: ptrTo[int64](2500)},
			"replay from PSN 7, 2 packets, 1.5 µs after the NAK, idle 2.5 µs"},
		{analysis.EventReport{Kind: "retransmission", PSN: ptrTo[uint32](7), Packets: ptrTo[int64](1),
			IdleNs: ptrTo[int64](4_000_000), SinceOriginalNs: ptrTo[int64](4_100_000)},
			"replay from PSN 7, 1 packet, no NAK seen (timeout), idle 4 ms, 4.1 ms since the original"},
		{analysis.EventReport{Kind: "psn_conflict", PSN: ptrTo[uint32](12), OpcodeName: ptrTo("RC_SEND_ONLY"), ReadPSN: ptrTo[uint32](10),
			ReadSpan: ptrTo[int64](3), SenderSpan: ptrTo[int64](2)},
			"RC_SEND_ONLY PSN 12 inside READ 10: span 3, sender's 2 (PMTU mismatch?)"},
		{analysis.EventReport{Kind: "hop_loss", PSN: ptrTo[uint32](103), OpcodeName: ptrTo("RC_RDMA_WRITE_ONLY"), From: ptrTo("up"), To: ptrTo("down")},
			"RC_RDMA_WRITE_ONLY PSN 103 lost between up and down"},
		// 10 Gb/s -> 5 Gb/s: ×0.50; no rate after: the window did not fill.
		{analysis.EventReport{Kind: "cnp", TargetFlow: ptrTo("f"), RateBeforeBps: ptrTo[int64](10_000_000_000), RateAfterBps: ptrTo[int64](5_000_000_000)},
			"→ f, rate 10.0 Gb/s → 5.0 Gb/s (×0.50)"},
		{analysis.EventReport{Kind: "cnp", TargetFlow: ptrTo("f"), RateBeforeBps: ptrTo[int64](10_000_000_000)},
			"→ f, rate 10.0 Gb/s → ? (too few packets after)"},
		{analysis.EventReport{Kind: "cnp", TargetFlow: ptrTo("f")}, "→ f"},
	} {
		if got := eventDetail(&tc.e, 0); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.e.Kind, got, tc.want)
		}
	}
}

// The loader's latency series keep the largest sample per bucket, and a
// wider grid keeps the larger of two merged buckets; CNP counts add.
func TestFlowMarksWiden(t *testing.T) {
	var tl timelines
	tl.bucket(0)         // origin 0, 1 µs timeline buckets: flow buckets of 4 µs
	f := new(flows.Flow) // flow index 0
	for _, s := range []struct{ ts, lat int64 }{{1_000, 700}, {3_000, 500}, {5_000, 900}} {
		tl.addLatency(&flows.LatencySample{Flow: f, Kind: flows.LatencyAck, RequestTsNs: s.ts - s.lat, ResponseTsNs: s.ts})
	}
	tl.addCNP(0, tl.bucket(2_000))
	tl.addCNP(0, tl.bucket(6_000))
	tl.flushFlows() // the sums of the current flow bucket (flowacc.go) into the series
	fm := tl.marks.flows[0]
	// flow bucket 0 is [0, 4 µs): max(700, 500); bucket 1 [4, 8 µs): 900.
	if fm.AckMaxNs[0] != 700 || fm.AckMaxNs[1] != 900 || fm.CNPs[0] != 1 || fm.CNPs[1] != 1 {
		t.Fatalf("before widening: ack %v cnps %v", fm.AckMaxNs[:2], fm.CNPs[:2])
	}
	tl.bucket(300_000) // past 256 µs: the width doubles, flow buckets 0 and 1 merge
	if fm.AckMaxNs[0] != 900 || fm.AckMaxNs[1] != 0 || fm.CNPs[0] != 2 {
		t.Fatalf("after widening: ack %v cnps %v", fm.AckMaxNs[:2], fm.CNPs[:2])
	}
	pub := tl.publishMarks(nil)
	if pub[0] == fm || pub[0].AckMaxNs == fm.AckMaxNs || pub[0].AckMaxNs[0] != 900 {
		t.Fatal("publishMarks did not copy")
	}
}
