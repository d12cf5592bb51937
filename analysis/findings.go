package analysis

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Finding codes. Each is documented in the package doc.
const (
	CodePSNGapLossless        = "psn_gap_lossless"
	CodePSNGap                = "psn_gap"
	CodeUDPSNGap              = "ud_psn_gap"
	CodeNAKStorm              = "nak_storm"
	CodeNAK                   = "nak"
	CodeRNRNAKStorm           = "rnr_nak_storm"
	CodeRNRNAK                = "rnr_nak"
	CodeRetransmissionTimeout = "retransmission_timeout"
	CodePauseStorm            = "pause_storm"
	CodePauseWithoutRoCE      = "pause_priority_without_roce"
	CodeNotECT                = "not_ect"
	CodeCEWithoutCNP          = "ce_without_cnp"
	CodeCNPWithoutCE          = "cnp_without_ce"
	CodeCNPUnmatched          = "cnp_target_unknown"
	CodeMixedDSCP             = "mixed_dscp"
	CodeMixedDSCPFlows        = "mixed_dscp_across_flows"
	CodeMixedPCP              = "mixed_pcp"
	CodeMixedPCPFlows         = "mixed_pcp_across_flows"
	CodeCNPOnDataPriority     = "cnp_on_data_priority"
	CodeOversizePayload       = "payload_exceeds_pmtu"
	CodeMultipleSourcePorts   = "multiple_udp_source_ports"
	CodeICRCBad               = "icrc_bad"
	CodeICRCUnchecked         = "icrc_unchecked_snaplen"
	CodeMalformed             = "malformed_frames"
	CodeCaptureDrops          = "capture_drops" // warning: a live capture dropped frames in the kernel
)

// flowEvents gathers per-flow facts from the events.
type flowEvents struct {
	nakTs, rnrTs     []int64
	nakCodes         map[uint8]int
	timeouts         int   // retransmission events with after_nak_ns null
	timeoutPackets   int64 // packets in them
	cnpNoCE          int   // CNPs targeting this flow with ecn_to_cnp_ns null
	cnpUnknownTarget int   // CNPs on this flow with no target
	cnpWithLatency   int
	firstTimeoutPSN  uint32
	firstTimeoutTsNs int64
	firstNoCETsNs    int64
	firstUnknownTsNs int64
	firstNAKTsNs     int64
	firstRNRTsNs     int64
	firstRNRTimerNs  int64
}

func gatherEvents(t *flows.Table) map[*flows.Flow]*flowEvents {
	m := map[*flows.Flow]*flowEvents{}
	get := func(f *flows.Flow) *flowEvents {
		fe := m[f]
		if fe == nil {
			fe = &flowEvents{nakCodes: map[uint8]int{}}
			m[f] = fe
		}
		return fe
	}
	for i := range t.Events() {
		e := &t.Events()[i]
		switch e.Kind {
		case flows.EventNAK:
			fe := get(e.Flow)
			if len(fe.nakTs) == 0 {
				fe.firstNAKTsNs = e.TsNs
			}
			fe.nakTs = append(fe.nakTs, e.TsNs)
			fe.nakCodes[e.Code]++
		case flows.EventRNRNAK:
			fe := get(e.Flow)
			if len(fe.rnrTs) == 0 {
				fe.firstRNRTsNs = e.TsNs
				fe.firstRNRTimerNs = e.TimerNs
			}
			fe.rnrTs = append(fe.rnrTs, e.TsNs)
		case flows.EventRetransmission:
			if !e.HasAfterNAK {
				fe := get(e.Flow)
				if fe.timeouts == 0 {
					fe.firstTimeoutPSN, fe.firstTimeoutTsNs = uint32(e.PSN), e.TsNs
				}
				fe.timeouts++
				fe.timeoutPackets += e.Packets
			}
		case flows.EventCNP:
			if e.Target == nil {
				fe := get(e.Flow)
				if fe.cnpUnknownTarget == 0 {
					fe.firstUnknownTsNs = e.TsNs
				}
				fe.cnpUnknownTarget++
				continue
			}
			fe := get(e.Target)
			if e.HasECNToCNP {
				fe.cnpWithLatency++
			} else {
				if fe.cnpNoCE == 0 {
					fe.firstNoCETsNs = e.TsNs
				}
				fe.cnpNoCE++
			}
		case flows.EventPSNGap, flows.EventPause:
		}
	}
	return m
}

// maxInWindow returns the largest number of timestamps (sorted) within any
// window of w ns (inclusive of both ends).
func maxInWindow(ts []int64, w int64) int {
	best, j := 0, 0
	for i := range ts {
		for ts[i]-ts[j] > w {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}

type findingList struct {
	out   []Finding
	order map[string]int // flow id -> first-seen index
}

func (l *findingList) add(sev Severity, code string, f *flows.Flow, format string, args ...any) {
	fd := Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)}
	if f != nil {
		fd.Flow = ptr(f.ID())
	}
	l.out = append(l.out, fd)
}

func severityRank(s Severity) int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	}
	return 2
}

// pcpList renders a PCP mask ("3", "3, 5", "untagged").
func pcpList(m uint16) string {
	var parts []string
	for p := range 8 {
		if m&(1<<p) != 0 {
			parts = append(parts, fmt.Sprint(p))
		}
	}
	if m&(1<<8) != 0 {
		parts = append(parts, "untagged")
	}
	return strings.Join(parts, ", ")
}

func dscpList(m uint64) string {
	var parts []string
	for d := range 64 {
		if m&(1<<d) != 0 {
			parts = append(parts, fmt.Sprint(d))
		}
	}
	return strings.Join(parts, ", ")
}

func findings(t *flows.Table, r *Report, opts Options) []Finding {
	l := &findingList{order: map[string]int{}}
	fev := gatherEvents(t)
	c := r.Capture

	// Priorities with PFC frames: known lossless classes.
	var lossless uint16
	for _, s := range t.PFC() {
		if s.Key.Priority >= 0 && s.Frames > 0 {
			lossless |= 1 << s.Key.Priority
		}
	}
	var dataPCP, cnpPCP uint16
	var dataDSCP, cnpDSCP uint64
	var notECT []*flows.Flow
	var notECTFrames int64
	var singleDSCP uint64 // union of the DSCPs of flows that use one DSCP
	var singlePCP uint16

	for _, f := range t.Flows() {
		l.order[f.ID()] = f.Index()
		fe := fev[f]
		if fe == nil {
			fe = &flowEvents{}
		}
		dataPCP |= f.PCPMask
		cnpPCP |= f.CNPPCPMask
		dataDSCP |= f.DSCPMask
		cnpDSCP |= f.CNPDSCPMask
		// Across flows: compare flows that are consistent on their own.
		if f.DataPackets > 0 && bits.OnesCount64(f.DSCPMask) == 1 {
			singleDSCP |= f.DSCPMask
		}
		if f.DataPackets > 0 && bits.OnesCount16(f.PCPMask) == 1 {
			singlePCP |= f.PCPMask
		}

		if f.PSNGaps > 0 {
			switch {
			case f.Key.UD:
				l.add(SeverityInfo, CodeUDPSNGap, f,
					"%s (%s) on a UD flow: a UD QP numbers PSNs across all its destinations, so this may not be loss",
					plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"))
			case f.PCPMask&lossless != 0:
				l.add(SeverityError, CodePSNGapLossless, f,
					"%s, %s missing on lossless priority %s (PFC seen): packets were dropped despite PFC",
					plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"), pcpList(f.PCPMask&lossless))
			default:
				l.add(SeverityWarning, CodePSNGap, f,
					"%s, %s missing (no PFC seen on priority %s, so lossless is not confirmed)",
					plural(f.PSNGaps, "PSN gap"), plural(f.MissingPSNs, "PSN"), pcpList(f.PCPMask))
			}
		}
		if n := len(fe.nakTs); n > 0 {
			codes := make([]uint8, 0, len(fe.nakCodes))
			for code := range fe.nakCodes {
				codes = append(codes, code)
			}
			slices.Sort(codes)
			var names []string
			for _, code := range codes {
				names = append(names, fmt.Sprintf("%s x%d", decode.NAKCodeName(code), fe.nakCodes[code]))
			}
			if w := maxInWindow(fe.nakTs, opts.StormWindowNs); w >= opts.StormCount {
				l.add(SeverityError, CodeNAKStorm, f, "NAK storm: %s, up to %d within %s (%s)",
					plural(int64(n), "NAK"), w, fmtDur(opts.StormWindowNs), strings.Join(names, ", "))
			} else {
				l.add(SeverityWarning, CodeNAK, f, "%s, first at %s (%s)", plural(int64(n), "NAK"), fmtTs(fe.firstNAKTsNs, c.FirstTsNs), strings.Join(names, ", "))
			}
		}
		if n := len(fe.rnrTs); n > 0 {
			if w := maxInWindow(fe.rnrTs, opts.StormWindowNs); w >= opts.StormCount {
				l.add(SeverityWarning, CodeRNRNAKStorm, f,
					"RNR NAK storm: %s, up to %d within %s: the receiver is not posting receive buffers fast enough",
					plural(int64(n), "RNR NAK"), w, fmtDur(opts.StormWindowNs))
			} else {
				l.add(SeverityInfo, CodeRNRNAK, f, "%s (receiver not ready), first at %s with timer %s",
					plural(int64(n), "RNR NAK"), fmtTs(fe.firstRNRTsNs, c.FirstTsNs), fmtDur(fe.firstRNRTimerNs))
			}
		}
		if fe.timeouts > 0 {
			l.add(SeverityWarning, CodeRetransmissionTimeout, f,
				"%s (%s) with no NAK before them: requester timeout; first at %s from PSN %d",
				plural(int64(fe.timeouts), "replay"), plural(fe.timeoutPackets, "packet"), fmtTs(fe.firstTimeoutTsNs, c.FirstTsNs), fe.firstTimeoutPSN)
		}
		if f.NotECT > 0 && !(f.Key.UD && f.Key.DstQPN == 1) { // QP1: CM MADs
			notECT = append(notECT, f)
			notECTFrames += f.NotECT
		}
		if f.ECNCE > 0 && f.CNPsReceived == 0 {
			l.add(SeverityWarning, CodeCEWithoutCNP, f,
				"%d CE-marked frames but no CNP answered them (NP not generating CNPs, CNPs lost, or not captured)", f.ECNCE)
		}
		if fe.cnpNoCE > 0 {
			l.add(SeverityInfo, CodeCNPWithoutCE, f,
				"%d CNPs arrived with no CE-marked frame since the previous CNP (first at %s): marks not captured, or CNPs from another cause",
				fe.cnpNoCE, fmtTs(fe.firstNoCETsNs, c.FirstTsNs))
		}
		if fe.cnpUnknownTarget > 0 {
			l.add(SeverityInfo, CodeCNPUnmatched, f,
				"%d CNPs whose congested flow could not be identified (first at %s)", fe.cnpUnknownTarget, fmtTs(fe.firstUnknownTsNs, c.FirstTsNs))
		}
		if bits.OnesCount64(f.DSCPMask) > 1 {
			l.add(SeverityWarning, CodeMixedDSCP, f, "frames of one flow use several DSCPs: %s", dscpList(f.DSCPMask))
		}
		if bits.OnesCount16(f.PCPMask) > 1 {
			l.add(SeverityWarning, CodeMixedPCP, f, "frames of one flow use several VLAN priorities: %s", pcpList(f.PCPMask))
		}
		if m := f.PMTU(); (t.Config().PMTU > 0 || m > 0) && f.MaxPayload > t.PMTUFor(f) {
			l.add(SeverityError, CodeOversizePayload, f, "a frame at %s carries %d payload bytes, more than the PMTU of %d bytes",
				fmtTs(f.MaxPayloadTs, c.FirstTsNs), f.MaxPayload, t.PMTUFor(f))
		}
		if ports, more := f.SrcPorts(); len(ports) > 1 {
			n := fmt.Sprint(len(ports))
			if more {
				n = "more than " + n
			}
			l.add(SeverityWarning, CodeMultipleSourcePorts, f,
				"one QP sends from %s UDP source ports: its packets may take several paths and arrive out of order", n)
		}
		if f.ICRCBad > 0 {
			l.add(SeverityError, CodeICRCBad, f, "%d of %d frames have a bad ICRC (corruption, or a middlebox rewrote an invariant field)",
				f.ICRCBad, f.Packets)
		}
	}

	switch n := len(notECT); {
	case n == 1:
		f := notECT[0]
		l.add(SeverityWarning, CodeNotECT, f,
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
		l.add(SeverityWarning, CodeNotECT, nil,
			"%d flows send Not-ECT (ECN 0) frames (%s in all: %s%s): switches cannot mark them and DCQCN cannot react",
			n, plural(notECTFrames, "frame"), strings.Join(ids, ", "), more)
	}
	if bits.OnesCount64(singleDSCP) > 1 {
		l.add(SeverityWarning, CodeMixedDSCPFlows, nil, "RoCE flows use different DSCPs: %s", dscpList(singleDSCP))
	}
	if bits.OnesCount16(singlePCP) > 1 {
		l.add(SeverityWarning, CodeMixedPCPFlows, nil, "RoCE flows use different VLAN priorities: %s", pcpList(singlePCP))
	}
	if cnpPCP != 0 {
		tagged := uint16(0xFF)
		switch {
		case cnpPCP&dataPCP&tagged != 0:
			l.add(SeverityWarning, CodeCNPOnDataPriority, nil,
				"CNPs travel on VLAN priority %s, which also carries RoCE data: they queue behind the congestion they report",
				pcpList(cnpPCP&dataPCP&tagged))
		case cnpPCP&tagged == 0 && dataPCP&tagged == 0 && cnpDSCP&dataDSCP != 0:
			l.add(SeverityWarning, CodeCNPOnDataPriority, nil,
				"CNPs use DSCP %s, which also carries RoCE data: they queue behind the congestion they report",
				dscpList(cnpDSCP&dataDSCP))
		}
	}
	roceTagged := (dataPCP | cnpPCP) & 0xFF
	for _, s := range t.PFC() {
		k := s.Key
		name := "802.3x PAUSE"
		if k.Priority >= 0 {
			name = fmt.Sprintf("priority %d", k.Priority)
		}
		if s.LongestNs > opts.PauseStormNs {
			l.add(SeverityError, CodePauseStorm, nil,
				"pause storm: %s held %s paused for %s in one episode (threshold %s): a PFC storm or deadlock",
				macString(k.SrcMAC), name, fmtDur(s.LongestNs), fmtDur(opts.PauseStormNs))
		}
		if k.Priority >= 0 && roceTagged != 0 && roceTagged&(1<<k.Priority) == 0 {
			l.add(SeverityWarning, CodePauseWithoutRoCE, nil,
				"%s sent %d PFC frames for priority %d, which carries no RoCE in this capture (RoCE uses %s)",
				macString(k.SrcMAC), s.Frames, k.Priority, pcpList(roceTagged))
		}
	}
	if c.ICRCUnchecked > 0 {
		l.add(SeverityInfo, CodeICRCUnchecked, nil,
			"%d of %d RoCE frames were cut too short to check the ICRC (capture snaplen)", c.ICRCUnchecked, c.RoCEPackets)
	}
	if c.Malformed > 0 {
		l.add(SeverityWarning, CodeMalformed, nil, "%d frames are malformed (their lengths contradict themselves)", c.Malformed)
	}
	if c.KernelDrops > 0 {
		l.add(SeverityWarning, CodeCaptureDrops, nil,
			"the capture itself lost %s in the kernel (receive ring full): PSN gaps and missing frames may be capture loss, not fabric loss",
			plural(c.KernelDrops, "frame"))
	}

	flowIdx := func(f Finding) int {
		if f.Flow == nil {
			return -1
		}
		return l.order[*f.Flow]
	}
	slices.SortStableFunc(l.out, func(a, b Finding) int {
		if c := cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)); c != 0 {
			return c
		}
		if c := cmp.Compare(flowIdx(a), flowIdx(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Code, b.Code)
	})
	if l.out == nil {
		return []Finding{}
	}
	return l.out
}
