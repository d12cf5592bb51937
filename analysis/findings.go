package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
	CodeFlowsDropped          = "flows_dropped" // warning: frames of flows beyond --max-flows were not analysed
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
	minTimeoutIdle   int64 // shortest idle_ns of the timeouts (timeouts > 0)
}

// gatherEvents gathers each flow's facts from the table's events, indexed
// by Flow.Index (nil for a flow with none).
func gatherEvents(t *flows.Table) []*flowEvents {
	// Every event's flows are the table's: Index < len(t.Flows()).
	m := make([]*flowEvents, len(t.Flows()))
	get := func(f *flows.Flow) *flowEvents {
		if m[f.Index()] == nil {
			m[f.Index()] = &flowEvents{}
		}
		return m[f.Index()]
	}
	for i := range t.NumEvents() {
		e := t.Event(i)
		switch e.Kind {
		case flows.EventNAK:
			fe := get(e.Flow)
			if len(fe.nakTs) == 0 {
				fe.firstNAKTsNs = e.TsNs
			}
			fe.nakTs = append(fe.nakTs, e.TsNs)
			if fe.nakCodes == nil {
				fe.nakCodes = map[uint8]int{}
			}
			fe.nakCodes[e.Code()]++
		case flows.EventRNRNAK:
			fe := get(e.Flow)
			if len(fe.rnrTs) == 0 {
				fe.firstRNRTsNs = e.TsNs
				fe.firstRNRTimerNs = e.TimerNs()
			}
			fe.rnrTs = append(fe.rnrTs, e.TsNs)
		case flows.EventRetransmission:
			if !e.HasAfterNAK() {
				fe := get(e.Flow)
				if fe.timeouts == 0 {
					fe.firstTimeoutPSN, fe.firstTimeoutTsNs = uint32(e.PSN), e.TsNs
					fe.minTimeoutIdle = e.IdleNs()
				}
				fe.minTimeoutIdle = min(fe.minTimeoutIdle, e.IdleNs())
				fe.timeouts++
				fe.timeoutPackets += e.Packets()
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
			if e.HasECNToCNP() {
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

// finder collects the findings of one report. Each theme adds its own:
// loss (findings_loss.go), congestion (findings_congestion.go), QoS and
// path (findings_qos.go), PFC (findings_pfc.go) and the capture itself
// (findings_capture.go); findings sorts them.
type finder struct {
	t    *flows.Table
	c    *CaptureSummary
	opts Options
	fev  []*flowEvents // by Flow.Index: gatherEvents
	none flowEvents    // the events of a flow without any
	out  []Finding
}

// events returns the gathered events of f (none when it has none).
func (fd *finder) events(f *flows.Flow) *flowEvents {
	if fe := fd.fev[f.Index()]; fe != nil { // f is the table's
		return fe
	}
	return &fd.none
}

func (fd *finder) add(sev Severity, code string, f *flows.Flow, format string, args ...any) {
	d := Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)}
	if f != nil {
		d.Flow = ptr(f.ID())
	}
	fd.out = append(fd.out, d)
}

// findings returns the findings of the table t (c: its capture's counters),
// sorted by severity, then flow
// (capture-wide first, then first-seen order), then code. Findings with the
// same keys keep the order their theme adds them in.
func findings(t *flows.Table, c *CaptureSummary, opts Options, cc map[*flows.Flow]*ccFlow) []Finding {
	fd := &finder{t: t, c: c, opts: opts, fev: gatherEvents(t)}
	m := gatherMasks(t)
	fd.loss(losslessPriorities(t))
	fd.congestion()
	fd.ccFindings(cc)
	fd.qos(&m)
	fd.pfc(&m)
	fd.capture()
	fd.pmtuMismatch()
	sortFindings(t, fd.out)
	if fd.out == nil {
		return []Finding{}
	}
	return fd.out
}

// sortFindings sorts out by severity, then flow, then code (stable).
func sortFindings(t *flows.Table, out []Finding) {
	// flow id -> first-seen index, of the flows with findings only (a map of
	// every flow would cost ~100 bytes a flow at the report's peak)
	order := make(map[string]int)
	for _, f := range out {
		if f.Flow != nil {
			order[*f.Flow] = 0
		}
	}
	if len(order) > 0 {
		for _, f := range t.Flows() {
			if _, ok := order[f.ID()]; ok {
				order[f.ID()] = f.Index()
			}
		}
	}
	sortFindingsRanked(out, func(flow *string) int {
		if flow == nil {
			return -1
		}
		return order[*flow]
	})
}

// sortFindingsRanked sorts out by severity, then flow (rank(f.Flow)), then
// code; findings equal in all three keep their order. Each finding's keys
// are computed once (a comparison that looked the flow up in a map cost
// 60% of the findings of 1M frames).
func sortFindingsRanked(out []Finding, rank func(flow *string) int) {
	type key struct {
		sev, flow, i int
		code         string
	}
	keys := make([]key, len(out))
	for i := range out {
		keys[i] = key{severityRank(out[i].Severity), rank(out[i].Flow), i, out[i].Code}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.sev, b.sev); c != 0 {
			return c
		}
		if c := cmp.Compare(a.flow, b.flow); c != 0 {
			return c
		}
		if c := cmp.Compare(a.code, b.code); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i) // stable
	})
	sorted := make([]Finding, len(out))
	for j, k := range keys {
		sorted[j] = out[k.i]
	}
	copy(out, sorted)
}
