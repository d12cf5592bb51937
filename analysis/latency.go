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

// latencyReport summarises every flow's latency values per kind, without
// gathering them: count, min and max in one pass, the percentiles by
// selectRank over the flows' slices.
func latencyReport(t *flows.Table) LatencyReport {
	var s [flows.NumLatencyKinds]LatencySummary
	var cnt []int
	for k := range s {
		kind := flows.LatencyKind(k)
		vals := make([]flows.LatencyValues, 0, len(t.Flows()))
		for _, f := range t.Flows() {
			if v := f.LatencyValues(kind); v.Len() > 0 {
				vals = append(vals, v)
			}
		}
		s[k], cnt = summarizeSets(vals, cnt)
	}
	return LatencyReport{
		Ack:       s[flows.LatencyAck],
		Read:      s[flows.LatencyRead],
		ReadFirst: s[flows.LatencyReadFirst],
		Atomic:    s[flows.LatencyAtomic],
	}
}

// summarizeSets returns summarize of the union of vals (values >= 0),
// without copying them; cnt is selectRank's bucket array, reused.
func summarizeSets(vals []flows.LatencyValues, cnt []int) (LatencySummary, []int) {
	var s LatencySummary
	for _, v := range vals {
		lo, hi := valuesRange(v)
		if s.Count == 0 || lo < s.MinNs {
			s.MinNs = lo
		}
		if s.Count == 0 || hi > s.MaxNs {
			s.MaxNs = hi
		}
		s.Count += int64(v.Len())
	}
	if s.Count == 0 {
		return LatencySummary{}, cnt
	}
	if cnt == nil {
		cnt = make([]int, selectBuckets)
	}
	n := int(s.Count)
	s.P50Ns = selectRank(vals, nearestRank(50, n), s.MinNs, s.MaxNs, cnt)
	s.P99Ns = selectRank(vals, nearestRank(99, n), s.MinNs, s.MaxNs, cnt)
	return s, cnt
}

// selectBuckets is the histogram size of selectRank: 16 bits per pass.
const selectBuckets = 1 << 16

// selectRank returns the r-th smallest (1-based) of the union of vals, all
// in [lo, hi]: each pass counts the values of the current range in
// selectBuckets buckets and keeps the bucket that holds rank r, so at most
// four passes narrow a 64-bit range to one value.
func selectRank(vals []flows.LatencyValues, r int, lo, hi int64, cnt []int) int64 {
	below := 0 // values < lo
	for lo < hi {
		width := uint64(hi) - uint64(lo)
		shift := uint(0)
		for width>>shift >= selectBuckets {
			shift++
		}
		clear(cnt)
		for _, v := range vals {
			countRange(v, lo, hi, shift, cnt)
		}
		b := 0
		for ; b < len(cnt)-1 && below+cnt[b] < r; b++ {
			below += cnt[b]
		}
		nlo := lo + int64(uint64(b)<<shift)
		if shift == 0 {
			return nlo
		}
		lo, hi = nlo, min(hi, nlo+int64(uint64(1)<<shift)-1)
	}
	return lo
}

// addFlowLatency sets the flow's ack_latency_* and read_latency_* fields
// from the samples it is the request flow of (percentiles nil without).
// scratch is reused from flow to flow: at 10M frames a flow holds
// thousands of samples, and a new slice for each flow's set made the
// garbage collector run during the report's tail.
func addFlowLatency(fr *FlowReport, f *flows.Flow, scratch *latScratch) {
	if s := summarizeValues(f.LatencyValues(flows.LatencyAck), scratch); s.Count > 0 {
		fr.AckLatencyCount = s.Count
		fr.AckLatencyP50Ns, fr.AckLatencyP99Ns, fr.AckLatencyMaxNs = ptr(s.P50Ns), ptr(s.P99Ns), ptr(s.MaxNs)
	}
	if s := summarizeValues(f.LatencyValues(flows.LatencyRead), scratch); s.Count > 0 {
		fr.ReadLatencyCount = s.Count
		fr.ReadLatencyP50Ns, fr.ReadLatencyP99Ns, fr.ReadLatencyMaxNs = ptr(s.P50Ns), ptr(s.P99Ns), ptr(s.MaxNs)
	}
}

// LatencyCaveat is the one line the human reports (text, HTML) print with
// latency: every time is measured between two frames at the capture point.
const LatencyCaveat = "times are measured at the capture point: next to the requester ~ the round trip, next to the responder mostly the responder's own time"

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
	tx.ew.printf("  (%s)\n", LatencyCaveat)
}
