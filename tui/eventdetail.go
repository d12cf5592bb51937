package tui

import "github.com/rocetrace/rocetrace/analysis"

// Event details of the kinds issue 13 and capture points added, and the
// stall times of a replay: the fields analysis set, readable.

// replayTimes is a retransmission's stall times: idle_ns (the time since
// the flow's previous request packet) and, when known, since_original_ns
// (since the first send of the replayed PSN).
func replayTimes(e *analysis.EventReport) string {
	s := ""
	if e.IdleNs != nil {
		s += ", idle " + fmtDur(*e.IdleNs)
	}
	if e.SinceOriginalNs != nil {
		s += ", " + fmtDur(*e.SinceOriginalNs) + " since the original"
	}
	return s
}

// newEventDetail is the details of a psn_conflict or hop_loss event.
func newEventDetail(e *analysis.EventReport) string {
	psn := "?"
	if e.PSN != nil {
		psn = itoa(int(*e.PSN))
	}
	switch e.Kind {
	case "psn_conflict":
		// read_span: the PSNs the READ took (its responses, or the PMTU);
		// sender_span: what the requester numbered after it.
		s := optString(e.OpcodeName) + " PSN " + psn + " inside READ "
		if e.ReadPSN != nil {
			s += itoa(int(*e.ReadPSN))
		} else {
			s += "?"
		}
		return s + ": span " + fmtCount(i64(e.ReadSpan)) + ", sender's " + fmtCount(i64(e.SenderSpan)) + " (PMTU mismatch?)"
	case "hop_loss":
		return optString(e.OpcodeName) + " PSN " + psn + " lost between " + optString(e.From) + " and " + optString(e.To)
	}
	return ""
}
