package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// loss adds the loss findings of every flow: PSN gaps (judged against the
// lossless priorities, a PCP mask), NAKs, RNR NAKs and requester timeouts.
func (fd *finder) loss(lossless uint16) {
	for _, f := range fd.t.Flows() {
		fe := fd.events(f)
		fd.psnGaps(f, lossless)
		fd.naks(f, fe)
		fd.rnrNAKs(f, fe)
		if fe.timeouts > 0 {
			k, tail := timeoutDetail(fe.minTimeoutIdle)
			fd.add(SeverityWarning, CodeRetransmissionTimeout, f,
				"%s (%s) with no NAK before them: requester timeout; first at %s from PSN %d%s",
				plural(int64(fe.timeouts), "replay"), plural(fe.timeoutPackets, "packet"),
				fmtTs(fe.firstTimeoutTsNs, fd.c.FirstTsNs), fe.firstTimeoutPSN, tail)
			last := &fd.out[len(fd.out)-1]
			last.TimeoutK, last.IdleNs = k, ptr(fe.minTimeoutIdle)
		}
	}
}

// psnGaps adds the PSN gap finding of f: info on UD, an error on a lossless
// priority, a warning otherwise.
func (fd *finder) psnGaps(f *flows.Flow, lossless uint16) {
	if f.PSNGaps == 0 {
		return
	}
	switch {
	case f.Key.UD:
		fd.add(SeverityInfo, CodeUDPSNGap, f,
			"%s (%s) on a UD flow: a UD QP numbers PSNs across all its destinations, so this may not be loss",
			plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"))
	case f.PCPMask&lossless != 0:
		fd.add(SeverityError, CodePSNGapLossless, f,
			"%s, %s missing on lossless priority %s (PFC seen): packets were dropped despite PFC",
			plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"), pcpList(f.PCPMask&lossless))
	default:
		fd.add(SeverityWarning, CodePSNGap, f,
			"%s, %s missing (no PFC seen on priority %s, so lossless is not confirmed)",
			plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"), pcpList(f.PCPMask))
	}
}

// naks adds the NAK (or NAK storm) finding of f, listing the NAK codes.
func (fd *finder) naks(f *flows.Flow, fe *flowEvents) {
	n := len(fe.nakTs)
	if n == 0 {
		return
	}
	codes := make([]uint8, 0, len(fe.nakCodes))
	for code := range fe.nakCodes {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	var names []string
	for _, code := range codes {
		names = append(names, fmt.Sprintf("%s x%d", decode.NAKCodeName(code), fe.nakCodes[code]))
	}
	o := &fd.opts
	if w := maxInWindow(fe.nakTs, o.StormWindowNs); w >= o.StormCount {
		fd.add(SeverityError, CodeNAKStorm, f, "NAK storm: %s, up to %d within %s (%s)",
			plural(int64(n), "NAK"), w, fmtDur(o.StormWindowNs), strings.Join(names, ", "))
	} else {
		fd.add(SeverityWarning, CodeNAK, f, "%s, first at %s (%s)",
			plural(int64(n), "NAK"), fmtTs(fe.firstNAKTsNs, fd.c.FirstTsNs), strings.Join(names, ", "))
	}
}

// rnrNAKs adds the RNR NAK (or RNR NAK storm) finding of f.
func (fd *finder) rnrNAKs(f *flows.Flow, fe *flowEvents) {
	n := len(fe.rnrTs)
	if n == 0 {
		return
	}
	o := &fd.opts
	if w := maxInWindow(fe.rnrTs, o.StormWindowNs); w >= o.StormCount {
		fd.add(SeverityWarning, CodeRNRNAKStorm, f,
			"RNR NAK storm: %s, up to %d within %s: the receiver is not posting receive buffers fast enough",
			plural(int64(n), "RNR NAK"), w, fmtDur(o.StormWindowNs))
	} else {
		fd.add(SeverityInfo, CodeRNRNAK, f, "%s (receiver not ready), first at %s with timer %s",
			plural(int64(n), "RNR NAK"), fmtTs(fe.firstRNRTsNs, fd.c.FirstTsNs), fmtDur(fe.firstRNRTimerNs))
	}
}
