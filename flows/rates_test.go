package flows

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// rw is a RateWindow with the flow as its id, for comparisons.
type rw struct {
	Flow                                        string
	Start                                       int64
	Packets, Bytes, Payload, CE, CNPs, CNPsRecv int64
}

func collect(out *[]rw) func(RateWindow) {
	return func(w RateWindow) {
		*out = append(*out, rw{w.Flow.ID(), w.StartNs, w.Packets, w.Bytes, w.PayloadBytes, w.ECNCE, w.CNPs, w.CNPsReceived})
	}
}

// TestRateWindows works the windows of a small capture out by hand: W =
// 1000 ns, A->B qp 0x11 WRITE Onlies (130 wire bytes, 64 payload each) at
// 999, 1000 (exactly k·W: window 1), 1500 (CE), 3999, and a CNP B->A (100
// wire bytes) at 2500 whose target is A->B (the only unpaired flow A->B).
func TestRateWindows(t *testing.T) {
	const ab, ba = "10.0.0.1>10.0.0.2:qp0x000011", "10.0.0.2>10.0.0.1:qp0x000011"
	tests := []struct {
		name string
		bin  int64
		want []rw
		peak int64 // A->B's PeakWindowBytes
	}{
		{"W=1000ns", 1000, []rw{
			// Closed in capture order: window 0 at the frame of 1000, window 1
			// at the CNP of 2500 (it names A->B), window 2 (the CNP only) at
			// 3999; at Finish the last windows, A->B then B->A.
			{ab, 0, 1, 130, 64, 0, 0, 0},
			{ab, 1000, 2, 260, 128, 1, 0, 0},
			{ab, 2000, 0, 0, 0, 0, 0, 1},
			{ab, 3000, 1, 130, 64, 0, 0, 0},
			{ba, 2000, 1, 100, 0, 0, 1, 0},
		}, 260},
		{"W=2000ns", 2000, []rw{
			// 999, 1000 and 1500 are window 0 ([0, 2000)); the CNP of 2500
			// and 3999 are window 1 ([2000, 4000)).
			{ab, 0, 3, 390, 192, 1, 0, 0},
			{ab, 2000, 1, 130, 64, 0, 0, 1},
			{ba, 2000, 1, 100, 0, 0, 1, 0},
		}, 390},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []rw
			tb := run(t, Config{Bin: tc.bin, RateSink: collect(&got)},
				wr(999, 0x11, 0), wr(1000, 0x11, 1), ce(wr(1500, 0x11, 2)), cnp(2500, 0x11), wr(3999, 0x11, 3))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("windows\n got  %v\n want %v", got, tc.want)
			}
			if p := flowAB(tb, 0x11).PeakWindowBytes(); p != tc.peak {
				t.Errorf("peak = %d, want %d", p, tc.peak)
			}
			if p := flowBA(tb, 0x11).PeakWindowBytes(); p != 100 {
				t.Errorf("CNP flow peak = %d, want 100", p)
			}
		})
	}
}

// TestRateWindowEdges: a one-frame flow (its window from FirstTsNs and its
// totals, no cold state), negative times (floor division), a frame earlier
// than the current window (counted in it), and a window at the end of time
// (its end saturates).
func TestRateWindowEdges(t *testing.T) {
	const ab = "10.0.0.1>10.0.0.2:qp0x000011"
	tests := []struct {
		name string
		ps   []*decode.Packet
		want []rw
	}{
		{"one frame", []*decode.Packet{wr(2_500_123, 0x11, 0)}, []rw{{ab, 2_000_000, 1, 130, 64, 0, 0, 0}}},
		// -1 is in window -1 ([-1e6, 0)); 0 in window 0.
		{"negative", []*decode.Packet{wr(-1, 0x11, 0), wr(0, 0x11, 1)},
			[]rw{{ab, -1_000_000, 1, 130, 64, 0, 0, 0}, {ab, 0, 1, 130, 64, 0, 0, 0}}},
		// 3.5 ms opens window 3 ms; 1.2 ms (out of order) counts there.
		{"out of order", []*decode.Packet{wr(500, 0x11, 0), wr(3_500_000, 0x11, 1), wr(1_200_000, 0x11, 2)},
			[]rw{{ab, 0, 1, 130, 64, 0, 0, 0}, {ab, 3_000_000, 2, 260, 128, 0, 0, 0}}},
		// MaxInt64 = 9223372036854775807: window 9223372036854000000, whose
		// end (+1e6) would overflow.
		{"end of time", []*decode.Packet{wr(math.MaxInt64-1, 0x11, 0), wr(math.MaxInt64, 0x11, 1)},
			[]rw{{ab, 9_223_372_036_854_000_000, 2, 260, 128, 0, 0, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []rw
			tb := run(t, Config{RateSink: collect(&got)}, tc.ps...)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("windows\n got  %v\n want %v", got, tc.want)
			}
			if len(tc.ps) == 1 && flowAB(tb, 0x11).cold != nil {
				t.Errorf("a one-frame flow has cold state")
			}
		})
	}
}

// TestRateWindowSums: on a random mix of requests, ACKs, CE marks and CNPs
// over several QPs, every flow's windows add up to its counters, windows of
// one flow are distinct and non-empty, and PeakWindowBytes is their largest
// byte count.
func TestRateWindowSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var ps []*decode.Packet
	ts := int64(0)
	for i := range 3000 {
		ts += int64(rng.IntN(400_000))
		qp := uint32(0x100 + rng.IntN(4))
		var p *decode.Packet
		switch rng.IntN(4) {
		case 0:
			p = ack(ts, qp, uint32(i))
		case 1:
			p = cnp(ts, qp)
		default:
			p = wr(ts, qp, uint32(i))
		}
		if rng.IntN(5) == 0 {
			ce(p)
		}
		ps = append(ps, p)
	}
	var got []rw
	tb := run(t, Config{Bin: 700_000, RateSink: collect(&got)}, ps...)
	sums := map[string]rw{}
	peaks := map[string]int64{}
	seen := map[string]bool{}
	for _, w := range got {
		key := fmt.Sprint(w.Flow, w.Start)
		if seen[key] {
			t.Errorf("window %s twice", key)
		}
		seen[key] = true
		if w == (rw{Flow: w.Flow, Start: w.Start}) {
			t.Errorf("empty window %s", key)
		}
		s := sums[w.Flow]
		s.Packets, s.Bytes, s.Payload = s.Packets+w.Packets, s.Bytes+w.Bytes, s.Payload+w.Payload
		s.CE, s.CNPs, s.CNPsRecv = s.CE+w.CE, s.CNPs+w.CNPs, s.CNPsRecv+w.CNPsRecv
		sums[w.Flow] = s
		peaks[w.Flow] = max(peaks[w.Flow], w.Bytes)
	}
	received := int64(0)
	for _, f := range tb.Flows() {
		want := rw{Packets: f.Packets, Bytes: f.Bytes, Payload: f.PayloadBytes, CE: f.ECNCE, CNPs: f.CNPs, CNPsRecv: f.CNPsReceived}
		if g := sums[f.ID()]; g != want {
			t.Errorf("%s: windows sum to %+v, flow has %+v", f.ID(), g, want)
		}
		if peaks[f.ID()] != f.PeakWindowBytes() {
			t.Errorf("%s: peak %d, largest window %d", f.ID(), f.PeakWindowBytes(), peaks[f.ID()])
		}
		received += f.CNPsReceived
	}
	if received == 0 {
		t.Fatalf("no CNP found a target: the test checks nothing of cnps_received")
	}
}

// TestRateSinkNotCloned: a clone (the TUI's snapshots) finishes without
// handing windows to the original's sink.
func TestRateSinkNotCloned(t *testing.T) {
	var got []rw
	tb := NewTable(Config{RateSink: collect(&got)})
	tb.Observe(wr(1, 0x11, 0))
	tb.Observe(wr(2_000_000, 0x11, 1))
	tb.Clone().Finish()
	if len(got) != 1 { // window 0, closed by the frame at 2 ms
		t.Fatalf("after the clone's Finish: %d windows, want 1", len(got))
	}
	tb.Finish()
	if len(got) != 2 {
		t.Fatalf("after Finish: %d windows, want 2", len(got))
	}
}

// TestNextWindowStart checks that the division-free next window start is
// windowStart's, at the edges of int64 and of saturated windows too.
func TestNextWindowStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ws := []int64{1, 3, 1000, DefaultBinNs, math.MaxInt64 / 3, math.MaxInt64}
	// near returns a value within d of base, clamped to int64.
	near := func(base int64, d uint64) int64 {
		x := rng.Uint64N(2*min(d, 1<<62) + 1)
		v := base + int64(x) - int64(min(d, 1<<62))
		if (x > min(d, 1<<62)) && v < base {
			return math.MaxInt64
		}
		if (x < min(d, 1<<62)) && v > base {
			return math.MinInt64
		}
		return v
	}
	for range 200_000 {
		w := ws[rng.IntN(len(ws))]
		var start int64
		switch rng.IntN(3) {
		case 0:
			start = windowStart(near(0, 1<<40), w)
		case 1:
			start = windowStart(near(math.MaxInt64, 2*uint64(w)), w)
		default:
			start = windowStart(near(math.MinInt64, 2*uint64(w)), w)
		}
		var c flowCold
		c.openRate(start, w)
		end := int64(c.rateEndB ^ 1<<63)
		// a ts at or past the end: within two windows of it, or anywhere
		var ts int64
		if rng.IntN(2) == 0 {
			ts = near(end, 2*uint64(w))
		} else {
			ts = int64(rng.Uint64())
		}
		if ts < end {
			continue
		}
		if got, want := nextWindowStart(&c, ts, w), windowStart(ts, w); got != want {
			t.Fatalf("w %d start %d end %d ts %d: got %d want %d", w, start, end, ts, got, want)
		}
	}
}
