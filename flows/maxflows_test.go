package flows

import "testing"

// TestMaxFlows: beyond Config.MaxFlows, frames of new flows start no flow
// and are counted in FlowsDropped; frames of the flows already known go on
// being observed.
func TestMaxFlows(t *testing.T) {
	// qp: the flow of each frame, in capture order.
	qps := []uint32{1, 1, 2, 3, 4, 4, 5, 1, 4, 3}
	tests := []struct {
		name      string
		max       int
		wantFlows int
		dropped   int64
		qp1       int64 // packets of flow qp1
	}{
		{"limit 3", 3, 3, 4, 3}, // qp4 (3 frames) and qp5 (1)
		{"limit 1", 1, 1, 7, 3}, // all but the three frames of qp1
		{"limit 5", 5, 5, 0, 3}, // exactly enough
		{"default", 0, 5, 0, 3}, // 0: DefaultMaxFlows
		{"limit 4", 4, 4, 1, 3}, // qp5's one frame
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable(Config{MaxFlows: tc.max})
			for i, qp := range qps {
				f := tb.ObserveFlow(wr(int64(i+1)*1000, qp, uint32(i)))
				if (f == nil) != (tb.Flow(Key{Src: ipA, Dst: ipB, DstQPN: qp}) == nil) {
					t.Fatalf("frame %d: ObserveFlow returned %v, table has %v", i, f, tb.Flow(Key{Src: ipA, Dst: ipB, DstQPN: qp}))
				}
			}
			if got := len(tb.Flows()); got != tc.wantFlows {
				t.Errorf("flows = %d, want %d", got, tc.wantFlows)
			}
			if got := tb.FlowsDropped(); got != tc.dropped {
				t.Errorf("FlowsDropped = %d, want %d", got, tc.dropped)
			}
			if got := tb.Flow(Key{Src: ipA, Dst: ipB, DstQPN: 1}).Packets; got != tc.qp1 {
				t.Errorf("qp1 packets = %d, want %d", got, tc.qp1)
			}
			if got := tb.Clone().FlowsDropped(); got != tc.dropped {
				t.Errorf("Clone().FlowsDropped = %d, want %d", got, tc.dropped)
			}
		})
	}
}
