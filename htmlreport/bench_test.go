package htmlreport

import (
	"fmt"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
)

// benchReport has the shape of the 10M-frame bench capture's report
// (bench/gen.sh 10m, snaplen 128): 2,000 flows, about 100,000 events (CNPs
// with latencies, NAKs, gaps, replays, pauses) and 2,000 findings over 1 s.
func benchReport() *analysis.Report {
	const span = 1_000_000_000
	prio := 3
	r := &analysis.Report{Capture: analysis.CaptureSummary{Packets: 10_000_000, LastTsNs: span},
		PFC: []analysis.PFCReport{{SrcMAC: "02:5a:00:00:00:01", Priority: &prio, Frames: 2000, Episodes: 2000}}}
	for i := range 2000 {
		id := fmt.Sprintf("10.0.%d.%d>10.0.%d.%d:qp0x%06x", i/256, i%256, i/256, i%256+1, i)
		r.Flows = append(r.Flows, analysis.FlowReport{ID: id, Transport: "RC", Packets: 5000, PSNGaps: int64(i % 5), ECNCE: int64(i % 40)})
		r.Findings = append(r.Findings, analysis.Finding{Severity: analysis.SeverityWarning, Code: "psn_gap", Message: "gap", Flow: sp(id)})
	}
	kinds := []string{"cnp", "cnp", "nak", "psn_gap", "retransmission"}
	for i := range 100_000 {
		e := analysis.EventReport{Kind: kinds[i%len(kinds)], TsNs: int64(i) * (span / 100_000)}
		if e.Kind == "cnp" {
			e.ECNToCNPNs = ip(int64(200 + i%600))
		}
		r.Events = append(r.Events, e)
	}
	for i := range 2000 {
		ts := int64(i) * (span / 2000)
		r.Events = append(r.Events, analysis.EventReport{Kind: "pause", TsNs: ts, SrcMAC: sp("02:5a:00:00:00:01"), Priority: &prio, EndNs: ip(ts + 3000)})
	}
	return r
}

// BenchmarkWrite times the page of a 10M-frame-shaped report.
func BenchmarkWrite(b *testing.B) {
	r := benchReport()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
