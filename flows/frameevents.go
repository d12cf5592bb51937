package flows

// EventMask is a set of event kinds: bit k-1 for EventKind k (EventPSNGap
// bit 0, ... EventPause bit 5; psn_conflict and hop_loss take bits 6 and 7),
// the order of the `events` packet field.
type EventMask uint8

// EventMaskNames are the names of an EventMask's bits, in bit order (the
// `events` packet field's order).
var EventMaskNames = [8]string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause", "psn_conflict", "hop_loss"}

// Bit returns the kind's bit in an EventMask (0 for an unknown kind).
func (k EventKind) Bit() EventMask {
	if k == 0 || k > 8 {
		return 0
	}
	return 1 << (k - 1)
}

// Has reports whether the mask holds kind k.
func (m EventMask) Has(k EventKind) bool { return m&k.Bit() != 0 }

// FrameEvents returns the kinds of the events the frame last given to
// Observe or ObserveFlow shows (until the next one): psn_gap (request or
// response), nak, rnr_nak and cnp on the frame they are emitted for;
// retransmission on the frame that starts a replay episode (the event is
// emitted when the episode ends); pause on the frame that arms a pause
// episode (the event is emitted when it closes).
func (t *Table) FrameEvents() EventMask { return t.frameEvents }

// markFrame adds kind k to the current frame's events.
func (t *Table) markFrame(k EventKind) { t.frameEvents |= k.Bit() }

// FrameEventList returns the events emitted while the frame last given to
// Observe or ObserveFlow was observed, nil when the frame shows none
// (FrameEvents is 0). It may hold a retransmission or pause event of an
// episode this frame ended, which shows on the frame that started it:
// callers skip those kinds. The retransmission a frame starts and the pause
// it arms are not in it (their events are emitted later): FrameEvents has
// their bits. The slice is the table's: read it before the next Observe.
// Fields resolved by Finish (NAK targets, after_nak_ns) are not set yet.
func (t *Table) FrameEventList() []Event {
	if t.frameEvents == 0 {
		return nil
	}
	return t.events.from(t.frameStart, &t.frameBuf)
}
