package analysis_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
	"github.com/rocetrace/rocetrace/pcapio"
)

// TestMemoryEndToEnd bounds the memory of a lean report (what report --json
// and export build) on the hostile captures of issue 12 item 10 and issue
// 20, synthesized: 100k PSN gaps on one flow, and 100k flows of one packet.
// The flow table and the report together, after the report was built and
// written as JSON, may hold at most 128 bytes per event and 400 per flow
// (the live heap after a GC over the count; flows/memory_test.go bounds the
// table alone). The JSON writer must hold nothing per row. With the rows
// copied into the report (Options.Lean off) this measured 322 bytes per
// event and 684 per flow.
func TestMemoryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("memory test")
	}
	const n = 100_000
	tests := []struct {
		name  string
		shape synth.Hostile
		limit uint64
		count func(r *analysis.Report) int
	}{
		{"per event", synth.HostileGaps, 128, (*analysis.Report).NumEvents},
		{"per flow", synth.HostileFlows, 400, (*analysis.Report).NumFlows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var capture bytes.Buffer
			if _, err := synth.WriteHostile(&capture, tc.shape, n); err != nil {
				t.Fatal(err)
			}
			before := testenv.LiveHeap(&capture)
			rd, err := pcapio.NewReader(bytes.NewReader(capture.Bytes()), "hostile", 0)
			if err != nil {
				t.Fatal(err)
			}
			dec := decode.NewDecoder(decode.Config{})
			table := flows.NewTable(flows.Config{})
			var (
				c   analysis.Counter
				rec pcapio.Record
				p   decode.Packet
			)
			for rd.Next(&rec) == nil {
				dec.DecodeRecord(&rec, &p)
				c.Observe(&p)
				table.Observe(&p)
			}
			rep := analysis.Build(table, c.Summary(nil), analysis.Options{Lean: true})
			if err := analysis.WriteJSON(io.Discard, rep, true); err != nil {
				t.Fatal(err)
			}
			after := testenv.LiveHeap(&capture, table, &rep)
			if got := tc.count(&rep); got != n {
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
