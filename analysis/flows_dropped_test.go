package analysis

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// TestFlowsDropped: the frames of flows beyond the table's MaxFlows are
// capture.flows_dropped (always present, 0 included) and make one
// capture-wide flows_dropped warning naming the count and the limit.
func TestFlowsDropped(t *testing.T) {
	// paired: two WRITEs A>B:0x11, then B's ACK on B>A:0x22.
	tests := []struct {
		ps      []*decode.Packet
		max     int
		dropped int64
	}{
		{paired(), 0, 0},
		{paired(), 2, 0},
		{paired(), 1, 1}, // the ACK
		{with(paired(), ack(30, 0x22, 2), wr(40, 0x11, 2)), 1, 2}, // both ACKs
		{with(paired(), wr(30, 0x33, 0), ack(40, 0x22, 2)), 2, 1}, // the WRITE to 0x33
		{with(paired(), wr(30, 0x33, 0), wr(40, 0x33, 1)), 1, 3},  // the ACK and both WRITEs to 0x33
	}
	for _, tc := range tests {
		ps := tc.ps
		tb := flows.NewTable(flows.Config{MaxFlows: tc.max})
		var c Counter
		for _, p := range ps {
			c.Observe(p)
			tb.Observe(p)
		}
		r := Build(tb, c.Summary([]string{"x.pcap"}), Options{})
		if r.Capture.FlowsDropped != tc.dropped {
			t.Errorf("max %d: FlowsDropped = %d, want %d", tc.max, r.Capture.FlowsDropped, tc.dropped)
		}
		if r.Capture.Packets != int64(len(ps)) {
			t.Errorf("max %d: packets = %d, want %d (dropped frames still count)", tc.max, r.Capture.Packets, len(ps))
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r, false); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Capture map[string]any `json:"capture"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if v, ok := doc.Capture["flows_dropped"]; !ok || v != float64(tc.dropped) {
			t.Errorf("max %d: capture.flows_dropped = %v (present %v)", tc.max, v, ok)
		}
		n := codes(r)[CodeFlowsDropped]
		if tc.dropped == 0 {
			if n != 0 {
				t.Errorf("max %d: flows_dropped finding without drops", tc.max)
			}
			continue
		}
		if n != 1 {
			t.Fatalf("max %d: %d flows_dropped findings, want 1: %+v", tc.max, n, r.Findings)
		}
		for _, f := range r.Findings {
			if f.Code == CodeFlowsDropped && (f.Severity != SeverityWarning || f.Flow != nil ||
				!strings.Contains(f.Message, plural(tc.dropped, "frame")) || !strings.Contains(f.Message, "--max-flows")) {
				t.Errorf("finding %+v: want a capture-wide warning naming %d frames and --max-flows", f, tc.dropped)
			}
		}
		var text bytes.Buffer
		if err := WriteText(&text, r, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if want := "flows dropped  " + plural(tc.dropped, "frame"); !strings.Contains(text.String(), want) {
			t.Errorf("max %d: human report lacks %q:\n%s", tc.max, want, text.String())
		}
	}
}
