package points

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// frame is one frame at one point of a hand-written scenario.
type frame struct {
	point int
	ts    int64
	psn   uint32
	dir   int // 0: A -> B (QP 0x11), 1: B -> A (QP 0x22)
}

const opWriteOnly = 0x0A // RC RDMA WRITE Only

func packet(f frame) decode.Packet {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	qp := uint32(0x11)
	if f.dir == 1 {
		a, b, qp = b, a, 0x22
	}
	p := decode.Packet{TsNs: f.ts, Kind: decode.KindRoCE, HasBTH: true, SrcIP: a, DstIP: b,
		ICRCStatus: decode.ICRCOK, ICRC: 0xC0DE0000 + f.psn}
	p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = opWriteOnly, qp, f.psn
	return p
}

// run feeds frames (already in time order) to a matcher of n points.
func run(n int, fs []frame) []Hop {
	m := NewMatcher(n, 0)
	for _, f := range fs {
		p := packet(f)
		m.Observe(f.point, &p)
	}
	return m.Finish()
}

// two returns frames of psns seen at point 0 at t0+100*i and at point 1
// delay later, leaving out the psns in drop1 (at point 1) and drop0 (at 0).
func two(psns []uint32, delay int64, drop0, drop1 map[uint32]bool) []frame {
	var fs []frame
	for i, psn := range psns {
		t := 1000 + 100*int64(i)
		if !drop0[psn] {
			fs = append(fs, frame{point: 0, ts: t, psn: psn})
		}
		if !drop1[psn] {
			fs = append(fs, frame{point: 1, ts: t + delay, psn: psn})
		}
	}
	sortFrames(fs)
	return fs
}

func sortFrames(fs []frame) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].ts < fs[j-1].ts; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

func TestMatcherScenarios(t *testing.T) {
	psns := []uint32{1, 2, 3, 4, 5}
	tests := []struct {
		name                  string
		n                     int
		fs                    []frame
		from, to              int
		matched, lost, unseen int64
		delay                 Delay
		lostPSN               []uint32
		lostTs                []int64
	}{
		{
			// 5 frames 100 ns apart, each 40 ns later at point 1: d = 40 for all.
			name: "delay", n: 2, fs: two(psns, 40, nil, nil),
			from: 0, to: 1, matched: 5, delay: Delay{5, 40, 40, 40, 40},
		},
		{
			// PSN 3 (at 0 at 1000+200 = 1200) never reaches point 1: lost 1,
			// the other 4 match.
			name: "lost between", n: 2, fs: two(psns, 40, nil, map[uint32]bool{3: true}),
			from: 0, to: 1, matched: 4, lost: 1, delay: Delay{4, 40, 40, 40, 40},
			lostPSN: []uint32{3}, lostTs: []int64{1200},
		},
		{
			// point 0 missed PSN 2: unseen upstream 1.
			name: "unseen upstream", n: 2, fs: two(psns, 40, map[uint32]bool{2: true}, nil),
			from: 0, to: 1, matched: 4, unseen: 1, delay: Delay{4, 40, 40, 40, 40},
		},
		{
			// PSN 1 and 5 lost: outside the first (2) .. last (4) match, not
			// counted; matched 3.
			name: "outside the matched range", n: 2, fs: two(psns, 40, nil, map[uint32]bool{1: true, 5: true}),
			from: 0, to: 1, matched: 3, delay: Delay{3, 40, 40, 40, 40},
		},
		{
			// point 1's clock is 500 ns behind: d = 40 - 500 = -460 < 0, so
			// from = point 1 and the delay is +460. Point 1 (now upstream)
			// lacks PSN 3, seen only at point 0 = "to": unseen_upstream 1.
			name: "reversed clocks", n: 2, fs: two(psns, -460, nil, map[uint32]bool{3: true}),
			from: 1, to: 0, matched: 4, unseen: 1, delay: Delay{4, 460, 460, 460, 460},
		},
		{
			// jitter: delays 40, 50, 60, 70, 1000 -> sorted; p50 = 3rd = 60,
			// p99 = ceil(4.95) = 5th = 1000.
			name: "jitter", n: 2, fs: jitter([]int64{40, 50, 60, 70, 1000}),
			from: 0, to: 1, matched: 5, delay: Delay{5, 40, 60, 1000, 1000},
		},
		{
			// PSN 2 sent twice at point 0 (t 1100, 1150: a replay), the
			// replay lost before point 1: the 1st occurrence matches the
			// 1st (d 40); the 2nd, at 1150, between matches, is lost.
			name: "duplicates", n: 2, fs: dup(),
			from: 0, to: 1, matched: 3, lost: 1, delay: Delay{3, 40, 40, 40, 40},
			lostPSN: []uint32{2}, lostTs: []int64{1150},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hops := run(tc.n, tc.fs)
			if len(hops) != 1 {
				t.Fatalf("hops = %d, want 1: %+v", len(hops), hops)
			}
			h := hops[0]
			if h.From != tc.from || h.To != tc.to || h.Matched != tc.matched || h.Lost != tc.lost || h.UnseenUpstream != tc.unseen {
				t.Errorf("hop %d->%d matched %d lost %d unseen %d, want %d->%d %d %d %d",
					h.From, h.To, h.Matched, h.Lost, h.UnseenUpstream, tc.from, tc.to, tc.matched, tc.lost, tc.unseen)
			}
			if h.Delay != tc.delay {
				t.Errorf("delay %+v, want %+v", h.Delay, tc.delay)
			}
			if len(h.LostFrames) != len(tc.lostPSN) {
				t.Fatalf("lost frames %+v, want psns %v", h.LostFrames, tc.lostPSN)
			}
			for i, f := range h.LostFrames {
				if f.PSN != tc.lostPSN[i] || f.TsNs != tc.lostTs[i] {
					t.Errorf("lost frame %d = %+v, want psn %d ts %d", i, f, tc.lostPSN[i], tc.lostTs[i])
				}
			}
		})
	}
}

func jitter(ds []int64) []frame {
	var fs []frame
	for i, d := range ds {
		t := 1000 + 10_000*int64(i)
		fs = append(fs, frame{point: 0, ts: t, psn: uint32(i + 1)}, frame{point: 1, ts: t + d, psn: uint32(i + 1)})
	}
	sortFrames(fs)
	return fs
}

func dup() []frame {
	fs := []frame{
		{0, 1000, 1, 0}, {1, 1040, 1, 0},
		{0, 1100, 2, 0}, {1, 1140, 2, 0},
		{0, 1150, 2, 0}, // replay of PSN 2, lost
		{0, 1200, 3, 0}, {1, 1240, 3, 0},
	}
	return fs
}

// TestMatcherThreePointsBothDirections: three points on one path A -> P0 ->
// P1 -> P2 -> B for the request flow (delays 10 and 20), and the ACK flow
// B -> A seen at P2 first: each flow gets three hops; the ACK flow's are
// oriented 2->1, 2->0 and 1->0.
func TestMatcherThreePointsBothDirections(t *testing.T) {
	var fs []frame
	for i := uint32(0); i < 3; i++ {
		t0 := 1000 + 1000*int64(i)
		fs = append(fs, frame{0, t0, i, 0}, frame{1, t0 + 10, i, 0}, frame{2, t0 + 30, i, 0})
		ta := t0 + 500 // the ACK leaves B, reaches P2, P1, P0
		fs = append(fs, frame{2, ta, i, 1}, frame{1, ta + 20, i, 1}, frame{0, ta + 30, i, 1})
	}
	sortFrames(fs)
	hops := run(3, fs)
	type want struct {
		dir      int
		from, to int
		delay    int64
	}
	wants := []want{{0, 0, 1, 10}, {0, 0, 2, 30}, {0, 1, 2, 20}, {1, 1, 0, 10}, {1, 2, 0, 30}, {1, 2, 1, 20}}
	if len(hops) != len(wants) {
		t.Fatalf("hops = %d, want 6: %+v", len(hops), hops)
	}
	for _, w := range wants {
		found := false
		for _, h := range hops {
			if (h.Flow.DstQPN == 0x22) == (w.dir == 1) && h.From == w.from && h.To == w.to {
				found = true
				if h.Matched != 3 || h.Delay != (Delay{3, w.delay, w.delay, w.delay, w.delay}) || h.Lost != 0 {
					t.Errorf("hop %+v: matched %d delay %+v lost %d", w, h.Matched, h.Delay, h.Lost)
				}
			}
		}
		if !found {
			t.Errorf("no hop %+v", w)
		}
	}
}

// TestMatcherMemory: a long two-point stream (200k frames at 1 frame per
// 100 us, 20 s of stream time, every 10th lost between the points). A frame
// seen at both points is resolved at once; a lost one waits for the window
// (1 s): 1 s / (10 x 100 us) = 1000 lost frames in flight, + 1 frame between
// the points. The FIFO ring (compacted when half stale) stays at 4096.
func TestMatcherMemory(t *testing.T) {
	m := NewMatcher(2, 0)
	const n, step = 200_000, 100_000
	maxEntries, maxRing := 0, 0
	for i := 0; i < n; i++ {
		ts := int64(i) * step
		p := packet(frame{0, ts, uint32(i) & 0xFFFFFF, 0})
		m.Observe(0, &p)
		if i%10 != 5 {
			q := packet(frame{1, ts + 5_000, uint32(i) & 0xFFFFFF, 0})
			m.Observe(1, &q)
		}
		e, r, _ := m.InFlight()
		maxEntries, maxRing = max(maxEntries, e), max(maxRing, r)
	}
	if maxEntries > 1001 || maxRing > 4096 {
		t.Errorf("in flight at most %d entries, ring %d: want <= 1001, 4096", maxEntries, maxRing)
	}
	hops := m.Finish()
	// 20_000 lost (i%10 == 5 for i < 200_000); the last lost one (199_995)
	// is before the last match (199_999): all counted.
	if len(hops) != 1 || hops[0].Matched != 180_000 || hops[0].Lost != 20_000 {
		t.Fatalf("hops %+v", hops)
	}
}

func TestShared(t *testing.T) {
	s := NewShared(3)
	// files 0 and 1 hold the same 4 frames; file 2 holds 2 others and one
	// of them; file 0 also holds frame psn 9 twice (a replay, k-th to k-th:
	// file 1 has it once: 1 shared).
	add := func(file int, ts int64, psn uint32) {
		p := packet(frame{file, ts, psn, 0})
		s.Observe(file, &p)
	}
	for i := uint32(0); i < 4; i++ {
		add(0, int64(100*i), i)
		add(1, int64(100*i+5), i)
	}
	add(2, 500, 100)
	add(2, 510, 101)
	add(2, 520, 3)
	add(0, 600, 9)
	add(0, 610, 9)
	add(1, 620, 9)
	roce, pairs := s.Finish()
	// 0-1: psns 0..3 (4) + psn 9 (min(2,1) = 1) = 5; 0-2 and 1-2: psn 3.
	want := []SharedPair{{0, 1, 5}, {0, 2, 1}, {1, 2, 1}}
	if len(pairs) != 3 || pairs[0] != want[0] || pairs[1] != want[1] || pairs[2] != want[2] {
		t.Errorf("pairs %+v, want %+v", pairs, want)
	}
	if roce[0] != 6 || roce[1] != 5 || roce[2] != 3 {
		t.Errorf("roce %v, want [6 5 3]", roce)
	}
}

// TestMatcherWindowMemory: with nothing matched (one point's traffic
// only), every identity waits for the window: 1 s / 100 us = 10_000 in
// flight (+1 at the boundary), whatever the stream's length.
func TestMatcherWindowMemory(t *testing.T) {
	m := NewMatcher(2, 0)
	maxEntries := 0
	for i := 0; i < 100_000; i++ {
		p := packet(frame{0, int64(i) * 100_000, uint32(i) & 0xFFFFFF, 0})
		m.Observe(0, &p)
		e, _, _ := m.InFlight()
		maxEntries = max(maxEntries, e)
	}
	if maxEntries > 10_001 {
		t.Errorf("in flight at most %d entries, want <= 10001", maxEntries)
	}
	if hops := m.Finish(); len(hops) != 0 {
		t.Errorf("hops %+v", hops)
	}
}

// TestMatcherUnmatchedHop: both points see the flow but no frame of it
// matches (different PSNs): one hop, matched 0, from the earlier point.
func TestMatcherUnmatchedHop(t *testing.T) {
	hops := run(2, []frame{{0, 1000, 1, 0}, {1, 1040, 7, 0}})
	if len(hops) != 1 || hops[0].From != 0 || hops[0].To != 1 || hops[0].Matched != 0 || hops[0].Lost != 0 || hops[0].Delay != (Delay{}) {
		t.Errorf("hops %+v", hops)
	}
}

// TestMatcherObserveNoAllocs: in steady state (known flow, frames matched
// at both points, same delays) Observe allocates nothing: entries are
// recycled, the delay histogram only counts.
func TestMatcherObserveNoAllocs(t *testing.T) {
	m := NewMatcher(2, 0)
	i := 0
	step := func() {
		ts := int64(i) * 1000
		p := packet(frame{0, ts, uint32(i%4096) & 0xFFFFFF, 0})
		m.Observe(0, &p)
		q := packet(frame{1, ts + 40, uint32(i%4096) & 0xFFFFFF, 0})
		m.Observe(1, &q)
		i++
	}
	for range 10_000 {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Errorf("%v allocations per matched frame pair, want 0", a)
	}
}
