package flows

import (
	"testing"
	"unsafe"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestMemoryPerFlowAndEvent bounds the table's memory on hostile inputs
// (issue 12): at most 400 bytes per flow that has seen one packet, 900
// per flow of four requests (issue 20), and at most 128 bytes per stored
// event (one flow with a PSN gap before every
// packet), measured as the live heap after a GC over the count. An Event is
// 64 bytes (its kinds' values share slots) kept in chunks (eventStore):
// this measures 66. (It measured 200 when the Event had every kind's
// fields side by side, 160 bytes, in one growing slice.)
// analysis.TestMemoryEndToEnd bounds the table and the report together.
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
		// Four WRITE packets, each a request flow with a rate window, a
		// recent ring and a request memory: Flow 288 + id 32 + index slot
		// ~24, cold state 160, ring 64 (4 entries), request memory 160 +
		// its ring 64 = ~810 bytes; this measures 844. With the 32-entry
		// ring made at the second request (512 bytes) and the cold state
		// before its split (240 bytes, 256 with the ring as a slice) it
		// measured 1,276 (fd42300).
		{"per flow of four requests", 900, func(tb *Table) {
			p := wr(0, 0, 0)
			for psn := range uint32(4) {
				for i := range n {
					p.TsNs, p.BTH.DestQP, p.BTH.PSN = int64(psn)*1e9+int64(i+1)*100, uint32(i+1), psn
					tb.Observe(p)
				}
			}
		}, func(tb *Table) int { return len(tb.Flows()) }},
		{"per event", 128, func(tb *Table) {
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
			before := testenv.LiveHeap(nil)
			tb := NewTable(Config{})
			tc.fill(tb)
			after := testenv.LiveHeap(tb)
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

// TestColdStateLines holds flowCold's layout: 192 bytes (a size class
// whose objects start on a cache line), the rings a request frame writes
// through in its first line, what every frame reads (the rate window's
// end) with the rest of a request frame's state and all of a response
// frame's in the second. A field moved across a line boundary makes a
// frame touch one more line of it, which with thousands of flows is a
// cache miss.
func TestColdStateLines(t *testing.T) {
	var c flowCold
	if n := unsafe.Sizeof(c); n != 192 {
		t.Errorf("flowCold is %d bytes, want 192", n)
	}
	mem := unsafe.Offsetof(c.mem)
	tests := []struct {
		name        string
		offset, end uintptr // [offset, end): the field's bytes
		line        uintptr
	}{
		{"recent", unsafe.Offsetof(c.recent), unsafe.Offsetof(c.recent) + unsafe.Sizeof(c.recent), 0},
		{"mem.ring", mem + unsafe.Offsetof(c.mem.ring), mem + unsafe.Offsetof(c.mem.ring) + unsafe.Sizeof(c.mem.ring), 0},
		{"mem.head", mem + unsafe.Offsetof(c.mem.head), mem + unsafe.Offsetof(c.mem.head) + 8, 0},
		{"mem.tail", mem + unsafe.Offsetof(c.mem.tail), mem + unsafe.Offsetof(c.mem.tail) + 8, 0},
		{"rateEndB", unsafe.Offsetof(c.rateEndB), unsafe.Offsetof(c.rateEndB) + 8, 1},
		{"ackHigh", unsafe.Offsetof(c.ackHigh), unsafe.Offsetof(c.ackHigh) + 4, 1},
		{"ackedTo", unsafe.Offsetof(c.ackedTo), unsafe.Offsetof(c.ackedTo) + 4, 1},
		{"hasAck", unsafe.Offsetof(c.hasAck), unsafe.Offsetof(c.hasAcked) + 1, 1},
		{"ccPending", unsafe.Offsetof(c.ccPending), unsafe.Offsetof(c.ccPending) + 8, 1},
		{"lat", unsafe.Offsetof(c.lat), unsafe.Offsetof(c.lat) + 8, 1},
		{"peer", unsafe.Offsetof(c.peer), unsafe.Offsetof(c.peer) + 8, 1},
		{"pairTries", unsafe.Offsetof(c.pairTries), unsafe.Offsetof(c.pairTries) + 8, 1},
	}
	for _, tc := range tests {
		if tc.offset/64 != tc.line || (tc.end-1)/64 != tc.line {
			t.Errorf("flowCold.%s at bytes [%d, %d), want it in line %d", tc.name, tc.offset, tc.end, tc.line)
		}
	}
}
