package filter

import (
	"net/netip"

	"github.com/rocetrace/rocetrace/decode"
)

// Getter reads one field's values out of a frame, with the same presence
// and the same values as a filter on that field sees (packets -T fields
// prints them). Its methods allocate nothing. Call the method of the
// field's Type: the others report no value.
type Getter struct {
	name string
	f    field
}

// Lookup returns the getter of a field name (Fields), false for an
// unknown name.
func Lookup(name string) (Getter, bool) {
	f, ok := fields[name]
	return Getter{name: name, f: f}, ok
}

// Name returns the field's name.
func (g Getter) Name() string { return g.name }

// Type returns the type of the field's values.
func (g Getter) Type() Type { return g.f.typ }

// Int returns value i (from 0) of a TypeInt field, false when the frame
// has no such value (a two-sided field has two: source, destination).
func (g Getter) Int(p *decode.Packet, fr *Frame, i int) (uint64, bool) {
	if g.f.i == nil {
		return 0, false
	}
	return g.f.i(p, fr, i)
}

// IP returns value i of a TypeIP field.
func (g Getter) IP(p *decode.Packet, fr *Frame, i int) (netip.Addr, bool) {
	if g.f.ip == nil {
		return netip.Addr{}, false
	}
	return g.f.ip(p, fr, i)
}

// MAC returns value i of a TypeMAC field.
func (g Getter) MAC(p *decode.Packet, fr *Frame, i int) ([6]byte, bool) {
	if g.f.mac == nil {
		return [6]byte{}, false
	}
	return g.f.mac(p, fr, i)
}

// String returns the value of a TypeString field.
func (g Getter) String(p *decode.Packet, fr *Frame) (string, bool) {
	if g.f.s == nil {
		return "", false
	}
	return g.f.s(p, fr)
}

// Bool returns the value of a TypeBool field.
func (g Getter) Bool(p *decode.Packet, fr *Frame) (bool, bool) {
	if g.f.b == nil {
		return false, false
	}
	return g.f.b(p, fr)
}
