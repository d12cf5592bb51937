package analysis

import (
	"strings"

	"github.com/rocetrace/rocetrace/flows"
)

// congestion adds the ECN and CNP findings: CE marks without CNPs, CNPs
// without CE marks or without a known target (per flow), then Not-ECT
// traffic (one finding for one flow, one capture-wide finding for several).
func (fd *finder) congestion() {
	var notECT []*flows.Flow
	var notECTFrames int64
	for _, f := range fd.t.Flows() {
		fe := fd.events(f)
		if f.NotECT > 0 && !(f.Key.UD && f.Key.DstQPN == 1) { // QP1: CM MADs
			notECT = append(notECT, f)
			notECTFrames += f.NotECT
		}
		if f.ECNCE > 0 && f.CNPsReceived == 0 {
			fd.add(SeverityWarning, CodeCEWithoutCNP, f,
				"%d CE-marked frames but no CNP answered them (NP not generating CNPs, CNPs lost, or not captured)", f.ECNCE)
		}
		if fe.cnpNoCE > 0 {
			fd.add(SeverityInfo, CodeCNPWithoutCE, f,
				"%d CNPs arrived with no CE-marked frame since the previous CNP (first at %s): marks not captured, or CNPs from another cause",
				fe.cnpNoCE, fmtTs(fe.firstNoCETsNs, fd.c.FirstTsNs))
		}
		if fe.cnpUnknownTarget > 0 {
			fd.add(SeverityInfo, CodeCNPUnmatched, f,
				"%d CNPs whose congested flow could not be identified (first at %s)",
				fe.cnpUnknownTarget, fmtTs(fe.firstUnknownTsNs, fd.c.FirstTsNs))
		}
	}
	fd.notECT(notECT, notECTFrames)
}

// notECT adds the Not-ECT finding for the flows that send Not-ECT frames
// (frames of them in all).
func (fd *finder) notECT(notECT []*flows.Flow, frames int64) {
	switch n := len(notECT); {
	case n == 1:
		f := notECT[0]
		fd.add(SeverityWarning, CodeNotECT, f,
			"%s of %s are Not-ECT (ECN 0): switches cannot mark them and DCQCN cannot react",
			num(f.NotECT), plural(f.DataPackets, "frame"))
	case n > 1:
		var ids []string
		for _, f := range notECT[:min(n, 3)] {
			ids = append(ids, f.ID())
		}
		more := ""
		if n > 3 {
			more = ", ..."
		}
		fd.add(SeverityWarning, CodeNotECT, nil,
			"%d flows send Not-ECT (ECN 0) frames (%s in all: %s%s): switches cannot mark them and DCQCN cannot react",
			n, plural(frames, "frame"), strings.Join(ids, ", "), more)
	}
}
