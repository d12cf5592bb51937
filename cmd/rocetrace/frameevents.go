package main

import (
	"fmt"
	"strconv"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
)

// appendEventsJSON replaces the closing brace of the packet object in b
// with the `events` field: the names of the frame's event kinds in the
// contract's order, or null.
func appendEventsJSON(b []byte, m flows.EventMask) []byte {
	if n := len(b); n > 0 && b[n-1] == '}' {
		b = b[:n-1]
	}
	b = append(b, `,"events":`...)
	if m == 0 {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	first := true
	for i, name := range filter.EventNames {
		if m&(1<<i) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

// appendAnalysis appends the -V tree's "Analysis" section: one line per
// event the frame shows (nothing when it shows none). list is the table's
// FrameEventList for the frame.
func appendAnalysis(b []byte, m flows.EventMask, list []flows.Event) []byte {
	if m == 0 {
		return b
	}
	b = append(b, "Analysis\n"...)
	line := func(format string, a ...any) {
		b = append(b, "    ["...)
		b = fmt.Appendf(b, format, a...)
		b = append(b, "]\n"...)
	}
	for i := range list {
		e := &list[i]
		switch e.Kind {
		case flows.EventPSNGap:
			line("PSN gap: expected %d, got %d (%d missing)", e.ExpectedPSN(), e.PSN, e.Missing())
		case flows.EventNAK:
			line("NAK: %s (code %d), PSN %d", decode.NAKCodeName(e.Code()), e.Code(), e.PSN)
		case flows.EventRNRNAK:
			line("RNR NAK: timer %d (%s ns), PSN %d", e.Code(), strconv.FormatInt(e.TimerNs(), 10), e.PSN)
		case flows.EventCNP:
			target := "unknown"
			if e.Target != nil {
				target = e.Target.ID()
			}
			if e.HasECNToCNP() {
				line("CNP: target flow %s, %d ns after its first CE mark", target, e.ECNToCNPNs())
			} else {
				line("CNP: target flow %s", target)
			}
		case flows.EventRetransmission, flows.EventPause:
			// an episode this frame ended: shown on the frame that started it
		default:
			line("%s", e.Kind)
		}
	}
	if m.Has(flows.EventRetransmission) {
		line("Retransmission: this frame starts a replay")
	}
	if m.Has(flows.EventPause) {
		line("Pause: this frame starts a pause episode")
	}
	return b
}
