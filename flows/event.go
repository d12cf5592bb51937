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
)

// String returns the contract name: "psn_gap", "retransmission", "nak",
// "rnr_nak", "cnp" or "pause".
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
	}
	return "unknown"
}

// Event is one notable thing in the capture, as data. Which fields apply
// depends on Kind:
//
//	psn_gap:        ExpectedPSN, PSN, Missing
//	retransmission: PSN (first replayed), Packets, AfterNAKNs if HasAfterNAK
//	nak:            PSN, Code (NAK code), Target
//	rnr_nak:        PSN, Code (RNR timer code), TimerNs, Target
//	cnp:            Target, ECNToCNPNs if HasECNToCNP
//	pause:          SrcMAC, Priority (-1: 802.3x whole link), EndNs, DurationNs, Frames
//
// Flow is the flow of the packet that shows the event (nil for pause);
// Target is nil when unknown.
type Event struct {
	Kind EventKind
	TsNs int64
	Flow *Flow

	PSN         PSN
	ExpectedPSN PSN
	Missing     int64

	Packets     int64
	AfterNAKNs  int64
	HasAfterNAK bool

	Code    uint8
	TimerNs int64
	Target  *Flow

	ECNToCNPNs  int64
	HasECNToCNP bool

	SrcMAC     [6]byte
	Priority   int8
	EndNs      int64
	DurationNs int64
	Frames     int64
}
