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

// Event is one notable thing in the capture, as data. Which values apply
// depends on Kind; they are read with the methods of the same name:
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
// Target is nil when unknown. A method of a value the event's kind does not
// have returns zero.
//
// The kind-specific values share four 8-byte slots (a union: see the
// slot constants), so an Event is 64 bytes whatever its kind and a
// capture with a million events keeps 64 MB of them (issue 12 item 10;
// with every kind's fields side by side it was 160 bytes).
type Event struct {
	TsNs   int64
	Flow   *Flow
	Target *Flow
	v      [4]int64 // kind-specific values (slot constants)
	PSN    PSN
	Kind   EventKind
	flags  uint8 // has* bits
	aux    uint8 // nak, rnr_nak: code; pause: priority (int8); psn_conflict: opcode
}

// Slots of Event.v by kind.
const (
	slotMissing  = 0 // psn_gap
	slotExpected = 1 // psn_gap: expected PSN

	slotPackets    = 0 // retransmission
	slotAfterNAK   = 1
	slotIdle       = 2
	slotSinceOrig  = 3
	slotTimer      = 0 // rnr_nak
	slotECNToCNP   = 0 // cnp
	slotRateBefore = 1
	slotRateAfter  = 2
	slotEnd        = 0 // pause
	slotDuration   = 1
	slotFrames     = 2
	slotMAC        = 3 // the source MAC, big-endian in the low 48 bits
	slotReadPSN    = 0 // psn_conflict
	slotReadSpan   = 1
	slotPMTUs      = 2 // SenderPMTUs | ResponderPMTUs<<8
)

// Bits of Event.flags.
const (
	hasAfterNAK uint8 = 1 << iota
	hasSinceOriginal
	hasECNToCNP
	hasRateBefore
	hasRateAfter
)

// val returns slot i when the event is of kind k, else 0.
func (e *Event) val(k EventKind, i int) int64 {
	if e.Kind != k {
		return 0
	}
	return e.v[i]
}

func (e *Event) has(k EventKind, bit uint8) bool { return e.Kind == k && e.flags&bit != 0 }

// Missing returns a psn_gap's missing PSNs.
func (e *Event) Missing() int64 { return e.val(EventPSNGap, slotMissing) }

// ExpectedPSN returns a psn_gap's expected PSN.
func (e *Event) ExpectedPSN() PSN { return PSN(e.val(EventPSNGap, slotExpected)) }

// Packets returns a retransmission's replayed packets.
func (e *Event) Packets() int64 { return e.val(EventRetransmission, slotPackets) }

// AfterNAKNs returns a retransmission's time since the NAK it answers (when
// HasAfterNAK).
func (e *Event) AfterNAKNs() int64 { return e.val(EventRetransmission, slotAfterNAK) }

// HasAfterNAK reports whether AfterNAKNs is set.
func (e *Event) HasAfterNAK() bool { return e.has(EventRetransmission, hasAfterNAK) }

// IdleNs returns a retransmission's replay time - the flow's latest earlier
// request packet.
func (e *Event) IdleNs() int64 { return e.val(EventRetransmission, slotIdle) }

// SinceOriginalNs returns a retransmission's replay time - the first time
// the flow sent that PSN (when HasSinceOriginal).
func (e *Event) SinceOriginalNs() int64 { return e.val(EventRetransmission, slotSinceOrig) }

// HasSinceOriginal reports whether SinceOriginalNs is set.
func (e *Event) HasSinceOriginal() bool { return e.has(EventRetransmission, hasSinceOriginal) }

// Code returns a nak's NAK code or an rnr_nak's RNR timer code.
func (e *Event) Code() uint8 {
	if e.Kind != EventNAK && e.Kind != EventRNRNAK {
		return 0
	}
	return e.aux
}

// TimerNs returns an rnr_nak's RNR timer in ns.
func (e *Event) TimerNs() int64 { return e.val(EventRNRNAK, slotTimer) }

// ECNToCNPNs returns a cnp's time from the target's first CE mark (when
// HasECNToCNP).
func (e *Event) ECNToCNPNs() int64 { return e.val(EventCNP, slotECNToCNP) }

// HasECNToCNP reports whether ECNToCNPNs is set.
func (e *Event) HasECNToCNP() bool { return e.has(EventCNP, hasECNToCNP) }

// RateBeforeBps returns the DCQCN rate of a cnp's target before the CNP
// (when HasRateBefore; ccrate.go).
func (e *Event) RateBeforeBps() int64 { return e.val(EventCNP, slotRateBefore) }

// HasRateBefore reports whether RateBeforeBps is set.
func (e *Event) HasRateBefore() bool { return e.has(EventCNP, hasRateBefore) }

// RateAfterBps returns the DCQCN rate of a cnp's target after the CNP
// (when HasRateAfter).
func (e *Event) RateAfterBps() int64 { return e.val(EventCNP, slotRateAfter) }

// HasRateAfter reports whether RateAfterBps is set.
func (e *Event) HasRateAfter() bool { return e.has(EventCNP, hasRateAfter) }

// SrcMAC returns a pause's source MAC.
func (e *Event) SrcMAC() (m [6]byte) {
	v := uint64(e.val(EventPause, slotMAC))
	for i := range m {
		m[i] = byte(v >> (8 * (5 - i)))
	}
	return m
}

// Priority returns a pause's priority (-1: 802.3x whole link).
func (e *Event) Priority() int8 {
	if e.Kind != EventPause {
		return 0
	}
	return int8(e.aux)
}

// EndNs returns the end of a pause episode.
func (e *Event) EndNs() int64 { return e.val(EventPause, slotEnd) }

// DurationNs returns a pause episode's duration.
func (e *Event) DurationNs() int64 { return e.val(EventPause, slotDuration) }

// Frames returns a pause episode's pause frames.
func (e *Event) Frames() int64 { return e.val(EventPause, slotFrames) }

// ReadPSN returns a psn_conflict's READ Request PSN.
func (e *Event) ReadPSN() PSN { return PSN(e.val(EventPSNConflict, slotReadPSN)) }

// ReadSpan returns the PSNs a psn_conflict's READ took (responses, else the
// PMTU).
func (e *Event) ReadSpan() int32 { return int32(e.val(EventPSNConflict, slotReadSpan)) }

// Opcode returns a psn_conflict's conflicting request BTH opcode
// (decode.Opcode).
func (e *Event) Opcode() uint8 {
	if e.Kind != EventPSNConflict {
		return 0
	}
	return e.aux
}

// SenderPMTUs returns a psn_conflict's mask of the PMTUs 256<<i (bit i,
// i = 0..4) that give ceil(L/PMTU) equal to SenderSpan, L the READ's DMA
// length.
func (e *Event) SenderPMTUs() uint8 { return uint8(e.val(EventPSNConflict, slotPMTUs)) }

// ResponderPMTUs is SenderPMTUs for ReadSpan.
func (e *Event) ResponderPMTUs() uint8 { return uint8(e.val(EventPSNConflict, slotPMTUs) >> 8) }

// SenderSpan returns a psn_conflict's sender_span: PSN - ReadPSN.
func (e *Event) SenderSpan() int64 { return e.PSN.Diff(e.ReadPSN()) }

// Constructors and setters of the table (the only writer of events).

func gapEvent(ts int64, f *Flow, expected, psn PSN, missing int64) Event {
	e := Event{Kind: EventPSNGap, TsNs: ts, Flow: f, PSN: psn}
	e.v[slotMissing], e.v[slotExpected] = missing, int64(expected)
	return e
}

func retransmissionEvent(ts int64, f *Flow, psn PSN, packets int64) Event {
	e := Event{Kind: EventRetransmission, TsNs: ts, Flow: f, PSN: psn}
	e.v[slotPackets] = packets
	return e
}

func (e *Event) setIdle(idle, since int64, hasSince bool) {
	e.v[slotIdle], e.v[slotSinceOrig] = idle, since
	if hasSince {
		e.flags |= hasSinceOriginal
	}
}

func (e *Event) setAfterNAK(ns int64) {
	e.v[slotAfterNAK] = ns
	e.flags |= hasAfterNAK
}

func nakEvent(kind EventKind, ts int64, f *Flow, psn PSN, code uint8, timerNs int64) Event {
	e := Event{Kind: kind, TsNs: ts, Flow: f, PSN: psn, aux: code}
	if kind == EventRNRNAK {
		e.v[slotTimer] = timerNs
	}
	return e
}

func (e *Event) setECNToCNP(ns int64) {
	e.v[slotECNToCNP] = ns
	e.flags |= hasECNToCNP
}

func (e *Event) setRateBefore(bps int64) {
	e.v[slotRateBefore] = bps
	e.flags |= hasRateBefore
}

func (e *Event) setRateAfter(bps int64) {
	e.v[slotRateAfter] = bps
	e.flags |= hasRateAfter
}

func pauseEvent(start int64, mac [6]byte, priority int8, end, dur, frames int64) Event {
	e := Event{Kind: EventPause, TsNs: start, aux: uint8(priority)}
	var m int64
	for _, b := range mac {
		m = m<<8 | int64(b)
	}
	e.v[slotEnd], e.v[slotDuration], e.v[slotFrames], e.v[slotMAC] = end, dur, frames, m
	return e
}

func conflictEvent(ts int64, f *Flow, psn PSN, opcode uint8, readPSN PSN, readSpan int32, sender, responder uint8) Event {
	e := Event{Kind: EventPSNConflict, TsNs: ts, Flow: f, PSN: psn, aux: opcode}
	e.v[slotReadPSN], e.v[slotReadSpan] = int64(readPSN), int64(readSpan)
	e.v[slotPMTUs] = int64(sender) | int64(responder)<<8
	return e
}
