package analysis

import "github.com/rocetrace/rocetrace/flows"

// LatencyReport is the report's "latency" member: the response-latency
// samples of the whole capture per kind, each summarised like cnp_latency
// (nearest-rank; all zero without samples).
type LatencyReport struct {
	Ack       LatencySummary `json:"ack"`
	Read      LatencySummary `json:"read"`
	ReadFirst LatencySummary `json:"read_first"`
	Atomic    LatencySummary `json:"atomic"`
}

// latencyReport summarises every flow's latency values per kind.
func latencyReport(t *flows.Table) LatencyReport {
	var all [flows.NumLatencyKinds][]int64
	for _, f := range t.Flows() {
		for k := range all {
			all[k] = append(all[k], f.Latencies(flows.LatencyKind(k))...)
		}
	}
	return LatencyReport{
		Ack:       summarize(all[flows.LatencyAck]),
		Read:      summarize(all[flows.LatencyRead]),
		ReadFirst: summarize(all[flows.LatencyReadFirst]),
		Atomic:    summarize(all[flows.LatencyAtomic]),
	}
}

// addFlowLatency sets the flow's ack_latency_* and read_latency_* fields
// from the samples it is the request flow of (percentiles nil without).
func addFlowLatency(fr *FlowReport, f *flows.Flow) {
	if s := summarize(f.Latencies(flows.LatencyAck)); s.Count > 0 {
		fr.AckLatencyCount = s.Count
		fr.AckLatencyP50Ns, fr.AckLatencyP99Ns, fr.AckLatencyMaxNs = ptr(s.P50Ns), ptr(s.P99Ns), ptr(s.MaxNs)
	}
	if s := summarize(f.Latencies(flows.LatencyRead)); s.Count > 0 {
		fr.ReadLatencyCount = s.Count
		fr.ReadLatencyP50Ns, fr.ReadLatencyP99Ns, fr.ReadLatencyMaxNs = ptr(s.P50Ns), ptr(s.P99Ns), ptr(s.MaxNs)
	}
}

// latencyCaveat is the one line the text report prints with latency.
const latencyCaveat = "times are measured at the capture point: next to the requester ~ the round trip, next to the responder mostly the responder's own time"

// responseLatency writes the Latency section of the text report.
func (tx *textWriter) responseLatency(l LatencyReport) {
	tx.heading("== Latency (request -> response)", false)
	rows := []struct {
		name string
		s    LatencySummary
	}{{"ack", l.Ack}, {"read", l.Read}, {"read_first", l.ReadFirst}, {"atomic", l.Atomic}}
	for _, r := range rows {
		if r.s.Count == 0 {
			tx.ew.printf("  %-10s  no samples\n", r.name)
			continue
		}
		tx.ew.printf("  %-10s  %s: p50 %s  p99 %s  max %s\n", r.name, plural(r.s.Count, "sample"),
			us(r.s.P50Ns), us(r.s.P99Ns), us(r.s.MaxNs))
	}
	tx.ew.printf("  (%s)\n", latencyCaveat)
}
