package analysis

import (
	"fmt"

	"github.com/rocetrace/rocetrace/flows"
)

// losslessPriorities returns the priorities with PFC frames, the known
// lossless classes, as a PCP mask.
func losslessPriorities(t *flows.Table) uint16 {
	var lossless uint16
	for _, s := range t.PFC() {
		if s.Key.Priority >= 0 && s.Frames > 0 {
			lossless |= 1 << s.Key.Priority
		}
	}
	return lossless
}

// pfc adds the PFC findings of every (source MAC, priority): pause storms,
// and pauses of a priority that carries no RoCE (judged only when some RoCE
// frames are tagged).
func (fd *finder) pfc(m *qosMasks) {
	roceTagged := (m.dataPCP | m.cnpPCP) & 0xFF
	for _, s := range fd.t.PFC() {
		k := s.Key
		name := "802.3x PAUSE"
		if k.Priority >= 0 {
			name = fmt.Sprintf("priority %d", k.Priority)
		}
		if s.LongestNs > fd.opts.PauseStormNs {
			fd.add(SeverityError, CodePauseStorm, nil,
				"pause storm: %s held %s paused for %s in one episode (threshold %s): a PFC storm or deadlock",
				macString(k.SrcMAC), name, fmtDur(s.LongestNs), fmtDur(fd.opts.PauseStormNs))
		}
		if k.Priority >= 0 && roceTagged != 0 && roceTagged&(1<<k.Priority) == 0 {
			fd.add(SeverityWarning, CodePauseWithoutRoCE, nil,
				"%s sent %d PFC frames for priority %d, which carries no RoCE in this capture (RoCE uses %s)",
				macString(k.SrcMAC), s.Frames, k.Priority, pcpList(roceTagged))
		}
	}
}
