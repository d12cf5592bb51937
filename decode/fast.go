package decode

import (
	"encoding/binary"
	"net/netip"
)

// fastExt is the set of extended headers fastEthernet decodes; an opcode
// with any other (DETH, atomics, XRC, IETH, a CNP's padding) takes the
// general path.
const fastExt = ExtRETH | ExtAETH | ExtImmDt

// fastEthernet decodes, in one function, the shape nearly every frame of a
// RoCEv2 capture has: Ethernet with at most one 802.1Q tag, IPv4 without
// options (not a fragment) or IPv6 without extension headers, UDP to the
// RoCE port with a consistent length, a whole BTH, and an opcode whose
// extended headers are among fastExt. It sets p exactly as ethernet would
// (FuzzDecode and TestFastPathMatchesGeneral compare the two), with fewer
// calls, loads and branches. It returns false, having written nothing,
// for any other frame, malformed or cut short inside those headers
// included: the caller then decodes it with ethernet. p is zeroed but for
// what Decode set.
func (d *Decoder) fastEthernet(b []byte, wire int, p *Packet) bool {
	be := binary.BigEndian
	if len(b) < 14+20+8+BTHLen {
		return false
	}
	eh := (*[18]byte)(b) // Ethernet header and a tag: fixed offsets, no bounds checks
	et := be.Uint16(eh[12:14])
	off := 14
	var tci uint16
	if et == etherTypeVLAN {
		tci, et = be.Uint16(eh[14:16]), be.Uint16(eh[16:18])
		off = 18
	}
	ip := b[off:]
	ipWire := wire - off
	var total, l4 int
	switch et {
	case etherTypeIPv4:
		if len(ip) < 20 || ip[0] != 0x45 || ip[9] != ipProtoUDP || be.Uint16(ip[6:8])&0x3FFF != 0 {
			return false
		}
		total, l4 = int(be.Uint16(ip[2:4])), 20
		if total < 20 {
			return false
		}
	case etherTypeIPv6:
		if len(ip) < 40 || ip[0]>>4 != 6 || ip[6] != ipProtoUDP {
			return false
		}
		total, l4 = 40+int(be.Uint16(ip[4:6])), 40
	default:
		return false
	}
	if total > ipWire {
		return false
	}
	if len(ip) > total {
		ip = ip[:total] // Ethernet padding or FCS
	}
	if len(ip) < l4+8+BTHLen {
		return false
	}
	u := ip[l4:]
	uh := (*[8 + BTHLen]byte)(u) // UDP header and BTH
	ulen := int(be.Uint16(uh[4:6]))
	if ulen < 8+BTHLen+ICRCLen || ulen > total-l4 || be.Uint16(uh[2:4]) != d.port {
		return false
	}
	w := be.Uint64(uh[8:16]) // BTH bytes 0-7
	op := Opcode(w >> 56)
	want, extLen := opcodeExt[op], int(opcodeExtLen[op])
	pad := uint8(w>>52) & 3
	payload := ulen - 8 - BTHLen - extLen - int(pad) - ICRCLen
	if want&^fastExt != 0 || payload < 0 {
		return false
	}
	// The frame is of the shape: from here on, p is set as ethernet sets it.
	p.DstMAC = [6]byte(eh[0:6]) // one statement each: straight from eh to p, not through the stack
	p.SrcMAC = [6]byte(eh[6:12])
	p.HasMAC = true
	p.FrameLen = wire
	if off == 18 {
		p.VLANCount, p.VLANPCP, p.VLANID = 1, uint8(tci>>13), tci&0x0FFF
	}
	p.EtherType = et
	ih := (*[40]byte)(ip) // len(ip) >= l4+20 >= 40
	if l4 == 20 {
		p.IPVersion, p.DSCP, p.ECN, p.TTL = 4, ih[1]>>2, ih[1]&3, ih[8]
		p.SrcIP = netip.AddrFrom4([4]byte(ih[12:16]))
		p.DstIP = netip.AddrFrom4([4]byte(ih[16:20]))
	} else {
		tc := ih[0]<<4 | ih[1]>>4
		p.IPVersion, p.DSCP, p.ECN, p.TTL = 6, tc>>2, tc&3, ih[7]
		p.SrcIP = netip.AddrFrom16([16]byte(ih[8:24]))
		p.DstIP = netip.AddrFrom16([16]byte(ih[24:40]))
	}
	p.IPProto = ipProtoUDP
	p.HasUDP = true
	p.SrcPort, p.DstPort, p.UDPLen = be.Uint16(uh[0:2]), d.port, uint16(ulen)
	p.BTH.set(w)
	w2 := be.Uint32(uh[16:20]) // BTH bytes 8-11
	p.BTH.AckReq, p.BTH.PSN = w2&(0x80<<24) != 0, w2&0xFFFFFF
	p.HasBTH = true
	p.Kind = KindRoCE
	p.PayloadLen, p.HasPayloadLen = payload, true
	if want != 0 {
		p.extHeaders(u[8+BTHLen:], want)
	}
	if len(u) >= ulen {
		if d.deferMin > 0 && l4+ulen >= d.deferMin {
			d.pendIP, d.pendOff = ip[:l4+ulen], l4
			return true
		}
		d.FinishICRC(p, ip[:l4+ulen], l4)
	}
	return true
}

// set sets the fields of the BTH's bytes 0-7 from them (w, read
// big-endian), for both paths. Field by field, not as a struct literal:
// the compiler builds a literal in a temporary with narrow stores and
// copies it with 16-byte loads, which the CPU cannot forward from those
// stores (a stall of tens of cycles).
func (bt *BTHFields) set(w uint64) {
	bt.Opcode = Opcode(w >> 56)
	bt.SE = w&(0x80<<48) != 0
	bt.MigReq = w&(0x40<<48) != 0
	bt.Pad = uint8(w>>52) & 3
	bt.TVer = uint8(w>>48) & 0x0F
	bt.PKey = uint16(w >> 32)
	bt.FECN = w&(0x80<<24) != 0
	bt.BECN = w&(0x40<<24) != 0
	bt.DestQP = uint32(w) & 0xFFFFFF
}
