package export

import (
	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
)

// PacketRow is one row of packets.parquet: one RoCE, CNP, PFC or PAUSE
// frame. Column names are the packet field names of `packets --json`
// (docs/interface.md); a pointer (or nil slice) is a nullable column,
// null exactly where `packets --json` prints null. Beyond the JSON:
// ts (the capture time as TIMESTAMP(NANOS, UTC), the same instant as ts_ns),
// truncated, malformed and encap.
//
// The struct defines the schema and is the type to read the file back
// into; the exporter itself writes the columns directly (packetWriter), so
// that a row costs no allocation and no reflection.
type PacketRow struct {
	Frame         int64    `parquet:"frame,delta"`
	File          string   `parquet:"file,dict"`
	TsNs          int64    `parquet:"ts_ns,delta"`
	Ts            int64    `parquet:"ts,timestamp(nanosecond:utc),delta"`
	Len           int32    `parquet:"len"`
	CapLen        int32    `parquet:"caplen"`
	Kind          string   `parquet:"kind,dict"`
	SrcMAC        *string  `parquet:"src_mac,optional,dict"`
	DstMAC        *string  `parquet:"dst_mac,optional,dict"`
	VLANID        *uint16  `parquet:"vlan_id,optional"`
	VLANPCP       *uint8   `parquet:"vlan_pcp,optional"`
	SrcIP         *string  `parquet:"src_ip,optional,dict"`
	DstIP         *string  `parquet:"dst_ip,optional,dict"`
	DSCP          *uint8   `parquet:"dscp,optional"`
	ECN           *uint8   `parquet:"ecn,optional"`
	TTL           *uint8   `parquet:"ttl,optional"`
	UDPSport      *uint16  `parquet:"udp_sport,optional"`
	UDPDport      *uint16  `parquet:"udp_dport,optional"`
	Opcode        *uint8   `parquet:"opcode,optional"`
	OpcodeName    *string  `parquet:"opcode_name,optional,dict"`
	Transport     *string  `parquet:"transport,optional,dict"`
	SE            *bool    `parquet:"se,optional"`
	MigReq        *bool    `parquet:"migreq,optional"`
	Pad           *uint8   `parquet:"pad,optional"`
	TVer          *uint8   `parquet:"tver,optional"`
	PKey          *uint16  `parquet:"pkey,optional"`
	FECN          *bool    `parquet:"fecn,optional"`
	BECN          *bool    `parquet:"becn,optional"`
	DstQPN        *uint32  `parquet:"dst_qpn,optional"`
	AckReq        *bool    `parquet:"ackreq,optional"`
	PSN           *uint32  `parquet:"psn,optional"`
	RETHVA        *uint64  `parquet:"reth_va,optional"`
	RETHRKey      *uint32  `parquet:"reth_rkey,optional"`
	RETHLen       *uint32  `parquet:"reth_len,optional"`
	AETHSyndrome  *uint8   `parquet:"aeth_syndrome,optional"`
	AETHMSN       *uint32  `parquet:"aeth_msn,optional"`
	DETHQKey      *uint32  `parquet:"deth_qkey,optional"`
	DETHSrcQPN    *uint32  `parquet:"deth_src_qpn,optional"`
	Imm           *uint32  `parquet:"imm,optional"`
	IETHRKey      *uint32  `parquet:"ieth_rkey,optional"`
	XRCSRQ        *uint32  `parquet:"xrc_srq,optional"`
	AtomicVA      *uint64  `parquet:"atomic_va,optional"`
	AtomicRKey    *uint32  `parquet:"atomic_rkey,optional"`
	AtomicSwapAdd *uint64  `parquet:"atomic_swap_add,optional"`
	AtomicCompare *uint64  `parquet:"atomic_compare,optional"`
	AtomicAckOrig *uint64  `parquet:"atomic_ack_orig,optional"`
	PayloadLen    *int32   `parquet:"payload_len,optional"`
	ICRC          *uint32  `parquet:"icrc,optional"`
	ICRCStatus    *string  `parquet:"icrc_status,optional,dict"`
	PFCEnable     *uint16  `parquet:"pfc_enable,optional"`
	PFCQuanta     []uint16 `parquet:"pfc_quanta,optional,list"`
	PauseQuanta   *uint16  `parquet:"pause_quanta,optional"`
	Flow          *string  `parquet:"flow,optional,dict"`
	Truncated     bool     `parquet:"truncated"`
	Malformed     bool     `parquet:"malformed"`
	Encap         *string  `parquet:"encap,optional,dict"`
	CMAttr        *uint16  `parquet:"cm_attr,optional"`
	CMLocalCommID *uint32  `parquet:"cm_local_comm_id,optional"`
	CMRemoteComm  *uint32  `parquet:"cm_remote_comm_id,optional"`
	CMLocalQPN    *uint32  `parquet:"cm_local_qpn,optional"`
	// Point is the capture point of the frame (--point), null without.
	Point *string `parquet:"point,optional,dict"`
	// Events is the `events` packet field: the kinds of the events the
	// frame shows, in flows.EventMaskNames order; null when none.
	Events []string `parquet:"events,optional,list"`
}

// FlowRow is one row of flows.parquet: a flow of the report ("flows" in
// docs/interface.md), plus first_ts and last_ts as TIMESTAMP(NANOS, UTC).
type FlowRow struct {
	ID            string  `parquet:"id,dict"`
	SrcIP         string  `parquet:"src_ip,dict"`
	DstIP         string  `parquet:"dst_ip,dict"`
	DstQPN        uint32  `parquet:"dst_qpn"`
	SrcQPN        *uint32 `parquet:"src_qpn,optional"`
	Transport     string  `parquet:"transport,dict"`
	Peer          *string `parquet:"peer,optional,dict"`
	Packets       int64   `parquet:"packets"`
	Bytes         int64   `parquet:"bytes"`
	PayloadBytes  int64   `parquet:"payload_bytes"`
	FirstTsNs     int64   `parquet:"first_ts_ns"`
	LastTsNs      int64   `parquet:"last_ts_ns"`
	FirstTs       int64   `parquet:"first_ts,timestamp(nanosecond:utc)"`
	LastTs        int64   `parquet:"last_ts,timestamp(nanosecond:utc)"`
	PSNGaps       int64   `parquet:"psn_gaps"`
	MissingPSNs   int64   `parquet:"missing_psns"`
	Retransmitted int64   `parquet:"retransmitted"`
	NAKs          int64   `parquet:"naks"`
	RNRNAKs       int64   `parquet:"rnr_naks"`
	ECNCE         int64   `parquet:"ecn_ce"`
	CNPs          int64   `parquet:"cnps"`
	CNPsReceived  int64   `parquet:"cnps_received"`

	// DCQCN reaction (issue 17).
	CCReactionCNPs int64    `parquet:"cc_reaction_cnps"`
	CCRateRatioP50 *float64 `parquet:"cc_rate_ratio_p50,optional"`
	// Response latency of the samples the flow is the request flow of
	// (issue 13); the percentiles are null when the count is 0.
	AckLatencyCount  int64  `parquet:"ack_latency_count"`
	AckLatencyP50Ns  *int64 `parquet:"ack_latency_p50_ns,optional"`
	AckLatencyP99Ns  *int64 `parquet:"ack_latency_p99_ns,optional"`
	AckLatencyMaxNs  *int64 `parquet:"ack_latency_max_ns,optional"`
	ReadLatencyCount int64  `parquet:"read_latency_count"`
	ReadLatencyP50Ns *int64 `parquet:"read_latency_p50_ns,optional"`
	ReadLatencyP99Ns *int64 `parquet:"read_latency_p99_ns,optional"`
	ReadLatencyMaxNs *int64 `parquet:"read_latency_max_ns,optional"`
	GoodputBps       *int64 `parquet:"goodput_bps,optional"` // null when the flow lasted 0 ns
	PeakBps          int64  `parquet:"peak_bps"`
}

// EventRow is one row of events.parquet: the common columns kind, ts_ns and
// flow (plus ts as TIMESTAMP(NANOS, UTC)), then every kind's own fields,
// null for the kinds that do not have them ("events" in docs/interface.md).
type EventRow struct {
	Kind        string  `parquet:"kind,dict"`
	TsNs        int64   `parquet:"ts_ns"`
	Ts          int64   `parquet:"ts,timestamp(nanosecond:utc)"`
	Flow        *string `parquet:"flow,optional,dict"`
	ExpectedPSN *uint32 `parquet:"expected_psn,optional"`
	PSN         *uint32 `parquet:"psn,optional"`
	Missing     *int64  `parquet:"missing,optional"`
	Packets     *int64  `parquet:"packets,optional"`
	AfterNAKNs  *int64  `parquet:"after_nak_ns,optional"`
	Code        *uint8  `parquet:"code,optional"`
	Name        *string `parquet:"name,optional,dict"`
	Timer       *uint8  `parquet:"timer,optional"`
	TimerNs     *int64  `parquet:"timer_ns,optional"`
	TargetFlow  *string `parquet:"target_flow,optional,dict"`
	ECNToCNPNs  *int64  `parquet:"ecn_to_cnp_ns,optional"`
	SrcMAC      *string `parquet:"src_mac,optional,dict"`
	Priority    *uint8  `parquet:"priority,optional"`
	EndNs       *int64  `parquet:"end_ns,optional"`
	DurationNs  *int64  `parquet:"duration_ns,optional"`
	Frames      *int64  `parquet:"frames,optional"`

	// cnp (issue 17): the target's rate before and after the CNP.
	RateBeforeBps *int64 `parquet:"rate_before_bps,optional"`
	RateAfterBps  *int64 `parquet:"rate_after_bps,optional"`
	// hop_loss (capture points)
	From *string `parquet:"from,optional,dict"`
	To   *string `parquet:"to,optional,dict"`
	// Stall and PSN-conflict columns (issue 13).
	IdleNs          *int64  `parquet:"idle_ns,optional"`
	SinceOriginalNs *int64  `parquet:"since_original_ns,optional"`
	OpcodeName      *string `parquet:"opcode_name,optional,dict"`
	ReadPSN         *uint32 `parquet:"read_psn,optional"`
	ReadSpan        *int64  `parquet:"read_span,optional"`
	SenderSpan      *int64  `parquet:"sender_span,optional"`
}

// PFCRow is one row of pfc.parquet: the pause history of one (source MAC,
// priority); priority is null for 802.3x PAUSE.
type PFCRow struct {
	SrcMAC    string `parquet:"src_mac,dict"`
	Priority  *uint8 `parquet:"priority,optional"`
	Frames    int64  `parquet:"frames"`
	XONFrames int64  `parquet:"xon_frames"`
	Episodes  int64  `parquet:"episodes"`
	PausedNs  int64  `parquet:"paused_ns"`
	LongestNs int64  `parquet:"longest_ns"`
}

// FlowRowOf converts a flow of the report.
func FlowRowOf(f *analysis.FlowReport) FlowRow {
	return FlowRow{
		ID: f.ID, SrcIP: f.SrcIP, DstIP: f.DstIP, DstQPN: f.DstQPN, SrcQPN: f.SrcQPN,
		Transport: f.Transport, Peer: f.Peer,
		Packets: f.Packets, Bytes: f.Bytes, PayloadBytes: f.PayloadBytes,
		FirstTsNs: f.FirstTsNs, LastTsNs: f.LastTsNs, FirstTs: f.FirstTsNs, LastTs: f.LastTsNs,
		PSNGaps: f.PSNGaps, MissingPSNs: f.MissingPSNs, Retransmitted: f.Retransmitted,
		NAKs: f.NAKs, RNRNAKs: f.RNRNAKs, ECNCE: f.ECNCE, CNPs: f.CNPs, CNPsReceived: f.CNPsReceived,
		CCReactionCNPs: f.CCReactionCNPs, CCRateRatioP50: f.CCRateRatioP50,
		AckLatencyCount: f.AckLatencyCount, AckLatencyP50Ns: f.AckLatencyP50Ns, AckLatencyP99Ns: f.AckLatencyP99Ns,
		AckLatencyMaxNs: f.AckLatencyMaxNs, ReadLatencyCount: f.ReadLatencyCount, ReadLatencyP50Ns: f.ReadLatencyP50Ns,
		ReadLatencyP99Ns: f.ReadLatencyP99Ns, ReadLatencyMaxNs: f.ReadLatencyMaxNs,
		GoodputBps: f.GoodputBps, PeakBps: f.PeakBps,
	}
}

// EventRowOf converts an event of the report.
func EventRowOf(e *analysis.EventReport) EventRow {
	r := EventRow{
		Kind: e.Kind, TsNs: e.TsNs, Ts: e.TsNs, Flow: e.Flow,
		ExpectedPSN: e.ExpectedPSN, PSN: e.PSN, Missing: e.Missing, Packets: e.Packets,
		AfterNAKNs: e.AfterNAKNs, Code: e.Code, Name: e.Name, Timer: e.Timer, TimerNs: e.TimerNs,
		TargetFlow: e.TargetFlow, ECNToCNPNs: e.ECNToCNPNs, SrcMAC: e.SrcMAC,
		EndNs: e.EndNs, DurationNs: e.DurationNs, Frames: e.Frames,
		RateBeforeBps: e.RateBeforeBps, RateAfterBps: e.RateAfterBps,
		From: e.From, To: e.To,
		IdleNs: e.IdleNs, SinceOriginalNs: e.SinceOriginalNs, OpcodeName: e.OpcodeName,
		ReadPSN: e.ReadPSN, ReadSpan: e.ReadSpan, SenderSpan: e.SenderSpan,
	}
	if e.Priority != nil {
		p := uint8(*e.Priority)
		r.Priority = &p
	}
	return r
}

// PFCRowOf converts a PFC entry of the report.
func PFCRowOf(p *analysis.PFCReport) PFCRow {
	r := PFCRow{
		SrcMAC: p.SrcMAC, Frames: p.Frames, XONFrames: p.XONFrames,
		Episodes: p.Episodes, PausedNs: p.PausedNs, LongestNs: p.LongestNs,
	}
	if p.Priority != nil {
		v := uint8(*p.Priority)
		r.Priority = &v
	}
	return r
}

// Wanted reports whether a frame gets a row in packets.parquet: RoCE, CNP,
// PFC and PAUSE frames.
func Wanted(p *decode.Packet) bool {
	switch p.Kind {
	case decode.KindRoCE, decode.KindCNP, decode.KindPFC, decode.KindPause:
		return true
	case decode.KindOther:
	}
	return false
}

// opcodeNames holds the opcodes' names, computed once so that reserved
// values (whose String allocates) cost nothing per packet. Never written
// after initialisation.
var opcodeNames = func() (a [256]string) {
	for i := range a {
		a[i] = decode.Opcode(i).String()
	}
	return a
}()
