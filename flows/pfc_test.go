package flows

import "testing"

func TestQuantaNs(t *testing.T) {
	tests := []struct {
		q    uint16
		bps  int64
		want int64
	}{
		{1, 100e9, 5},          // 512/100e9 s = 5.12 ns -> 5
		{3, 100e9, 15},         // 15.36 -> 15
		{7, 100e9, 36},         // 35.84 -> 36
		{65535, 100e9, 335539}, // 65535*5.12 = 335539.2 -> 335539
		{1, 25e9, 20},          // 20.48 -> 20
		{65535, 25e9, 1342157}, // 65535*20.48 = 1342156.8 -> 1342157
		{65535, 400e9, 83885},  // 65535*1.28 = 83884.8 -> 83885
		{65535, 10e9, 3355392}, // 65535*51.2 = 3355392 exactly
		{65535, 800e9, 41942},  // 65535*0.64 = 41942.4 -> 41942
		{2, 800e9, 1},          // 1.28 -> 1
	}
	for _, tt := range tests {
		if got := QuantaNs(tt.q, tt.bps); got != tt.want {
			t.Errorf("QuantaNs(%d, %d) = %d, want %d", tt.q, tt.bps, got, tt.want)
		}
	}
	if ps := quantaPs(1, 100e9); ps != 5120 {
		t.Errorf("1 quantum at 100G = %d ps, want 5120", ps)
	}
}

func q3(q uint16) [8]uint16 { var a [8]uint16; a[3] = q; a[4] = 500; return a }

// Priority 3 of macA at 100 Gb/s (5.12 ns per quantum). Bit 4 is never
// enabled, so its 500 quanta are ignored.
func TestPFCEpisodes100G(t *testing.T) {
	const en = 1 << 3
	tb := run(t, Config{LinkSpeedBps: 100e9},
		pfcFrame(0, macA, en, q3(1000)),      // 1000*5.12 = 5120 ns: until 5120
		pfcFrame(4000, macA, en, q3(1000)),   // re-arm: 4000+5120 = 9120
		pfcFrame(9000, macA, en, q3(1000)),   // re-arm: 9000+5120 = 14120; expires -> episode 0..14120, 3 frames
		pfcFrame(20000, macA, en, q3(65535)), // until 20000+335539.2
		pfcFrame(100000, macA, en, q3(0)),    // XON: episode 20000..100000 = 80000, 2 frames
		pfcFrame(200000, macA, en, q3(0)),    // XON while not paused: counted, no episode
		pfcFrame(300000, macA, en, q3(1)),    // until 300005.12
		pfcFrame(300006, macA, en, q3(1)),    // 300006 > 300005.12: new episode; the first is round(5.12) = 5
		// capture end: the last episode runs to its deadline, 5.12 -> 5 ns
		pauseFrame(1000, macB, 100), // 802.3x: 100*5.12 = 512 ns
		pauseFrame(1200, macB, 0),   // XON at 1200: 200 ns, 2 frames
	)
	checkEvents(t, tb, []ev{
		{Kind: "pause", Ts: 0, PSN: 3, N: 3, Extra: 14120},
		{Kind: "pause", Ts: 1000, PSN: 0xFFFFFFFF, N: 2, Extra: 200},
		{Kind: "pause", Ts: 20000, PSN: 3, N: 2, Extra: 80000},
		{Kind: "pause", Ts: 300000, PSN: 3, N: 1, Extra: 5},
		{Kind: "pause", Ts: 300006, PSN: 3, N: 1, Extra: 5},
	})
	st := tb.PFC()
	if len(st) != 2 {
		t.Fatalf("%d pfc states", len(st))
	}
	// 8 frames with bit 3 set, 2 of them XON; episodes 14120 + 80000 + 5 + 5 = 94130 ns.
	want := PFCStat{Key: PFCKey{SrcMAC: macA, Priority: 3}, Frames: 8, XONFrames: 2, Episodes: 4, PausedNs: 94130, LongestNs: 80000}
	if got := public(st[0]); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	want = PFCStat{Key: PFCKey{SrcMAC: macB, Priority: -1}, Frames: 2, XONFrames: 1, Episodes: 1, PausedNs: 200, LongestNs: 200}
	if got := public(st[1]); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, e := range tb.Events() {
		if e.EndNs() != e.TsNs+e.DurationNs() {
			t.Errorf("end %d != ts %d + duration %d", e.EndNs(), e.TsNs, e.DurationNs())
		}
	}
}

func public(s *PFCStat) PFCStat {
	return PFCStat{Key: s.Key, Frames: s.Frames, XONFrames: s.XONFrames, Episodes: s.Episodes, PausedNs: s.PausedNs, LongestNs: s.LongestNs}
}

// At 25 Gb/s a quantum is 20.48 ns. 100 quanta = 2048 ns.
func TestPFCEpisodes25G(t *testing.T) {
	const en = 1 << 3
	tb := run(t, Config{LinkSpeedBps: 25e9},
		pfcFrame(0, macA, en, q3(100)),    // until 2048
		pfcFrame(2000, macA, en, q3(100)), // until 4048
		pfcFrame(4048, macA, en, q3(100)), // exactly at the deadline: same episode, until 6096
		// capture end: episode 0..6096, 3 frames
		pfcFrame(10000, macA, 1<<5, [8]uint16{5: 1}), // priority 5: 20.48 ns
		pfcFrame(10020, macA, 1<<5, [8]uint16{5: 1}), // until 10040.48
		pfcFrame(10040, macA, 1<<5, [8]uint16{5: 1}), // until 10060.48
		pfcFrame(10061, macA, 1<<5, [8]uint16{5: 1}), // 10061 > 10060.48: expired; 60.48 -> 60 ns
		// then 10061..10081.48 -> 20 ns
		pfcFrame(20000, macA, 1<<5, [8]uint16{5: 65535}), // 65535*20.48 = 1342156.8 -> 1342157
	)
	checkEvents(t, tb, []ev{
		{Kind: "pause", Ts: 0, PSN: 3, N: 3, Extra: 6096},
		{Kind: "pause", Ts: 10000, PSN: 5, N: 3, Extra: 60},
		{Kind: "pause", Ts: 10061, PSN: 5, N: 1, Extra: 20},
		{Kind: "pause", Ts: 20000, PSN: 5, N: 1, Extra: 1342157},
	})
}

// A shorter re-arm shortens the pause.
func TestPFCRearmShortens(t *testing.T) {
	tb := run(t, Config{LinkSpeedBps: 100e9},
		pfcFrame(0, macA, 1<<3, q3(65535)), // until 335539.2
		pfcFrame(100, macA, 1<<3, q3(10)),  // re-armed: until 100 + 51.2 = 151.2 -> 151
	)
	checkEvents(t, tb, []ev{{Kind: "pause", Ts: 0, PSN: 3, N: 2, Extra: 151}})
}
