package analysis

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// EventReport is one event of the report. Kind, TsNs and Flow apply to
// every event; the other fields are set (non-nil) only for the kinds that
// have them, except the nullable ones (Flow for pause, AfterNAKNs,
// TargetFlow, ECNToCNPNs, Priority), which may be nil for their kind:
//
//	psn_gap:        ExpectedPSN, PSN, Missing
//	retransmission: PSN, Packets, AfterNAKNs|null
//	nak:            PSN, Code, Name, TargetFlow|null
//	rnr_nak:        PSN, Timer, TimerNs, TargetFlow|null
//	cnp:            TargetFlow|null, ECNToCNPNs|null
//	pause:          SrcMAC, Priority|null, EndNs, DurationNs, Frames (Flow null)
//
// MarshalJSON writes exactly the kind's fields, in that order, with null
// for nil nullable fields. The pointer fields map to nullable columns.
type EventReport struct {
	Kind        string  `json:"kind"`
	TsNs        int64   `json:"ts_ns"`
	Flow        *string `json:"flow"`
	ExpectedPSN *uint32 `json:"expected_psn,omitempty"`
	PSN         *uint32 `json:"psn,omitempty"`
	Missing     *int64  `json:"missing,omitempty"`
	Packets     *int64  `json:"packets,omitempty"`
	AfterNAKNs  *int64  `json:"after_nak_ns,omitempty"`
	Code        *uint8  `json:"code,omitempty"`
	Name        *string `json:"name,omitempty"`
	Timer       *uint8  `json:"timer,omitempty"`
	TimerNs     *int64  `json:"timer_ns,omitempty"`
	TargetFlow  *string `json:"target_flow,omitempty"`
	ECNToCNPNs  *int64  `json:"ecn_to_cnp_ns,omitempty"`
	SrcMAC      *string `json:"src_mac,omitempty"`
	Priority    *int    `json:"priority,omitempty"`
	EndNs       *int64  `json:"end_ns,omitempty"`
	DurationNs  *int64  `json:"duration_ns,omitempty"`
	Frames      *int64  `json:"frames,omitempty"`
}

func flowID(f *flows.Flow) *string {
	if f == nil {
		return nil
	}
	return ptr(f.ID())
}

func eventReport(e *flows.Event) EventReport {
	r := EventReport{Kind: e.Kind.String(), TsNs: e.TsNs, Flow: flowID(e.Flow)}
	psn := uint32(e.PSN)
	switch e.Kind {
	case flows.EventPSNGap:
		r.ExpectedPSN, r.PSN, r.Missing = ptr(uint32(e.ExpectedPSN)), &psn, ptr(e.Missing)
	case flows.EventRetransmission:
		r.PSN, r.Packets = &psn, ptr(e.Packets)
		if e.HasAfterNAK {
			r.AfterNAKNs = ptr(e.AfterNAKNs)
		}
	case flows.EventNAK:
		r.PSN, r.Code, r.Name, r.TargetFlow = &psn, ptr(e.Code), ptr(decode.NAKCodeName(e.Code)), flowID(e.Target)
	case flows.EventRNRNAK:
		r.PSN, r.Timer, r.TimerNs, r.TargetFlow = &psn, ptr(e.Code), ptr(e.TimerNs), flowID(e.Target)
	case flows.EventCNP:
		r.TargetFlow = flowID(e.Target)
		if e.HasECNToCNP {
			r.ECNToCNPNs = ptr(e.ECNToCNPNs)
		}
	case flows.EventPause:
		r.SrcMAC, r.EndNs, r.DurationNs, r.Frames = ptr(macString(e.SrcMAC)), ptr(e.EndNs), ptr(e.DurationNs), ptr(e.Frames)
		if e.Priority >= 0 {
			r.Priority = ptr(int(e.Priority))
		}
	}
	return r
}

// MarshalJSON writes the event with its kind's fields (see EventReport).
func (e EventReport) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	writeString(&b, &e.Kind)
	b.WriteString(`,"ts_ns":`)
	b.WriteString(strconv.FormatInt(e.TsNs, 10))
	field := func(name string) { b.WriteString(`,"` + name + `":`) }
	u32 := func(name string, v *uint32) { field(name); writeUint(&b, v) }
	i64 := func(name string, v *int64) { field(name); writeInt(&b, v) }
	u8 := func(name string, v *uint8) {
		field(name)
		if v == nil {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.Itoa(int(*v)))
		}
	}
	str := func(name string, v *string) { field(name); writeString(&b, v) }
	str("flow", e.Flow)
	switch e.Kind {
	case "psn_gap":
		u32("expected_psn", e.ExpectedPSN)
		u32("psn", e.PSN)
		i64("missing", e.Missing)
	case "retransmission":
		u32("psn", e.PSN)
		i64("packets", e.Packets)
		i64("after_nak_ns", e.AfterNAKNs)
	case "nak":
		u32("psn", e.PSN)
		u8("code", e.Code)
		str("name", e.Name)
		str("target_flow", e.TargetFlow)
	case "rnr_nak":
		u32("psn", e.PSN)
		u8("timer", e.Timer)
		i64("timer_ns", e.TimerNs)
		str("target_flow", e.TargetFlow)
	case "cnp":
		str("target_flow", e.TargetFlow)
		i64("ecn_to_cnp_ns", e.ECNToCNPNs)
	case "pause":
		str("src_mac", e.SrcMAC)
		field("priority")
		if e.Priority == nil {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.Itoa(*e.Priority))
		}
		i64("end_ns", e.EndNs)
		i64("duration_ns", e.DurationNs)
		i64("frames", e.Frames)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeString(b *bytes.Buffer, s *string) {
	if s == nil {
		b.WriteString("null")
		return
	}
	// No HTML escaping: flow ids contain '>'.
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(*s)      // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

func writeInt(b *bytes.Buffer, v *int64) {
	if v == nil {
		b.WriteString("null")
		return
	}
	b.WriteString(strconv.FormatInt(*v, 10))
}

func writeUint(b *bytes.Buffer, v *uint32) {
	if v == nil {
		b.WriteString("null")
		return
	}
	b.WriteString(strconv.FormatUint(uint64(*v), 10))
}
