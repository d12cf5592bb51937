package analysis

import (
	"fmt"

	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/points"
)

// pointFinder collects the findings of capture points and of the same
// traffic in several files (they are judged outside the reference table's
// finder: they span several points or files).
type pointFinder struct {
	out []Finding
}

func (pf *pointFinder) add(sev Severity, code string, flow *string, format string, args ...any) {
	pf.out = append(pf.out, Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...), Flow: flow})
}

// hop judges one hop: lost frames, and frames the upstream capture missed.
func (pf *pointFinder) hop(flow *string, from, to string, h points.Hop) {
	if h.Lost > 0 {
		pf.add(SeverityError, CodeLostBetweenPoints, flow,
			"%d RoCE frames lost between points %s and %s: seen at %s, not at %s (%d matched)",
			h.Lost, from, to, from, to, h.Matched)
	}
	if h.UnseenUpstream > 0 {
		pf.add(SeverityWarning, CodeCaptureMissedFrames, flow,
			"%d RoCE frames seen at point %s were not seen at point %s upstream: the capture at %s missed them, or they took another path",
			h.UnseenUpstream, to, from, from)
	}
}

// SameTrafficHint is what the text report and stderr say after a
// same_traffic_in_several_files finding.
const SameTrafficHint = "the same traffic seen at several places counts twice and makes false replays: " +
	"give each capture point with --point NAME=FILE[,FILE...]"

// AddSameTraffic adds to r, built from t, one same_traffic_in_several_files
// finding per pair of files that share more than 1% of the RoCE frames of
// at least one of them (roce: RoCE frames per file, as points.Shared counts
// them). It returns whether it added any.
func AddSameTraffic(r *Report, t *flows.Table, files []string, roce []int64, pairs []points.SharedPair) bool {
	pf := pointFinder{}
	for _, p := range pairs {
		small := min(roce[p.A], roce[p.B])
		if small == 0 || p.Shared*100 <= small { // shared <= 1% of the smaller file
			continue
		}
		pf.add(SeverityWarning, CodeSameTraffic, nil,
			"%s and %s share %d RoCE frames (%.1f%% of the smaller file's RoCE frames): %s",
			files[p.A], files[p.B], p.Shared, 100*float64(p.Shared)/float64(small), SameTrafficHint)
	}
	if len(pf.out) == 0 {
		return false
	}
	r.Await()
	r.Findings = append(r.Findings, pf.out...)
	sortFindingsBy(r.Findings, flowOrder(t))
	return true
}
