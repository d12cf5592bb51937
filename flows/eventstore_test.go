package flows

import (
	"testing"
	"unsafe"
)

// The event store across chunk boundaries: at, from (one chunk: the
// store's memory; two: a copy), clone and the stable sort.
func TestEventStore(t *testing.T) {
	tests := []struct {
		name string
		n    int
		ts   func(i int) int64 // event i's time
	}{
		{"empty", 0, func(int) int64 { return 0 }},
		{"first chunk", 10, func(i int) int64 { return int64(i) }},
		{"one full chunk", eventChunk, func(i int) int64 { return int64(i) }},
		{"three chunks", 2*eventChunk + 5, func(i int) int64 { return int64(i) }},
		// descending times: the sort reverses them; equal pairs keep order.
		{"unsorted", 2*eventChunk + 5, func(i int) int64 { return int64(1_000_000 - i/2) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s eventStore
			for i := range tc.n {
				s.add(Event{Kind: EventPSNGap, TsNs: tc.ts(i), PSN: PSN(i)})
			}
			if s.len() != tc.n {
				t.Fatalf("len = %d, want %d", s.len(), tc.n)
			}
			for i := range tc.n {
				if s.at(i).PSN != PSN(i) {
					t.Fatalf("at(%d).PSN = %d", i, s.at(i).PSN)
				}
			}
			if tc.n > eventChunk {
				var buf []Event
				// from inside the last chunk: the store's own memory
				last := s.from(tc.n-2, &buf)
				if len(last) != 2 || &last[0] != s.at(tc.n-2) {
					t.Errorf("from(n-2): %d events, not the store's", len(last))
				}
				// straddling two chunks: a copy of 2*eventChunk+5-(2*eventChunk-1) = 6
				got := s.from(2*eventChunk-1, &buf)
				if len(got) != 6 || got[0].PSN != PSN(2*eventChunk-1) || got[5].PSN != PSN(tc.n-1) {
					t.Errorf("from(2*chunk-1) = %d events [%d..%d]", len(got), got[0].PSN, got[len(got)-1].PSN)
				}
			}
			c := s.clone()
			if c.len() != tc.n || (tc.n > 0 && c.at(tc.n-1) == s.at(tc.n-1)) {
				t.Fatalf("clone: len %d or shares memory", c.len())
			}
			s.sortStable()
			for i := 1; i < tc.n; i++ {
				a, b := s.at(i-1), s.at(i)
				if a.TsNs > b.TsNs || (a.TsNs == b.TsNs && a.PSN > b.PSN) {
					t.Fatalf("after sort: %d (psn %d) before %d (psn %d)", a.TsNs, a.PSN, b.TsNs, b.PSN)
				}
			}
			if tc.n > 0 && c.at(0).PSN != 0 {
				t.Errorf("sorting the store changed its clone")
			}
		})
	}
}

// Each kind's values round-trip through the shared slots, and the methods
// of values a kind does not have return zero.
func TestEventSlots(t *testing.T) {
	if got := unsafe.Sizeof(Event{}); got != 64 {
		t.Errorf("Event is %d bytes, want 64", got)
	}
	mac := [6]byte{0x02, 0x11, 0x22, 0x33, 0x44, 0xff}
	gap := gapEvent(1, nil, 0xfffffe, 3, 5)
	rt := retransmissionEvent(2, nil, 7, 9)
	rt.setIdle(11, 13, true)
	rt.setAfterNAK(17)
	nak := nakEvent(EventNAK, 3, nil, 4, 2, 0)
	rnr := nakEvent(EventRNRNAK, 3, nil, 4, 14, 1_280_000)
	cnp := Event{Kind: EventCNP}
	cnp.setECNToCNP(19)
	cnp.setRateAfter(25_000_000_000)
	pause := pauseEvent(100, mac, -1, 350, 250, 3)
	conflict := conflictEvent(5, nil, 0xffffff, 10, 0xfffffd, 4, 0x03, 0x1c)
	tests := []struct {
		name      string
		got, want any
	}{
		{"gap expected", gap.ExpectedPSN(), PSN(0xfffffe)},
		{"gap missing", gap.Missing(), int64(5)},
		{"retransmission packets", rt.Packets(), int64(9)},
		{"retransmission idle", rt.IdleNs(), int64(11)},
		{"retransmission since", [2]any{rt.SinceOriginalNs(), rt.HasSinceOriginal()}, [2]any{int64(13), true}},
		{"retransmission after nak", [2]any{rt.AfterNAKNs(), rt.HasAfterNAK()}, [2]any{int64(17), true}},
		{"nak code", nak.Code(), uint8(2)},
		{"rnr code, timer", [2]any{rnr.Code(), rnr.TimerNs()}, [2]any{uint8(14), int64(1_280_000)}},
		{"cnp ecn", [2]any{cnp.ECNToCNPNs(), cnp.HasECNToCNP()}, [2]any{int64(19), true}},
		{"cnp rate before unset", [2]any{cnp.RateBeforeBps(), cnp.HasRateBefore()}, [2]any{int64(0), false}},
		{"cnp rate after", [2]any{cnp.RateAfterBps(), cnp.HasRateAfter()}, [2]any{int64(25_000_000_000), true}},
		{"pause mac", pause.SrcMAC(), mac},
		{"pause priority", pause.Priority(), int8(-1)},
		{"pause end, duration, frames", [3]int64{pause.EndNs(), pause.DurationNs(), pause.Frames()}, [3]int64{350, 250, 3}},
		{"conflict", [4]any{conflict.Opcode(), conflict.ReadPSN(), conflict.ReadSpan(), conflict.SenderSpan()},
			[4]any{uint8(10), PSN(0xfffffd), int32(4), int64(2)}},
		{"conflict pmtus", [2]uint8{conflict.SenderPMTUs(), conflict.ResponderPMTUs()}, [2]uint8{0x03, 0x1c}},
		// other kinds' values are zero, whatever the slots hold
		{"gap has no packets", gap.Packets(), int64(0)},
		{"pause has no code", pause.Code(), uint8(0)},
		{"retransmission has no ecn", rt.HasECNToCNP(), false},
		{"nak has no priority", nak.Priority(), int8(0)},
		{"cnp has no missing", cnp.Missing(), int64(0)},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
