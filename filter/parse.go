package filter

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// nodeOp is the kind of a syntax-tree node.
type nodeOp uint8

const (
	nAnd      nodeOp = iota + 1
	nOr              // l || r
	nNot             // !l
	nCmp             // field rel vals[0]
	nPresent         // bare field
	nIn              // field in {vals}
	nContains        // field contains vals[0] (string)
)

// rel is a comparison operator.
type rel uint8

const (
	rEq rel = iota + 1
	rNe
	rLt
	rLe
	rGt
	rGe
)

var relNames = map[string]rel{
	"==": rEq, "eq": rEq, "!=": rNe, "ne": rNe,
	"<": rLt, "lt": rLt, "<=": rLe, "le": rLe, ">": rGt, "gt": rGt, ">=": rGe, "ge": rGe,
}

// value is one literal, already checked against its field's type.
type value struct {
	lo, hi uint64 // TypeInt (hi == lo unless a lo..hi range); TypeBool: 0/1
	s      string // TypeString; TypeEvents: the kind name
	mask   uint8  // TypeEvents: the kinds' bits
	pfx    netip.Prefix
	isPfx  bool // TypeIP: a CIDR prefix, else pfx.Addr() is the address
	mac    [6]byte

	// Appended: a set's lo..hi range of addresses (TypeIP: pfx.Addr() ..
	// hiAddr, one family) or of MACs (TypeMAC: mac .. hiMAC), inclusive.
	isRange bool
	hiAddr  netip.Addr
	hiMAC   [6]byte
}

// node is a node of the syntax tree.
type node struct {
	op   nodeOp
	l, r *node
	name string // field name (nCmp, nPresent, nIn, nContains)
	f    field
	rel  rel
	vals []value
}

// parser is a recursive-descent parser over the tokens of one expression.
type parser struct {
	toks []token
	pos  int
	read bool // a read filter: fields known only after analysis are refused
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func isWord(t token, w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

func unexpected(t token) *Error {
	if t.kind == tEOF {
		return errAt(t.col, "unexpected end of expression")
	}
	return errAt(t.col, "unexpected %q", t.text)
}

// parseOr: and { ("||" | "or") and }. && binds tighter than ||.
func (p *parser) parseOr() (*node, *Error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t.kind == tOr || isWord(t, "or"); t = p.peek() {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &node{op: nOr, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (*node, *Error) {
	l, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t.kind == tAnd || isWord(t, "and"); t = p.peek() {
		p.next()
		r, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		l = &node{op: nAnd, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseUnary() (*node, *Error) {
	t := p.peek()
	if t.kind == tNot || isWord(t, "not") {
		p.next()
		l, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &node{op: nNot, l: l}, nil
	}
	if t.kind == tLParen {
		p.next()
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			if c.kind == tEOF {
				return nil, errAt(t.col, `missing ")" for this "("`)
			}
			return nil, unexpected(c)
		}
		return n, nil
	}
	return p.parseTest()
}

// parseTest parses a field and what follows it: a comparison, a set, a
// contains, or nothing (the field is present).
func (p *parser) parseTest() (*node, *Error) {
	t := p.next()
	if t.kind != tWord {
		return nil, unexpected(t)
	}
	f, ok := fields[t.text]
	if !ok {
		return nil, errAt(t.col, "unknown field %q", t.text)
	}
	if p.read && !f.read {
		return nil, errAt(t.col, "%s is known only after the analysis: use it in a display filter (-Y)", t.text)
	}
	n := &node{name: t.text, f: f}
	op := p.peek()
	switch {
	case op.kind == tOp || op.kind == tWord && relNames[strings.ToLower(op.text)] != 0:
		p.next()
		n.op, n.rel = nCmp, relNames[strings.ToLower(op.text)]
		if err := p.checkRel(n, op); err != nil {
			return nil, err
		}
		v, err := p.parseValue(n, p.next(), false)
		if err != nil {
			return nil, err
		}
		if v.isPfx && n.rel != rEq && n.rel != rNe {
			return nil, errAt(op.col, "%s does not apply to a CIDR prefix: use == or !=", op.text)
		}
		n.vals = []value{v}
	case isWord(op, "in"):
		p.next()
		return p.parseSet(n, op)
	case isWord(op, "not") && isWord(p.toks[min(p.pos+1, len(p.toks)-1)], "in"):
		p.next()
		in := p.next()
		s, err := p.parseSet(n, in)
		if err != nil {
			return nil, err
		}
		return &node{op: nNot, l: s}, nil
	case isWord(op, "contains"):
		p.next()
		if f.typ != TypeString && f.typ != TypeEvents {
			return nil, errAt(op.col, "contains needs a string field: %s is %s", t.text, f.typ)
		}
		n.op = nContains
		v := p.next()
		if v.kind != tString {
			return nil, errAt(v.col, "contains needs a \"quoted string\"")
		}
		n.vals = []value{{s: v.text, mask: eventsContaining(v.text)}}
	case isWord(op, "matches") || op.kind == tWord && op.text == "~":
		return nil, errAt(op.col, "matches is not supported")
	default:
		n.op = nPresent
	}
	return n, nil
}

// checkRel refuses an ordering on a type that has none.
func (p *parser) checkRel(n *node, op token) *Error {
	if n.rel == rEq || n.rel == rNe {
		return nil
	}
	if n.f.typ == TypeBool || n.f.typ == TypeEvents {
		return errAt(op.col, "%s does not apply to %s (%s is %s): use == or !=", op.text, n.name, n.name, n.f.typ)
	}
	return nil
}

// parseSet parses "{ v1, v2, lo..hi }" (commas or spaces) after "in".
func (p *parser) parseSet(n *node, in token) (*node, *Error) {
	n.op = nIn
	open := p.next()
	if open.kind != tLBrace {
		return nil, errAt(open.col, `expected "{" after %q`, in.text)
	}
	for {
		t := p.next()
		switch t.kind {
		case tRBrace:
			if len(n.vals) == 0 {
				return nil, errAt(t.col, "empty set")
			}
			return n, nil
		case tComma:
			continue
		case tEOF:
			return nil, errAt(open.col, `missing "}" for this "{"`)
		}
		// lo .. hi written with spaces
		if nt := p.peek(); nt.kind == tWord && nt.text == ".." && rangeType(n.f.typ) {
			p.next()
			hi := p.next()
			v, err := p.parseValue(n, token{tWord, t.text + ".." + hi.text, t.col}, true)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			continue
		}
		v, err := p.parseValue(n, t, true)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
}

// parseValue checks the literal t against n's field type.
func (p *parser) parseValue(n *node, t token, inSet bool) (value, *Error) {
	f := n.f
	if t.kind == tEOF {
		return value{}, errAt(t.col, "expected a value after %s", n.name)
	}
	bad := func() (value, *Error) {
		return value{}, errAt(t.col, "%s is %s: %q is not a valid value", n.name, f.typ, t.text)
	}
	if t.kind != tWord && t.kind != tString {
		return value{}, unexpected(t)
	}
	switch f.typ {
	case TypeString:
		if t.kind != tString {
			return value{}, errAt(t.col, "%s is a string: write the value as a \"quoted string\", not %s", n.name, t.text)
		}
		return value{s: t.text}, nil
	case TypeEvents:
		if t.kind != tString {
			return value{}, errAt(t.col, "events is a set of event kinds: write a kind as a \"quoted string\", not %s", t.text)
		}
		bit := EventBit(t.text)
		if bit == 0 {
			return value{}, errAt(t.col, "unknown event kind %q (want one of %s)", t.text, strings.Join(EventNames[:], ", "))
		}
		return value{s: t.text, mask: bit}, nil
	}
	if t.kind == tString {
		return bad()
	}
	switch f.typ {
	case TypeInt:
		if lo, hi, ok := strings.Cut(t.text, ".."); ok && inSet {
			a, ok1 := parseUint(lo)
			b, ok2 := parseUint(hi)
			if !ok1 || !ok2 { // lo > hi is an empty range, as in tshark
				return value{}, errAt(t.col, "%s: %q is not a valid range LO..HI", n.name, t.text)
			}
			return value{lo: a, hi: b}, nil
		}
		v, ok := parseUint(t.text)
		if !ok {
			return bad()
		}
		return value{lo: v, hi: v}, nil
	case TypeBool:
		switch strings.ToLower(t.text) {
		case "true", "1":
			return value{lo: 1, hi: 1}, nil
		case "false", "0":
			return value{}, nil
		}
		return value{}, errAt(t.col, "%s is a boolean: want true, false, 1 or 0, not %q", n.name, t.text)
	case TypeIP, TypeMAC:
		if lo, hi, ok := strings.Cut(t.text, ".."); ok && inSet {
			return p.parseRange(n, t, lo, hi)
		}
	}
	switch f.typ {
	case TypeIP:
		return p.parseIP(n, t)
	case TypeMAC:
		hw, err := net.ParseMAC(t.text)
		if err != nil || len(hw) != 6 {
			return bad()
		}
		var v value
		copy(v.mac[:], hw)
		return v, nil
	}
	return bad()
}

func (p *parser) parseIP(n *node, t token) (value, *Error) {
	var v value
	if strings.Contains(t.text, "/") {
		pfx, err := netip.ParsePrefix(t.text)
		if err != nil {
			return value{}, errAt(t.col, "%s: %q is not a valid CIDR prefix", n.name, t.text)
		}
		v.pfx, v.isPfx = pfx.Masked(), true
	} else {
		a, err := netip.ParseAddr(t.text)
		if err != nil || a.Zone() != "" {
			return value{}, errAt(t.col, "%s is an IP address: %q is not a valid address", n.name, t.text)
		}
		v.pfx = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	}
	fam := uint8(4)
	if v.pfx.Addr().Is6() {
		fam = 6
	}
	if n.f.ipv != 0 && fam != n.f.ipv {
		return value{}, errAt(t.col, "%s is an IPv%d address: %q is IPv%d", n.name, n.f.ipv, t.text, fam)
	}
	return v, nil
}

// parseUint reads a decimal or 0x hex unsigned integer.
func parseUint(s string) (uint64, bool) {
	base := 10
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	}
	v, err := strconv.ParseUint(s, base, 64)
	return v, err == nil
}
