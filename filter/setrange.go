package filter

import (
	"net"
	"net/netip"
)

// Set ranges of addresses: `ip.addr in {10.0.0.1..10.0.0.9}` and
// `eth.src in {02:00:00:00:00:01..02:00:00:00:00:0f}`, as Wireshark 4 takes
// a LO..HI range for any ordered type (the contract's "FIELD in {V1, V2,
// LO..HI}"). An address range holds one family; prefixes are not bounds.

// rangeType reports whether a set of fields of type t takes LO..HI ranges.
func rangeType(t Type) bool { return t == TypeInt || t == TypeIP || t == TypeMAC }

// parseRange checks the range lo..hi (the token t) of an IP or MAC field.
func (p *parser) parseRange(n *node, t token, lo, hi string) (value, *Error) {
	bad := func() (value, *Error) {
		return value{}, errAt(t.col, "%s: %q is not a valid range LO..HI", n.name, t.text)
	}
	if n.f.typ == TypeMAC {
		a, err1 := net.ParseMAC(lo)
		b, err2 := net.ParseMAC(hi)
		if err1 != nil || err2 != nil || len(a) != 6 || len(b) != 6 {
			return bad()
		}
		v := value{isRange: true}
		copy(v.mac[:], a)
		copy(v.hiMAC[:], b)
		return v, nil
	}
	a, err1 := netip.ParseAddr(lo)
	b, err2 := netip.ParseAddr(hi)
	if err1 != nil || err2 != nil || a.Zone() != "" || b.Zone() != "" {
		return bad()
	}
	a, b = a.Unmap(), b.Unmap()
	if a.BitLen() != b.BitLen() {
		return bad()
	}
	// The family check of a single address applies to the bounds.
	v, err := p.parseIP(n, token{t.kind, lo, t.col})
	if err != nil {
		return value{}, err
	}
	v.isRange, v.hiAddr = true, b
	return v, nil
}

// inAddrRange reports whether x (unmapped) lies in v's address range.
func inAddrRange(x netip.Addr, v *value) bool {
	lo := v.pfx.Addr()
	return x.BitLen() == lo.BitLen() && x.Compare(lo) >= 0 && x.Compare(v.hiAddr) <= 0
}
