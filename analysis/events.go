package analysis

import (
	"strconv"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/jsonstr"
)

// EventReport is one event of the report. Kind, TsNs and Flow apply to
// every event; the other fields are set (non-nil) only for the kinds that
// have them, except the nullable ones (Flow for pause, AfterNAKNs,
// TargetFlow, ECNToCNPNs, Priority), which may be nil for their kind:
//
//	psn_gap:        ExpectedPSN, PSN, Missing
//	retransmission: PSN, Packets, AfterNAKNs|null, IdleNs, SinceOriginalNs|null
//	nak:            PSN, Code, Name, TargetFlow|null
//	rnr_nak:        PSN, Timer, TimerNs, TargetFlow|null
//	cnp:            TargetFlow|null, ECNToCNPNs|null, RateBeforeBps|null, RateAfterBps|null
//	pause:          SrcMAC, Priority|null, EndNs, DurationNs, Frames (Flow null)
//	psn_conflict:   PSN, OpcodeName, ReadPSN, ReadSpan, SenderSpan
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

	// cnp (issue 17): the target's rate before and after the CNP, null
	// when not known (flows/doc.go, "CNP rate windows").
	RateBeforeBps *int64 `json:"rate_before_bps,omitempty"`
	RateAfterBps  *int64 `json:"rate_after_bps,omitempty"`
	// hop_loss (capture points): the hop's points and the lost frame's
	// opcode name (its PSN is PSN).
	From *string `json:"from,omitempty"`
	To   *string `json:"to,omitempty"`
	// Stall and PSN-conflict fields (issue 13).
	IdleNs          *int64  `json:"idle_ns,omitempty"`
	SinceOriginalNs *int64  `json:"since_original_ns,omitempty"`
	OpcodeName      *string `json:"opcode_name,omitempty"`
	ReadPSN         *uint32 `json:"read_psn,omitempty"`
	ReadSpan        *int64  `json:"read_span,omitempty"`
	SenderSpan      *int64  `json:"sender_span,omitempty"`
}

// eventArena hands out the values EventReport's pointer fields point to
// from shared chunks instead of one small allocation per field, and one
// *string per flow id and NAK name instead of one per event. Build makes
// one for all the events of a report; the pointers it returns are never
// written through.
type eventArena struct {
	chunk int // values per chunk; 0: arenaChunk
	i64   []int64
	u32   []uint32
	u8    []uint8
	ints  []int
	ids   map[*flows.Flow]*string
	names map[uint8]*string
}

const arenaChunk = 4096

// slot stores v in the current chunk of *s (a new chunk of n values when it
// is full, so earlier pointers stay valid) and returns its address.
func slot[T any](s *[]T, v T, n int) *T {
	if len(*s) == cap(*s) {
		if n <= 0 {
			n = arenaChunk
		}
		*s = make([]T, 0, n)
	}
	*s = append(*s, v)
	return &(*s)[len(*s)-1]
}

func (a *eventArena) flowID(f *flows.Flow) *string {
	if f == nil {
		return nil
	}
	if a == nil {
		return ptr(f.ID())
	}
	if a.ids == nil {
		a.ids = make(map[*flows.Flow]*string)
	}
	p, ok := a.ids[f]
	if !ok {
		p = ptr(f.ID())
		a.ids[f] = p
	}
	return p
}

func (a *eventArena) nakName(code uint8) *string {
	if a == nil {
		return ptr(decode.NAKCodeName(code))
	}
	if a.names == nil {
		a.names = make(map[uint8]*string)
	}
	p, ok := a.names[code]
	if !ok {
		p = ptr(decode.NAKCodeName(code))
		a.names[code] = p
	}
	return p
}

func (a *eventArena) int64(v int64) *int64 {
	if a == nil {
		return ptr(v)
	}
	return slot(&a.i64, v, a.chunk)
}

func (a *eventArena) uint32(v uint32) *uint32 {
	if a == nil {
		return ptr(v)
	}
	return slot(&a.u32, v, a.chunk)
}

func (a *eventArena) uint8(v uint8) *uint8 {
	if a == nil {
		return ptr(v)
	}
	return slot(&a.u8, v, a.chunk)
}

func (a *eventArena) int(v int) *int {
	if a == nil {
		return ptr(v)
	}
	return slot(&a.ints, v, a.chunk)
}

// eventReport converts one event, its pointer fields taken from a (a nil
// arena allocates each one).
func (a *eventArena) eventReport(e *flows.Event) EventReport {
	r := EventReport{Kind: e.Kind.String(), TsNs: e.TsNs, Flow: a.flowID(e.Flow)}
	switch e.Kind {
	case flows.EventPSNGap:
		r.ExpectedPSN, r.PSN, r.Missing = a.uint32(uint32(e.ExpectedPSN())), a.uint32(uint32(e.PSN)), a.int64(e.Missing())
	case flows.EventRetransmission:
		r.PSN, r.Packets = a.uint32(uint32(e.PSN)), a.int64(e.Packets())
		if e.HasAfterNAK() {
			r.AfterNAKNs = a.int64(e.AfterNAKNs())
		}
		r.IdleNs = a.int64(e.IdleNs())
		if e.HasSinceOriginal() {
			r.SinceOriginalNs = a.int64(e.SinceOriginalNs())
		}
	case flows.EventPSNConflict:
		r.PSN, r.OpcodeName = a.uint32(uint32(e.PSN)), ptr(decode.Opcode(e.Opcode()).String())
		r.ReadPSN, r.ReadSpan, r.SenderSpan = a.uint32(uint32(e.ReadPSN())), a.int64(int64(e.ReadSpan())), a.int64(e.SenderSpan())
	case flows.EventNAK:
		r.PSN, r.Code, r.Name, r.TargetFlow = a.uint32(uint32(e.PSN)), a.uint8(e.Code()), a.nakName(e.Code()), a.flowID(e.Target)
	case flows.EventRNRNAK:
		r.PSN, r.Timer, r.TimerNs, r.TargetFlow = a.uint32(uint32(e.PSN)), a.uint8(e.Code()), a.int64(e.TimerNs()), a.flowID(e.Target)
	case flows.EventCNP:
		r.TargetFlow = a.flowID(e.Target)
		if e.HasECNToCNP() {
			r.ECNToCNPNs = a.int64(e.ECNToCNPNs())
		}
		if e.HasRateBefore() {
			r.RateBeforeBps = a.int64(e.RateBeforeBps())
		}
		if e.HasRateAfter() {
			r.RateAfterBps = a.int64(e.RateAfterBps())
		}
	case flows.EventPause:
		r.SrcMAC, r.EndNs, r.DurationNs, r.Frames = ptr(macString(e.SrcMAC())), a.int64(e.EndNs()), a.int64(e.DurationNs()), a.int64(e.Frames())
		if e.Priority() >= 0 {
			r.Priority = a.int(int(e.Priority()))
		}
	}
	return r
}

// MarshalJSON writes the event with its kind's fields (see EventReport).
func (e EventReport) MarshalJSON() ([]byte, error) {
	return e.appendJSON(nil, false), nil
}

// Field separators of appendJSON: compact, and as json.Indent lays out an
// event that is an element of a top-level member array (prefix "", indent
// two spaces: the event's braces at depth 1, its fields at depth 2).
const (
	evIndentField = "\n      "
	evIndentClose = "\n    "
)

// appendJSON appends the event as MarshalJSON writes it, or, with indent,
// exactly as json.Indent(prefix "    ", indent "  ") lays that out.
func (e *EventReport) appendJSON(b []byte, indent bool) []byte {
	w := evWriter{b: b, indent: indent}
	if indent {
		w.b = append(w.b, '{')
		w.b = append(w.b, evIndentField...)
		w.b = append(w.b, `"kind": `...)
	} else {
		w.b = append(w.b, `{"kind":`...)
	}
	w.b = jsonstr.Append(w.b, e.Kind)
	w.int("ts_ns", &e.TsNs)
	w.str("flow", e.Flow)
	e.appendKindFields(&w)
	if indent {
		w.b = append(w.b, evIndentClose...)
	}
	return append(w.b, '}')
}

// appendKindFields appends the fields of e's kind, in the contract's order.
func (e *EventReport) appendKindFields(w *evWriter) {
	switch e.Kind {
	case "psn_gap":
		w.u32("expected_psn", e.ExpectedPSN)
		w.u32("psn", e.PSN)
		w.int("missing", e.Missing)
	case "retransmission":
		w.u32("psn", e.PSN)
		w.int("packets", e.Packets)
		w.int("after_nak_ns", e.AfterNAKNs)
		w.int("idle_ns", e.IdleNs)
		w.int("since_original_ns", e.SinceOriginalNs)
	case "nak":
		w.u32("psn", e.PSN)
		w.u8("code", e.Code)
		w.str("name", e.Name)
		w.str("target_flow", e.TargetFlow)
	case "rnr_nak":
		w.u32("psn", e.PSN)
		w.u8("timer", e.Timer)
		w.int("timer_ns", e.TimerNs)
		w.str("target_flow", e.TargetFlow)
	case "cnp":
		w.str("target_flow", e.TargetFlow)
		w.int("ecn_to_cnp_ns", e.ECNToCNPNs)
		w.int("rate_before_bps", e.RateBeforeBps)
		w.int("rate_after_bps", e.RateAfterBps)
	case "pause":
		w.str("src_mac", e.SrcMAC)
		w.field("priority")
		if e.Priority == nil {
			w.b = append(w.b, "null"...)
		} else {
			w.b = strconv.AppendInt(w.b, int64(*e.Priority), 10)
		}
		w.int("end_ns", e.EndNs)
		w.int("duration_ns", e.DurationNs)
		w.int("frames", e.Frames)
	case "hop_loss":
		w.str("from", e.From)
		w.str("to", e.To)
		w.u32("psn", e.PSN)
		w.str("opcode_name", e.OpcodeName)
	case "psn_conflict":
		w.u32("psn", e.PSN)
		w.str("opcode_name", e.OpcodeName)
		w.u32("read_psn", e.ReadPSN)
		w.int("read_span", e.ReadSpan)
		w.int("sender_span", e.SenderSpan)
	}
}

// evWriter appends an event's members after its first one (kind), compact
// or indented as appendJSON says; a nil value is null.
type evWriter struct {
	b      []byte
	indent bool
}

// field appends the comma and the member name.
func (w *evWriter) field(name string) {
	if w.indent {
		w.b = append(w.b, ","+evIndentField+`"`...)
		w.b = append(w.b, name...)
		w.b = append(w.b, `": `...)
		return
	}
	w.b = append(w.b, `,"`...)
	w.b = append(w.b, name...)
	w.b = append(w.b, `":`...)
}

// null appends the member name and, when isNil, null; it reports whether
// the value is still to be written.
func (w *evWriter) null(name string, isNil bool) bool {
	w.field(name)
	if isNil {
		w.b = append(w.b, "null"...)
	}
	return !isNil
}

func (w *evWriter) int(name string, v *int64) {
	if w.null(name, v == nil) {
		w.b = strconv.AppendInt(w.b, *v, 10)
	}
}

func (w *evWriter) u32(name string, v *uint32) {
	if w.null(name, v == nil) {
		w.b = strconv.AppendUint(w.b, uint64(*v), 10)
	}
}

func (w *evWriter) u8(name string, v *uint8) {
	if w.null(name, v == nil) {
		w.b = strconv.AppendUint(w.b, uint64(*v), 10)
	}
}

func (w *evWriter) str(name string, v *string) {
	if w.null(name, v == nil) {
		w.b = jsonstr.Append(w.b, *v)
	}
}
