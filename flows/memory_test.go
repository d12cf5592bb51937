package flows

import (
	"runtime"
	"testing"
)

// heapAfter returns the live heap after a GC, with keep still reachable.
func heapAfter(keep any) uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	return ms.HeapAlloc
}

// TestMemoryPerFlowAndEvent bounds the table's memory on hostile inputs
// (issue 12): at most 400 bytes per flow that has seen one packet, and at
// most 208 bytes per stored event (one flow with a PSN gap before every
// packet), measured as the live heap after a GC over the count. The event
// limit was 128 until issue 17 gave every event the two DCQCN rates of cnp
// events (Event 112 -> 128 bytes; the flags fill padding) and issue 13 the
// stall and psn_conflict fields (idle_ns, since_original_ns, read_psn,
// read_span, opcode, the PMTU sets: 128 -> 160 bytes; measured 200 with
// the slice's spare capacity).
func TestMemoryPerFlowAndEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("memory test")
	}
	const n = 100_000
	tests := []struct {
		name  string
		limit uint64
		fill  func(tb *Table)
		count func(tb *Table) int
	}{
		{"per flow", 400, func(tb *Table) {
			p := wr(0, 0, 0)
			for i := range n {
				p.TsNs, p.BTH.DestQP = int64(i+1)*100, uint32(i+1)
				tb.Observe(p)
			}
		}, func(tb *Table) int { return len(tb.Flows()) }},
		{"per event", 208, func(tb *Table) {
			p := wr(0, 0x11, 0)
			for i := range n + 1 {
				p.TsNs, p.BTH.PSN = int64(i+1)*100, uint32(2*i)
				tb.Observe(p)
			}
			tb.Finish()
		}, func(tb *Table) int { return len(tb.Events()) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := heapAfter(nil)
			tb := NewTable(Config{})
			tc.fill(tb)
			after := heapAfter(tb)
			if got := tc.count(tb); got != n {
				t.Fatalf("count = %d, want %d", got, n)
			}
			per := (after - min(before, after)) / n
			t.Logf("%s: %d bytes", tc.name, per)
			if per > tc.limit {
				t.Errorf("%s: %d bytes, want at most %d", tc.name, per, tc.limit)
			}
		})
	}
}
