package filter

import (
	"strings"

	"github.com/rocetrace/rocetrace/decode"
)

// EventNames are the event kinds of the `events` field, bit i of an
// events mask being EventNames[i] (the contract's order).
var EventNames = [8]string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause", "psn_conflict", "hop_loss"}

// EventBit returns the mask bit of an event kind name, or 0.
func EventBit(name string) uint8 {
	for i, n := range EventNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// eventsContaining returns the bits of the kinds whose name contains s.
func eventsContaining(s string) uint8 {
	var m uint8
	for i, n := range EventNames {
		if strings.Contains(n, s) {
			m |= 1 << i
		}
	}
	return m
}

// Frame is what a filter reads beside the decoded packet: the frame's
// context in the capture and its analysis.
type Frame struct {
	File   string // the capture's name (the `file` field)
	Flow   string // the flow id ("" for none: `flow` is absent)
	Events uint8  // the kinds of the events the frame shows (bit i: EventNames[i])
}

const (
	usesFlow uint8 = 1 << iota
	usesEvents
)

// Filter is a compiled filter expression. It is immutable and may be used
// from several goroutines.
type Filter struct {
	expr string
	pred pred
	uses uint8
}

// Compile compiles a display filter: every field, `events` included.
func Compile(expr string) (*Filter, error) { return compile(expr, false) }

// CompileRead compiles a read filter: the same language, without the
// fields only the analysis knows (`events`), since a read filter runs
// before it.
func CompileRead(expr string) (*Filter, error) { return compile(expr, true) }

func compile(expr string, read bool) (*Filter, error) {
	n, err := parse(expr, read)
	if err != nil {
		err.Expr = expr
		return nil, err
	}
	return &Filter{expr: expr, pred: compileNode(n), uses: usesOf(n)}, nil
}

// parse returns the checked syntax tree of expr.
func parse(expr string, read bool) (*node, *Error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, read: read}
	if p.peek().kind == tEOF {
		return nil, errAt(1, "empty filter")
	}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tRParen {
			return nil, errAt(t.col, `unexpected ")" without "("`)
		}
		return nil, unexpected(t)
	}
	return n, nil
}

func usesOf(n *node) uint8 {
	if n == nil {
		return 0
	}
	var u uint8
	switch n.name {
	case "flow":
		u = usesFlow
	case "events":
		u = usesEvents
	}
	return u | usesOf(n.l) | usesOf(n.r)
}

// String returns the expression the filter was compiled from.
func (f *Filter) String() string { return f.expr }

// NeedsFlow reports whether the filter reads the `flow` field (Frame.Flow).
func (f *Filter) NeedsFlow() bool { return f.uses&usesFlow != 0 }

// NeedsEvents reports whether the filter reads the `events` field.
func (f *Filter) NeedsEvents() bool { return f.uses&usesEvents != 0 }

// Match reports whether the frame matches. It does not allocate.
func (f *Filter) Match(p *decode.Packet, fr *Frame) bool { return f.pred(p, fr) }
