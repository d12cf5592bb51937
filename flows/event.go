package flows

// EventKind is the kind of an Event.
type EventKind uint8

// Event kinds, in the order events of equal time and flow are sorted.
const (
	EventPSNGap EventKind = iota + 1
	EventRetransmission
	EventNAK
	EventRNRNAK
	EventCNP
	EventPause
	EventPSNConflict // a request numbered inside the flow's latest READ's range (PMTU mismatch)

	// EventHopLoss is a frame lost between two capture points (package
	// points; analysis makes these events, the table never does).
	EventHopLoss
)

// String returns the contract name: "psn_gap", "retransmission", "nak",
// "rnr_nak", "cnp", "pause" or "psn_conflict".
func (k EventKind) String() string {
	switch k {
	case EventPSNGap:
		return "psn_gap"
	case EventRetransmission:
		return "retransmission"
	case EventNAK:
		return "nak"
	case EventRNRNAK:
		return "rnr_nak"
	case EventCNP:
		return "cnp"
	case EventPause:
		return "pause"
	case EventHopLoss:
		return "hop_loss"
	case EventPSNConflict:
		return "psn_conflict"
	}
	return "unknown"
}

// Event is one notable thing in the capture, as data. Which fields apply
// depends on Kind:
//
//	psn_gap:        ExpectedPSN, PSN, Missing
//	retransmission: PSN (first replayed), Packets, AfterNAKNs if HasAfterNAK,
//	                IdleNs, SinceOriginalNs if HasSinceOriginal
//	nak:            PSN, Code (NAK code), Target
//	rnr_nak:        PSN, Code (RNR timer code), TimerNs, Target
//	cnp:            Target, ECNToCNPNs if HasECNToCNP, RateBeforeBps if HasRateBefore, RateAfterBps if HasRateAfter
//	pause:          SrcMAC, Priority (-1: 802.3x whole link), EndNs, DurationNs, Frames
//	psn_conflict:   PSN, Opcode, ReadPSN, ReadSpan (sender_span: SenderSpan),
//	                SenderPMTUs, ResponderPMTUs
//
// Flow is the flow of the packet that shows the event (nil for pause);
// Target is nil when unknown.
//
// The fields are ordered by size (8-byte ones first) so the struct has no
// padding holes: 112 bytes instead of 152, and a capture can hold many
// events.
type Event struct {
	TsNs       int64
	Flow       *Flow
	Target     *Flow
	Missing    int64
	Packets    int64
	AfterNAKNs int64
	TimerNs    int64
	ECNToCNPNs int64
	EndNs      int64
	DurationNs int64
	Frames     int64

	PSN         PSN
	ExpectedPSN PSN

	SrcMAC      [6]byte
	Kind        EventKind
	Code        uint8
	Priority    int8
	HasAfterNAK bool
	HasECNToCNP bool

	// DCQCN reaction (cnp events with a target, ccrate.go): the target's
	// rate over its last CNPRateWindow request packets before the CNP and its
	// first CNPRateWindow after it, when HasRateBefore / HasRateAfter.
	// (The flags come first: they fill the padding after HasECNToCNP, so
	// the event grows by the two rates only, 112 -> 128 bytes.)
	HasRateBefore bool
	HasRateAfter  bool
	RateBeforeBps int64
	RateAfterBps  int64
	// Latency and PSN-conflict fields (issue 13), appended: with the DCQCN
	// rates the Event grows from 112 to 160 bytes.
	IdleNs           int64 // retransmission: replay time - the flow's latest earlier request packet
	SinceOriginalNs  int64 // retransmission: replay time - first time the flow sent that PSN
	ReadPSN          PSN   // psn_conflict: the READ Request's PSN
	ReadSpan         int32 // psn_conflict: PSNs the READ took (responses, else the PMTU)
	Opcode           uint8 // psn_conflict: the conflicting request's BTH opcode (decode.Opcode)
	HasSinceOriginal bool  // SinceOriginalNs is set
	// SenderPMTUs and ResponderPMTUs (psn_conflict) have bit i set when the
	// PMTU 256<<i (i = 0..4) gives ceil(L/PMTU) equal to SenderSpan resp.
	// ReadSpan, L the READ's DMA length.
	SenderPMTUs    uint8
	ResponderPMTUs uint8
}

// SenderSpan returns a psn_conflict's sender_span: PSN - ReadPSN.
func (e *Event) SenderSpan() int64 { return e.PSN.Diff(e.ReadPSN) }
