package filter

import (
	"net/netip"
	"sort"

	"github.com/rocetrace/rocetrace/decode"
)

// Type is the type of a field's values.
type Type uint8

// Field types.
const (
	TypeInt    Type = iota + 1 // unsigned integers (decimal or 0x hex)
	TypeBool                   // true/false, 1/0
	TypeString                 // "quoted strings"
	TypeIP                     // IPv4/IPv6 addresses, CIDR prefixes
	TypeMAC                    // aa:bb:cc:dd:ee:ff
	TypeEvents                 // the set of event kinds (names as strings)
)

// String names the type in messages.
func (t Type) String() string {
	switch t {
	case TypeInt:
		return "an integer"
	case TypeBool:
		return "a boolean"
	case TypeString:
		return "a string"
	case TypeIP:
		return "an IP address"
	case TypeMAC:
		return "a MAC address"
	case TypeEvents:
		return "a set of event kinds"
	}
	return "unknown"
}

// Getters return a field's i-th value (i from 0) and whether it exists: a
// field the frame lacks has no value 0; a two-sided field (ip.addr) or a
// list (pfc_quanta) has several. They are plain functions of the packet
// and the frame context, so evaluating a filter allocates nothing.
type (
	intGet  func(p *decode.Packet, fr *Frame, i int) (uint64, bool)
	ipGet   func(p *decode.Packet, fr *Frame, i int) (netip.Addr, bool)
	macGet  func(p *decode.Packet, fr *Frame, i int) ([6]byte, bool)
	strGet  func(p *decode.Packet, fr *Frame) (string, bool)
	boolGet func(p *decode.Packet, fr *Frame) (bool, bool)
)

// field is one filterable name.
type field struct {
	typ  Type
	ipv  uint8 // TypeIP: 4 or 6 when the field is of one family only, else 0
	i    intGet
	ip   ipGet
	mac  macGet
	s    strGet
	b    boolGet
	read bool // available to a read filter (before analysis)
}

// one turns a single optional value into a getter's answer for index i.
func one(i int, v uint64, ok bool) (uint64, bool) {
	if i != 0 || !ok {
		return 0, false
	}
	return v, true
}

func intF(g func(p *decode.Packet) (uint64, bool)) field {
	return field{typ: TypeInt, read: true, i: func(p *decode.Packet, _ *Frame, i int) (uint64, bool) {
		v, ok := g(p)
		return one(i, v, ok)
	}}
}

func boolF(g func(p *decode.Packet) (bool, bool)) field {
	return field{typ: TypeBool, read: true, b: func(p *decode.Packet, _ *Frame) (bool, bool) { return g(p) }}
}

func strF(g func(p *decode.Packet) (string, bool)) field {
	return field{typ: TypeString, read: true, s: func(p *decode.Packet, _ *Frame) (string, bool) { return g(p) }}
}

// ipF is a one-sided address field of family fam (0: either).
func ipF(fam uint8, src bool) field {
	return field{typ: TypeIP, ipv: fam, read: true, ip: func(p *decode.Packet, _ *Frame, i int) (netip.Addr, bool) {
		if i != 0 || !famOK(p, fam) {
			return netip.Addr{}, false
		}
		if src {
			return p.SrcIP, p.SrcIP.IsValid()
		}
		return p.DstIP, p.DstIP.IsValid()
	}}
}

// ipAddrF is a two-sided address field (ip.addr, ipv6.addr).
func ipAddrF(fam uint8) field {
	return field{typ: TypeIP, ipv: fam, read: true, ip: func(p *decode.Packet, _ *Frame, i int) (netip.Addr, bool) {
		if !famOK(p, fam) {
			return netip.Addr{}, false
		}
		switch i {
		case 0:
			return p.SrcIP, p.SrcIP.IsValid()
		case 1:
			return p.DstIP, p.DstIP.IsValid()
		}
		return netip.Addr{}, false
	}}
}

func famOK(p *decode.Packet, fam uint8) bool {
	if fam == 0 {
		return p.IPVersion != 0
	}
	return p.IPVersion == fam
}

func macF(g func(p *decode.Packet, i int) ([6]byte, bool)) field {
	return field{typ: TypeMAC, read: true, mac: func(p *decode.Packet, _ *Frame, i int) ([6]byte, bool) { return g(p, i) }}
}

func hasBTH(p *decode.Packet) bool            { return p.HasBTH }
func ext(p *decode.Packet, e decode.Ext) bool { return p.Ext&e != 0 }
func ip4(p *decode.Packet) bool               { return p.IPVersion == 4 }

// vlanTag returns the TCI of tag i (0 the outermost, 1 the second).
func vlanTag(p *decode.Packet, i int) (uint16, bool) {
	switch {
	case i == 0 && p.VLANCount > 0:
		return uint16(p.VLANPCP)<<13 | p.VLANID, true
	case i == 1 && p.VLANCount > 1:
		return p.VLAN2TCI, true
	}
	return 0, false
}

// fields maps every name to its field: the packet fields of the contract
// (the keys of packets --json, with the same presence) and the Wireshark
// names with tshark's meaning.
var fields = map[string]field{}

func init() {
	for name, f := range contractFields() {
		fields[name] = f
	}
	for name, f := range wiresharkFields() {
		fields[name] = f
	}
}

// Fields returns every field name a filter may use, sorted.
func Fields() []string {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FieldType returns the type of a field name, or 0 for an unknown name.
func FieldType(name string) Type { return fields[name].typ }

func wiresharkFields() map[string]field {
	vlan := func(pcp bool) field {
		return field{typ: TypeInt, read: true, i: func(p *decode.Packet, _ *Frame, i int) (uint64, bool) {
			tci, ok := vlanTag(p, i)
			if pcp {
				return uint64(tci >> 13), ok
			}
			return uint64(tci & 0x0FFF), ok
		}}
	}
	vaOrAtomic := func(key bool) field {
		return intF(func(p *decode.Packet) (uint64, bool) {
			switch {
			case ext(p, decode.ExtRETH) && key:
				return uint64(p.RETH.RKey), true
			case ext(p, decode.ExtRETH):
				return p.RETH.VA, true
			case ext(p, decode.ExtAtomicETH) && key:
				return uint64(p.AtomicETH.RKey), true
			case ext(p, decode.ExtAtomicETH):
				return p.AtomicETH.VA, true
			}
			return 0, false
		})
	}
	return map[string]field{
		"frame.number": intF(func(p *decode.Packet) (uint64, bool) { return p.Frame, true }),
		"frame.len":    intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.Len), true }),
		"eth.src":      macF(func(p *decode.Packet, i int) ([6]byte, bool) { return p.SrcMAC, i == 0 && p.HasMAC }),
		"eth.dst":      macF(func(p *decode.Packet, i int) ([6]byte, bool) { return p.DstMAC, i == 0 && p.HasMAC }),
		// eth.addr's values come in the Ethernet header's order, as
		// tshark lists them: the destination, then the source.
		"eth.addr": macF(func(p *decode.Packet, i int) ([6]byte, bool) {
			if i == 1 {
				return p.SrcMAC, p.HasMAC
			}
			return p.DstMAC, i == 0 && p.HasMAC
		}),
		"vlan.id":         vlan(false),
		"vlan.priority":   vlan(true),
		"ip.src":          ipF(4, true),
		"ip.dst":          ipF(4, false),
		"ip.addr":         ipAddrF(4),
		"ipv6.src":        ipF(6, true),
		"ipv6.dst":        ipF(6, false),
		"ipv6.addr":       ipAddrF(6),
		"ip.dsfield.dscp": intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.DSCP), ip4(p) }),
		"ip.dsfield.ecn":  intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.ECN), ip4(p) }),
		"ip.ttl":          intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.TTL), ip4(p) }),
		"udp.srcport":     intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.SrcPort), p.HasUDP }),
		"udp.dstport":     intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.DstPort), p.HasUDP }),
		"udp.port": {typ: TypeInt, read: true, i: func(p *decode.Packet, _ *Frame, i int) (uint64, bool) {
			if !p.HasUDP || i > 1 {
				return 0, false
			}
			if i == 0 {
				return uint64(p.SrcPort), true
			}
			return uint64(p.DstPort), true
		}},
		"infiniband.bth.opcode":    intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.BTH.Opcode), hasBTH(p) }),
		"infiniband.bth.destqp":    intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.BTH.DestQP), hasBTH(p) }),
		"infiniband.bth.psn":       intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.BTH.PSN), hasBTH(p) }),
		"infiniband.bth.a":         boolF(func(p *decode.Packet) (bool, bool) { return p.BTH.AckReq, hasBTH(p) }),
		"infiniband.bth.se":        boolF(func(p *decode.Packet) (bool, bool) { return p.BTH.SE, hasBTH(p) }),
		"infiniband.bth.p_key":     intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.BTH.PKey), hasBTH(p) }),
		"infiniband.aeth.syndrome": intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.AETH.Syndrome), ext(p, decode.ExtAETH) }),
		"infiniband.aeth.msn":      intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.AETH.MSN), ext(p, decode.ExtAETH) }),
		"infiniband.reth.va":       vaOrAtomic(false),
		"infiniband.reth.r_key":    vaOrAtomic(true),
		"infiniband.reth.dmalen":   intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.RETH.DMALen), ext(p, decode.ExtRETH) }),
		"infiniband.deth.q_key":    intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.DETH.QKey), ext(p, decode.ExtDETH) }),
		"infiniband.deth.srcqp":    intF(func(p *decode.Packet) (uint64, bool) { return uint64(p.DETH.SrcQP), ext(p, decode.ExtDETH) }),
	}
}
