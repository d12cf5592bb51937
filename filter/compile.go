package filter

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
)

// pred is a compiled test of one frame.
type pred func(p *decode.Packet, fr *Frame) bool

// compileNode turns a checked syntax tree into closures. Every closure
// reads only what it captured at compile time and the frame: evaluating
// allocates nothing.
func compileNode(n *node) pred {
	switch n.op {
	case nAnd:
		l, r := compileNode(n.l), compileNode(n.r)
		return func(p *decode.Packet, fr *Frame) bool { return l(p, fr) && r(p, fr) }
	case nOr:
		l, r := compileNode(n.l), compileNode(n.r)
		return func(p *decode.Packet, fr *Frame) bool { return l(p, fr) || r(p, fr) }
	case nNot:
		l := compileNode(n.l)
		return func(p *decode.Packet, fr *Frame) bool { return !l(p, fr) }
	}
	if n.f.typ == TypeEvents {
		return compileEvents(n)
	}
	if n.op == nPresent {
		return compilePresent(n.f)
	}
	if n.rel == rNe {
		// X != v is "X present and no value of X equals v" (two-sided
		// fields: neither side), as tshark reads it.
		eq := compileTest(&node{op: nCmp, f: n.f, rel: rEq, vals: n.vals})
		has := compilePresent(n.f)
		return func(p *decode.Packet, fr *Frame) bool { return has(p, fr) && !eq(p, fr) }
	}
	return compileTest(n)
}

// compilePresent is true when the frame has the field.
func compilePresent(f field) pred {
	switch f.typ {
	case TypeInt:
		g := f.i
		return func(p *decode.Packet, fr *Frame) bool { _, ok := g(p, fr, 0); return ok }
	case TypeIP:
		g := f.ip
		return func(p *decode.Packet, fr *Frame) bool { _, ok := g(p, fr, 0); return ok }
	case TypeMAC:
		g := f.mac
		return func(p *decode.Packet, fr *Frame) bool { _, ok := g(p, fr, 0); return ok }
	case TypeString:
		g := f.s
		return func(p *decode.Packet, fr *Frame) bool { _, ok := g(p, fr); return ok }
	case TypeBool:
		g := f.b
		return func(p *decode.Packet, fr *Frame) bool { _, ok := g(p, fr); return ok }
	}
	return func(*decode.Packet, *Frame) bool { return false }
}

// ordered applies an ordering operator to the result of a comparison.
func ordered(r rel, c int) bool {
	switch r {
	case rEq:
		return c == 0
	case rNe:
		return c != 0
	case rLt:
		return c < 0
	case rLe:
		return c <= 0
	case rGt:
		return c > 0
	case rGe:
		return c >= 0
	}
	return false
}

// compileTest compiles a comparison (not !=), a set or a contains: true
// when any value of the field passes.
func compileTest(n *node) pred {
	switch n.f.typ {
	case TypeInt:
		return compileInt(n)
	case TypeIP:
		return compileIP(n)
	case TypeMAC:
		g, r, vals := n.f.mac, n.rel, n.vals
		return func(p *decode.Packet, fr *Frame) bool {
			for i := 0; ; i++ {
				x, ok := g(p, fr, i)
				if !ok {
					return false
				}
				for k := range vals {
					c := bytes.Compare(x[:], vals[k].mac[:])
					if vals[k].isRange && c >= 0 && bytes.Compare(x[:], vals[k].hiMAC[:]) <= 0 {
						return true
					}
					if n.op == nIn && c == 0 && !vals[k].isRange || n.op == nCmp && ordered(r, c) {
						return true
					}
				}
			}
		}
	case TypeString:
		g, r, vals, op := n.f.s, n.rel, n.vals, n.op
		return func(p *decode.Packet, fr *Frame) bool {
			x, ok := g(p, fr)
			if !ok {
				return false
			}
			for k := range vals {
				switch op {
				case nContains:
					if strings.Contains(x, vals[k].s) {
						return true
					}
				case nIn:
					if x == vals[k].s {
						return true
					}
				default:
					if ordered(r, strings.Compare(x, vals[k].s)) {
						return true
					}
				}
			}
			return false
		}
	case TypeBool:
		g, r, want := n.f.b, n.rel, n.vals
		return func(p *decode.Packet, fr *Frame) bool {
			x, ok := g(p, fr)
			if !ok {
				return false
			}
			for k := range want {
				if (want[k].lo == 1) == x {
					return n.op == nIn || r == rEq
				}
			}
			return false
		}
	}
	return func(*decode.Packet, *Frame) bool { return false }
}

func compileInt(n *node) pred {
	g, vals := n.f.i, n.vals
	if n.op == nIn {
		return func(p *decode.Packet, fr *Frame) bool {
			for i := 0; ; i++ {
				x, ok := g(p, fr, i)
				if !ok {
					return false
				}
				for k := range vals {
					if x >= vals[k].lo && x <= vals[k].hi {
						return true
					}
				}
			}
		}
	}
	r, v := n.rel, vals[0].lo
	if r == rEq {
		return func(p *decode.Packet, fr *Frame) bool {
			for i := 0; ; i++ {
				x, ok := g(p, fr, i)
				if !ok {
					return false
				}
				if x == v {
					return true
				}
			}
		}
	}
	return func(p *decode.Packet, fr *Frame) bool {
		for i := 0; ; i++ {
			x, ok := g(p, fr, i)
			if !ok {
				return false
			}
			if ordered(r, cmp.Compare(x, v)) {
				return true
			}
		}
	}
}

func compileIP(n *node) pred {
	g, r, vals, op := n.f.ip, n.rel, n.vals, n.op
	return func(p *decode.Packet, fr *Frame) bool {
		for i := 0; ; i++ {
			x, ok := g(p, fr, i)
			if !ok {
				return false
			}
			x = x.Unmap()
			for k := range vals {
				v := &vals[k]
				if v.isRange {
					if inAddrRange(x, v) {
						return true
					}
					continue
				}
				if v.isPfx {
					if v.pfx.Contains(x) {
						return true
					}
					continue
				}
				c := x.Compare(v.pfx.Addr())
				if op == nIn && c == 0 || op == nCmp && ordered(r, c) && x.BitLen() == v.pfx.Addr().BitLen() {
					return true
				}
			}
		}
	}
}

// compileEvents compiles a test of the events set (a mask in the frame).
func compileEvents(n *node) pred {
	var m uint8
	for _, v := range n.vals {
		m |= v.mask
	}
	switch {
	case n.op == nPresent:
		return func(_ *decode.Packet, fr *Frame) bool { return fr.Events != 0 }
	case n.op == nCmp && n.rel == rNe:
		return func(_ *decode.Packet, fr *Frame) bool { return fr.Events != 0 && fr.Events&m == 0 }
	}
	return func(_ *decode.Packet, fr *Frame) bool { return fr.Events&m != 0 }
}
