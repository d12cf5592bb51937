package decode

import "encoding/binary"

// Overlays and tunnels besides the GRE mirrors of decoder.go: VXLAN and
// Geneve (UDP), GRE carrying IP directly, MPLS label stacks, and the frame
// type of ERSPAN III. Each decodes its header and hands the frame or packet
// inside to the Ethernet or IP decoder, one encapsulation level deeper
// (maxEncapDepth bounds the nesting).

// Ports, EtherTypes and limits of the overlays.
const (
	// DefaultVXLANPort is the IANA UDP destination port of VXLAN.
	DefaultVXLANPort = 4789
	// GenevePort is the IANA UDP destination port of Geneve.
	GenevePort = 6081

	etherTypeMPLS      = 0x8847
	etherTypeMPLSMulti = 0x8848
	vxlanLen           = 8
	geneveLen          = 8
	mplsLabelLen       = 4
	maxMPLSLabels      = 8

	erspan3FrameEthernet = 0 // ERSPAN III frame type: Ethernet
	erspan3FrameIP       = 2 // ERSPAN III frame type: an IP packet
)

// Stop says why the decoder stopped short of a frame it recognised as
// carrying another one. The frame is then of kind other, described by its
// outer headers.
type Stop uint8

// Reasons to stop.
const (
	StopNone            Stop = iota
	StopERSPANFrameType      // ERSPAN III frame type other than 0 (Ethernet) and 2 (IP); StopArg is the type
	StopMPLSPayload          // after the bottom MPLS label comes neither IPv4 nor IPv6 (a pseudowire, say); StopArg is the first nibble
	StopMPLSDepth            // more MPLS labels than the decoder follows (maxMPLSLabels)
	StopGeneveProto          // a Geneve protocol type other than Ethernet, IPv4 or IPv6
	StopGeneveVersion        // a Geneve version other than 0
)

// String describes the reason ("" for StopNone); arg is Packet.StopArg.
func (s Stop) String() string {
	switch s {
	case StopERSPANFrameType:
		return "ERSPAN III frame type not decoded (rocetrace reads 0, Ethernet, and 2, IP)"
	case StopMPLSPayload:
		return "MPLS payload is neither IPv4 nor IPv6"
	case StopMPLSDepth:
		return "MPLS label stack deeper than 8 labels"
	case StopGeneveProto:
		return "Geneve protocol type not decoded (rocetrace reads Ethernet, IPv4 and IPv6)"
	case StopGeneveVersion:
		return "Geneve version other than 0"
	}
	return ""
}

// stop records why decoding stopped.
func stop(p *Packet, s Stop, arg uint8) {
	p.Stop, p.StopArg = s, arg
}

// udpTunnel decodes VXLAN or Geneve in the UDP datagram u (its first
// ulen bytes are the datagram; fewer may be captured); the datagram went to
// a port other than the RoCE port.
func (d *Decoder) udpTunnel(u []byte, ulen, depth int, p *Packet) {
	if depth >= maxEncapDepth || len(u) < 8 {
		return
	}
	b, wire := u[8:min(len(u), ulen)], ulen-8
	switch p.DstPort {
	case d.vxlan:
		// Flags (I: the VNI is valid), 3 reserved bytes, VNI (24), reserved.
		if len(b) < vxlanLen || wire < vxlanLen {
			return
		}
		vni := binary.BigEndian.Uint32(b[4:8]) >> 8
		p.enterTunnel(EncapVXLAN, vni)
		d.traceEthernet(b[vxlanLen:])
		d.ethernet(b[vxlanLen:], wire-vxlanLen, depth+1, p)
	case GenevePort:
		// Version (2) and options length (6, in 4-byte words), O and C
		// flags, protocol type, VNI (24), reserved; then the options.
		if len(b) < geneveLen {
			return
		}
		if b[0]>>6 != 0 {
			stop(p, StopGeneveVersion, b[0]>>6)
			return
		}
		hdr := geneveLen + int(b[0]&0x3F)*4
		if hdr > wire {
			return
		}
		proto := binary.BigEndian.Uint16(b[2:4])
		vni := binary.BigEndian.Uint32(b[4:8]) >> 8
		switch proto {
		case etherTypeTEB, etherTypeIPv4, etherTypeIPv6:
		default:
			stop(p, StopGeneveProto, 0)
			return
		}
		if len(b) < hdr {
			return
		}
		p.enterTunnel(EncapGeneve, vni)
		if proto == etherTypeTEB {
			d.traceEthernet(b[hdr:])
			d.ethernet(b[hdr:], wire-hdr, depth+1, p)
		} else {
			d.innerIP(proto, b[hdr:], wire-hdr, depth, p)
		}
	}
}

// enterTunnel clears the outer headers, UDP included, before the frame
// inside a tunnel is decoded.
func (p *Packet) enterTunnel(enc Encap, id uint32) {
	p.resetInner()
	p.HasUDP, p.SrcPort, p.DstPort, p.UDPLen = false, 0, 0, 0
	p.Encap, p.TunnelID = enc, id
}

// innerIP decodes an IP packet carried without an Ethernet header (GRE-IP,
// Geneve, ERSPAN III frame type 2) at depth+1. The packet's analysed frame
// length is that of the same packet in an untagged Ethernet frame (14
// bytes more), as for the cooked link types. et is the EtherType that
// names it (or 0: the version nibble decides).
func (d *Decoder) innerIP(et uint16, b []byte, wire, depth int, p *Packet) {
	if et == 0 {
		if len(b) < 1 {
			return
		}
		switch b[0] >> 4 {
		case 4:
			et = etherTypeIPv4
		case 6:
			et = etherTypeIPv6
		default:
			malformed(p, "IP packet with a version other than 4 and 6")
			return
		}
	}
	p.FrameLen = wire + 14
	d.traceNetwork(b)
	d.etherType(et, b, wire, depth+1, p)
}

// mpls skips an MPLS label stack and decodes the IP packet after its bottom
// label (told by its version nibble). The frame stays the analysed frame:
// its MACs and VLAN tags are those of the packet, Encap is MPLS unless an
// outer tunnel set it, and TunnelID is the bottom label.
func (d *Decoder) mpls(b []byte, wire, depth int, p *Packet) {
	off := 0
	for n := 1; ; n++ {
		if len(b) < off+mplsLabelLen || wire < off+mplsLabelLen {
			return
		}
		e := binary.BigEndian.Uint32(b[off:])
		off += mplsLabelLen
		p.MPLSLabels = uint8(n)
		if p.Encap == EncapNone || p.Encap == EncapMPLS {
			p.Encap, p.TunnelID = EncapMPLS, e>>12
		}
		if e&0x100 != 0 { // bottom of stack
			break
		}
		if n == maxMPLSLabels {
			stop(p, StopMPLSDepth, 0)
			return
		}
	}
	if len(b) <= off {
		return
	}
	d.traceNetwork(b[off:])
	switch b[off] >> 4 {
	case 4:
		d.ipv4(b[off:], wire-off, depth, p)
	case 6:
		d.ipv6(b[off:], wire-off, depth, p)
	default:
		stop(p, StopMPLSPayload, b[off]>>4)
	}
}

// erspan3 decodes the ERSPAN III header at b[off:] (12 bytes are there) and
// the frame inside, by the header's frame type: 0 Ethernet, 2 IP; any
// other stops (Stop, StopArg: the type).
func (d *Decoder) erspan3(b []byte, off, wire, depth int, p *Packet) {
	h := b[off:]
	session := uint32(binary.BigEndian.Uint16(h[2:4]) & 0x03FF)
	ft := h[10] >> 2 & 0x1F // P (1), FT (5), HW ID (6), D (1), Gra (2), O (1)
	off += 12
	if h[11]&0x01 != 0 { // O bit: platform-specific sub-header follows
		off += 8
	}
	if off > wire {
		malformed(p, "GRE/ERSPAN header beyond the packet")
		return
	}
	if ft != erspan3FrameEthernet && ft != erspan3FrameIP {
		stop(p, StopERSPANFrameType, ft)
		return
	}
	if len(b) < off {
		return
	}
	p.resetInner()
	p.Encap, p.TunnelID = EncapERSPAN3, session
	if ft == erspan3FrameIP {
		d.innerIP(0, b[off:], wire-off, depth, p)
		return
	}
	d.traceEthernet(b[off:])
	d.ethernet(b[off:], wire-off, depth+1, p)
}

// greIP decodes the IP packet GRE carries directly (protocol 0x0800 or
// 0x86DD).
func (d *Decoder) greIP(et uint16, b []byte, wire, depth int, p *Packet) {
	p.resetInner()
	p.Encap = EncapGREIP
	d.innerIP(et, b, wire, depth, p)
}
