package analysis

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math/bits"
	"net"

	"github.com/rocetrace/rocetrace/flows"
)

// Report is the whole analysis, in the shape of `rocetrace report --json`
// (docs/interface.md). Slices are never nil, so they marshal as [].
type Report struct {
	Capture    CaptureSummary `json:"capture"`
	Flows      []FlowReport   `json:"flows"`
	Events     []EventReport  `json:"events"`
	CNPLatency LatencySummary `json:"cnp_latency"`
	PFC        []PFCReport    `json:"pfc"`
	// Findings of a lean report are nil, and its CNPLatency and Latency
	// zero, until Await (lean.go).
	Findings []Finding `json:"findings"`

	// Points and Hops are set with capture points (--point; AddPoints)
	// and left nil otherwise: WriteJSON then writes neither member.
	Points []PointReport `json:"points,omitempty"`
	Hops   []HopReport   `json:"hops,omitempty"`
	// Latency summarises the response-latency samples (latency.go).
	Latency LatencyReport `json:"latency"`

	// lean is set by Build with Options.Lean: Flows and Events are then
	// nil and built from the table on demand (lean.go).
	lean *leanSource
}

// CaptureSummary holds the capture-wide counters (contract "Counting").
type CaptureSummary struct {
	Files         []string `json:"files"`
	Packets       int64    `json:"packets"`
	RoCEPackets   int64    `json:"roce_packets"`
	CNPPackets    int64    `json:"cnp_packets"`
	PFCFrames     int64    `json:"pfc_frames"`
	PauseFrames   int64    `json:"pause_frames"`
	Truncated     int64    `json:"truncated"`
	Malformed     int64    `json:"malformed"`
	ICRCBad       int64    `json:"icrc_bad"`
	ICRCUnchecked int64    `json:"icrc_unchecked"`
	FirstTsNs     int64    `json:"first_ts_ns"`
	LastTsNs      int64    `json:"last_ts_ns"`
	// KernelDrops is the number of frames a live capture lost in the
	// kernel (PACKET_STATISTICS drops) before rocetrace could read them;
	// always 0 for files. The caller sets it: Counter never does.
	KernelDrops int64 `json:"kernel_drops"`
	// FlowsDropped is the number of frames that started no flow because
	// the flow table was full (flows.Config.MaxFlows; --max-flows). Build
	// sets it from the table.
	FlowsDropped int64 `json:"flows_dropped"`
	// Interrupted says that a signal stopped the reading before the end of
	// the input: the report covers the frames read until then. The caller
	// sets it: Counter never does.
	Interrupted bool `json:"interrupted"`
	// FilteredOut is the number of frames the read filter (-R) dropped
	// before any analysis; Packets counts them too (every frame read), the
	// other counters do not. The caller sets it (engine.Engine.Summary).
	FilteredOut int64 `json:"filtered_out"`
}

// FlowReport is one flow of the report.
type FlowReport struct {
	ID            string  `json:"id"`
	SrcIP         string  `json:"src_ip"`
	DstIP         string  `json:"dst_ip"`
	DstQPN        uint32  `json:"dst_qpn"`
	SrcQPN        *uint32 `json:"src_qpn"`   // null except for UD
	Transport     string  `json:"transport"` // RC, UC, UD, XRC (RD) or CNP
	Peer          *string `json:"peer"`      // null when unknown
	Packets       int64   `json:"packets"`
	Bytes         int64   `json:"bytes"`
	PayloadBytes  int64   `json:"payload_bytes"`
	FirstTsNs     int64   `json:"first_ts_ns"`
	LastTsNs      int64   `json:"last_ts_ns"`
	PSNGaps       int64   `json:"psn_gaps"`
	MissingPSNs   int64   `json:"missing_psns"`
	Retransmitted int64   `json:"retransmitted"`
	NAKs          int64   `json:"naks"`
	RNRNAKs       int64   `json:"rnr_naks"`
	ECNCE         int64   `json:"ecn_ce"`
	CNPs          int64   `json:"cnps"`
	CNPsReceived  int64   `json:"cnps_received"`

	// DCQCN reaction (issue 17, ccreaction.go): CNPs targeting this flow
	// with both rates (rate_before_bps > 0), and the nearest-rank median of
	// their rate_after_bps / rate_before_bps (null when there are none).
	CCReactionCNPs int64    `json:"cc_reaction_cnps"`
	CCRateRatioP50 *float64 `json:"cc_rate_ratio_p50"`
	// Response latency of the samples this flow is the request flow of
	// (latency.go); the percentiles are null when the count is 0.
	AckLatencyCount  int64  `json:"ack_latency_count"`
	AckLatencyP50Ns  *int64 `json:"ack_latency_p50_ns"`
	AckLatencyP99Ns  *int64 `json:"ack_latency_p99_ns"`
	AckLatencyMaxNs  *int64 `json:"ack_latency_max_ns"`
	ReadLatencyCount int64  `json:"read_latency_count"`
	ReadLatencyP50Ns *int64 `json:"read_latency_p50_ns"`
	ReadLatencyP99Ns *int64 `json:"read_latency_p99_ns"`
	ReadLatencyMaxNs *int64 `json:"read_latency_max_ns"`
	// Throughput (rates.go): goodput_bps = floor(payload_bytes × 8 × 10^9 /
	// (last_ts_ns − first_ts_ns)), null when that is 0; peak_bps = the
	// busiest window of flows.Table.Bin (--bin), floor(bytes × 8 × 10^9 / W).
	GoodputBps *int64 `json:"goodput_bps"`
	PeakBps    int64  `json:"peak_bps"`

	// QoS marking (issue 16), to check a "lossless priority" finding:
	// dscp is the DSCP of the flow's non-CNP frames (of its CNPs for a flow
	// of CNPs only), the lowest when they had several (dscp_mixed);
	// vlan_id and pcp are the outermost VLAN tag of its first non-CNP frame
	// (first CNP), null when untagged, and vlan_mixed says that a later
	// frame had another id or PCP or was tagged differently (flows.VLAN).
	// src_port is the UDP source port of its first non-CNP frame (null: a
	// flow of CNPs), src_ports the number of distinct ones, counted up to
	// 8, and src_ports_more that there were more.
	DSCP         int  `json:"dscp"`
	DSCPMixed    bool `json:"dscp_mixed"`
	VLANID       *int `json:"vlan_id"`
	PCP          *int `json:"pcp"`
	VLANMixed    bool `json:"vlan_mixed"`
	SrcPort      *int `json:"src_port"`
	SrcPorts     int  `json:"src_ports"`
	SrcPortsMore bool `json:"src_ports_more"`
}

// LatencySummary summarises the non-null ecn_to_cnp_ns values. Percentiles
// are nearest-rank: the ceil(p*n)-th smallest value. With no values every
// field is 0.
type LatencySummary struct {
	Count int64 `json:"count"`
	MinNs int64 `json:"min_ns"`
	P50Ns int64 `json:"p50_ns"`
	P99Ns int64 `json:"p99_ns"`
	MaxNs int64 `json:"max_ns"`
}

// PFCReport is the pause history of one (source MAC, priority).
type PFCReport struct {
	SrcMAC    string `json:"src_mac"`
	Priority  *int   `json:"priority"` // null: 802.3x PAUSE (whole link)
	Frames    int64  `json:"frames"`
	XONFrames int64  `json:"xon_frames"`
	Episodes  int64  `json:"episodes"`
	PausedNs  int64  `json:"paused_ns"`
	LongestNs int64  `json:"longest_ns"`
}

// Severity is how serious a finding is. Its JSON is the bare string
// ("error", "warning" or "info").
type Severity string

// Severities of a finding, most serious first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Finding is one diagnosis. Code is a stable lower_snake identifier (see the
// package doc); Flow is null for capture-wide findings.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Flow     *string  `json:"flow"`
	// TimeoutK and IdleNs are set on retransmission_timeout findings only:
	// the smallest QP timeout attribute k with 4.096 µs x 2^k >= IdleNs,
	// the shortest idle_ns of the flow's timeouts.
	TimeoutK *int   `json:"timeout_k"`
	IdleNs   *int64 `json:"idle_ns"`
}

// Options tunes Build. Zero values take the defaults.
type Options struct {
	PauseStormNs  int64 // a pause episode longer than this is a pause storm; default 100 ms
	StormCount    int   // NAKs (or RNR NAKs) on one flow within StormWindowNs that make a storm; default 10
	StormWindowNs int64 // default 1 s

	// CNP checks (issue 17): CNPs to one flow closer than CNPIntervalNs
	// raise cnp_interval_short (default 4 µs); CNPs whose DSCP is not
	// *CNPDSCP (nil: 48) or, tagged, whose PCP is not *CNPPCP (nil: 6)
	// raise cnp_marking.
	CNPIntervalNs int64
	CNPDSCP       *int
	CNPPCP        *int

	// Lean makes Build leave Flows and Events nil and keep the table
	// instead, which must not change afterwards: the rows are built from it
	// a chunk at a time by WriteJSON and export (NumFlows, AppendFlows,
	// NumEvents, AppendEvents; lean.go), so the report costs no memory per
	// flow or event. Materialize fills Flows and Events; json.Marshal of a
	// lean report has no rows (WriteJSON has them). Its Findings are
	// computed on a goroutine of their own meanwhile, with the latency
	// summaries (Await).
	Lean bool
}

// Defaults.
const (
	DefaultPauseStormNs  int64 = 100_000_000
	DefaultStormCount          = 10
	DefaultStormWindowNs int64 = 1_000_000_000
)

func (o Options) withDefaults() Options {
	if o.PauseStormNs <= 0 {
		o.PauseStormNs = DefaultPauseStormNs
	}
	if o.StormCount <= 0 {
		o.StormCount = DefaultStormCount
	}
	if o.StormWindowNs <= 0 {
		o.StormWindowNs = DefaultStormWindowNs
	}
	if o.CNPIntervalNs <= 0 {
		o.CNPIntervalNs = DefaultCNPIntervalNs
	}
	if o.CNPDSCP == nil {
		o.CNPDSCP = ptr(DefaultCNPDSCP)
	}
	if o.CNPPCP == nil {
		o.CNPPCP = ptr(DefaultCNPPCP)
	}
	return o
}

// Build assembles the report from a table (it calls t.Finish) and the
// capture counters. The result is deterministic: flows in first-seen order,
// events in the table's order (ts, flow, kind), PFC entries by MAC then
// priority (802.3x first), findings by severity, then flow (capture-wide
// first, then first-seen order), then code.
func Build(t *flows.Table, c CaptureSummary, opts Options) Report {
	opts = opts.withDefaults()
	t.Finish()
	r := Report{
		Capture:  c,
		PFC:      make([]PFCReport, 0, len(t.PFC())),
		Findings: []Finding{},
	}
	if r.Capture.Files == nil {
		r.Capture.Files = []string{}
	}
	r.Capture.FlowsDropped = t.FlowsDropped()
	// The rest (latency summaries, findings) is computed on a goroutine of
	// its own (lean.go): while ccReactions runs here, then while the
	// writers (lean) or this goroutine turn the table into rows.
	rest, ccs := startRest(t, r.Capture, opts)
	cc := ccReactions(t)
	ccs <- cc
	if opts.Lean {
		r.lean = &leanSource{t: t, cc: cc, rest: rest}
		r.Findings = nil
	} else {
		r.Flows = make([]FlowReport, 0, len(t.Flows()))
		r.Events = make([]EventReport, 0, t.NumEvents())
		var scratch latScratch
		for _, f := range t.Flows() {
			r.Flows = append(r.Flows, flowRow(f, t.Bin(), cc, &scratch))
		}
		var arena eventArena
		for i := range t.NumEvents() {
			r.Events = append(r.Events, arena.eventReport(t.Event(i)))
		}
		<-rest.done
		r.CNPLatency, r.Latency, r.Findings = rest.cnpLatency, rest.latency, rest.findings
	}
	for _, s := range t.PFC() {
		r.PFC = append(r.PFC, pfcReport(s))
	}
	return r
}

// flowReport is flow f's counters, latency (scratch: addFlowLatency's
// buffer) and QoS.
func flowReport(f *flows.Flow, scratch *latScratch) FlowReport {
	k := f.Key
	fr := FlowReport{
		ID: f.ID(), SrcIP: k.Src.String(), DstIP: k.Dst.String(), DstQPN: k.DstQPN,
		Transport: f.Transport(),
		Packets:   f.Packets, Bytes: f.Bytes, PayloadBytes: f.PayloadBytes,
		FirstTsNs: f.FirstTsNs, LastTsNs: f.LastTsNs,
		PSNGaps: f.PSNGaps, MissingPSNs: f.MissingPSNs, Retransmitted: f.Retransmitted,
		NAKs: f.NAKs, RNRNAKs: f.RNRNAKs, ECNCE: f.ECNCE, CNPs: f.CNPs, CNPsReceived: f.CNPsReceived,
	}
	if k.UD && k.HasSrcQPN {
		fr.SrcQPN = ptr(k.SrcQPN)
	}
	if p := f.Peer(); p != nil {
		fr.Peer = ptr(p.ID())
	}
	addFlowLatency(&fr, f, scratch)
	addFlowQoS(&fr, f)
	return fr
}

// addFlowQoS sets the flow's DSCP, VLAN tag and source ports (one
// allocation for the nullable values of a tagged flow).
func addFlowQoS(fr *FlowReport, f *flows.Flow) {
	dscps := f.DSCPMask
	if f.DataPackets == 0 {
		dscps = f.CNPDSCPMask
	}
	fr.DSCP, fr.DSCPMixed = bits.TrailingZeros64(dscps)&63, bits.OnesCount64(dscps) > 1
	v := f.VLAN()
	fr.VLANMixed = v.Mixed
	port, hasPort := f.FirstSrcPort()
	if !v.Tagged && !hasPort {
		return
	}
	vals := new([3]int)
	if v.Tagged {
		vals[0], vals[1] = int(v.ID), int(v.PCP)
		fr.VLANID, fr.PCP = &vals[0], &vals[1]
	}
	if hasPort {
		vals[2] = int(port)
		fr.SrcPort = &vals[2]
	}
	fr.SrcPorts, fr.SrcPortsMore = f.NumSrcPorts()
}

func pfcReport(s *flows.PFCStat) PFCReport {
	pr := PFCReport{
		SrcMAC: macString(s.Key.SrcMAC), Frames: s.Frames, XONFrames: s.XONFrames,
		Episodes: s.Episodes, PausedNs: s.PausedNs, LongestNs: s.LongestNs,
	}
	if s.Key.Priority >= 0 {
		pr.Priority = ptr(int(s.Key.Priority))
	}
	return pr
}

func macString(m [6]byte) string { return net.HardwareAddr(m[:]).String() }

func ptr[T any](v T) *T { return &v }

// cnpLatency summarises the non-null ecn_to_cnp_ns values, nearest-rank.
func cnpLatency(t *flows.Table) LatencySummary {
	var v []int64
	for i := range t.NumEvents() {
		if e := t.Event(i); e.Kind == flows.EventCNP && e.HasECNToCNP() {
			v = append(v, e.ECNToCNPNs())
		}
	}
	return summarizeOwned(v) // v is this function's: no copy
}

// nearestRank returns ceil(pct/100 * n), at least 1, in integer arithmetic.
func nearestRank(pct, n int) int {
	return max(1, (pct*n+99)/100)
}

// WriteJSON writes the report as one JSON document followed by a newline,
// indented with two spaces when indent is set. Unlike json.Marshal it does
// not HTML-escape, so flow ids read "10.0.0.1>10.0.0.2:qp0x000011".
//
// The document is streamed: the members are written one by one, and the
// flows and events one element at a time, so the whole document is never
// held in memory. The bytes are those of a json.Encoder (SetEscapeHTML
// false, SetIndent "", "  " when indent) encoding r.
func WriteJSON(w io.Writer, r Report, indent bool) error {
	return writeJSON(w, r, indent, eventSplit{splitMinEvents, splitChunk, splitBlock})
}

// writeJSON is WriteJSON with a lean report's events split by split
// (jsonsplit.go).
func writeJSON(w io.Writer, r Report, indent bool, split eventSplit) error {
	jw := jsonWriter{w: bufio.NewWriterSize(w, 64<<10), indent: indent, split: split}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	jw.raw("{")
	jw.member("capture", true)
	jw.value(r.Capture)
	jw.member("flows", false)
	fc := r.flowCursor() // a lean report's rows, rowChunk at a time
	jw.array(r.Flows == nil && r.lean == nil, r.NumFlows(), func(i int) {
		jw.tmp = fc.at(i).appendJSON(jw.tmp[:0], indent)
		jw.w.Write(jw.tmp)
	})
	jw.member("events", false)
	jw.events(&r) // a lean report's on two goroutines (jsonsplit.go)
	r.Await()     // a lean report's findings and latency, computed while the rows above were written
	jw.member("cnp_latency", false)
	jw.value(r.CNPLatency)
	jw.member("pfc", false)
	jw.array(r.PFC == nil, len(r.PFC), func(i int) { jw.elem(r.PFC[i]) })
	jw.member("findings", false)
	jw.array(r.Findings == nil, len(r.Findings), func(i int) {
		jw.tmp = r.Findings[i].appendJSON(jw.tmp[:0], indent)
		jw.w.Write(jw.tmp)
	})
	if r.Points != nil { // capture points (AddPoints)
		jw.member("points", false)
		jw.array(false, len(r.Points), func(i int) { jw.elem(r.Points[i]) })
		jw.member("hops", false)
		jw.array(r.Hops == nil, len(r.Hops), func(i int) { jw.elem(r.Hops[i]) })
	}
	jw.member("latency", false)
	jw.value(r.Latency)
	if indent {
		jw.raw("\n")
	}
	jw.raw("}\n")
	if jw.err != nil {
		return jw.err
	}
	return jw.w.Flush()
}

// jsonWriter is WriteJSON's state. The first error sticks (bufio.Writer
// keeps write errors; err holds encoding ones).
type jsonWriter struct {
	w      *bufio.Writer
	indent bool
	split  eventSplit
	rows   []EventReport // a lean report's event rows, rowChunk at a time
	enc    *json.Encoder // encodes into buf
	buf    bytes.Buffer
	tmp    []byte
	err    error
}

func (jw *jsonWriter) raw(s string) { jw.w.WriteString(s) }

// member writes the key of a top-level member.
func (jw *jsonWriter) member(key string, first bool) {
	if !first {
		jw.raw(",")
	}
	if jw.indent {
		jw.raw("\n  \"" + key + "\": ")
	} else {
		jw.raw("\"" + key + "\":")
	}
}

// encode writes v encoded compact by enc (without Encode's newline) and,
// when indenting, indented with prefix (what an Encoder with SetIndent(prefix,
// "  ") writes; appendIndented does it faster).
func (jw *jsonWriter) encode(v any, prefix string) {
	jw.buf.Reset()
	if err := jw.enc.Encode(v); err != nil {
		if jw.err == nil {
			jw.err = err
		}
		return
	}
	b := jw.buf.Bytes()
	b = b[:len(b)-1]
	if jw.indent {
		jw.tmp = appendIndented(jw.tmp[:0], b, prefix, "  ")
		b = jw.tmp
	}
	jw.w.Write(b)
}

// value writes a member value: its first line follows the key, the others
// are at depth 1 and deeper.
func (jw *jsonWriter) value(v any) { jw.encode(v, "  ") }

// elem writes an element of a member array.
func (jw *jsonWriter) elem(v any) { jw.encode(v, "    ") }

// array writes a member array of n elements (null for a nil slice);
// each(i) writes element i.
func (jw *jsonWriter) array(isNil bool, n int, each func(i int)) {
	if isNil {
		jw.raw("null")
		return
	}
	if n == 0 {
		jw.raw("[]")
		return
	}
	jw.raw("[")
	for i := range n {
		if i > 0 {
			jw.raw(",")
		}
		if jw.indent {
			jw.raw("\n    ")
		}
		each(i)
	}
	if jw.indent {
		jw.raw("\n  ")
	}
	jw.raw("]")
}
