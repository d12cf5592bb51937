package decode

import (
	"encoding/binary"
	"net/netip"

	"github.com/rocetrace/rocetrace/pcapio"
)

// DefaultRoCEPort is the IANA UDP destination port of RoCEv2.
const DefaultRoCEPort = 4791

// EtherTypes and IP protocols the decoder follows.
const (
	etherTypeIPv4       = 0x0800
	etherTypeIPv6       = 0x86DD
	etherTypeVLAN       = 0x8100
	etherTypeQinQ       = 0x88A8
	etherTypeQinQOld    = 0x9100
	etherTypeMACControl = 0x8808
	etherTypeERSPAN12   = 0x88BE
	etherTypeERSPAN3    = 0x22EB
	etherTypeTEB        = 0x6558
	ipProtoUDP          = 17
	ipProtoGRE          = 47
	maxVLANTags         = 8
	maxEncapDepth       = 2
	macControlPFC       = 0x0101
	macControlPause     = 0x0001
)

// opcodeExt and opcodeExtLen hold Opcode.ExtHeaders and its ExtLen for
// every opcode, so that the hot path does a table lookup.
var (
	opcodeExt    [256]Ext
	opcodeExtLen [256]uint8
)

func init() {
	for i := range opcodeExt {
		e := Opcode(i).ExtHeaders()
		opcodeExt[i], opcodeExtLen[i] = e, uint8(e.ExtLen())
	}
}

// Config configures a Decoder.
type Config struct {
	// RoCEPort is the UDP destination port that selects RoCEv2 (0 means
	// DefaultRoCEPort). Source ports never select RoCE: they are ECMP entropy.
	RoCEPort uint16
	// VXLANPort is the UDP destination port that selects VXLAN (0 means
	// DefaultVXLANPort). The RoCE port wins should the two be equal.
	VXLANPort uint16
}

// Decoder turns captured frames into Packets. It parses the fixed headers
// by hand, without gopacket (package layers holds the gopacket layers, for
// building frames, gopacket users and tests), so decoding allocates nothing. A Decoder is
// not safe for concurrent use; it keeps no state between frames.
type Decoder struct {
	port    uint16
	vxlan   uint16      // VXLAN's UDP destination port
	scratch icrcScratch // masked header copies for the ICRC

	// ICRC checks left to the caller (DecodeRecordDeferICRC).
	deferMin int    // defer for IP packets of at least this many bytes; 0: never
	pendIP   []byte // the deferred packet, or nil
	pendOff  int    // its UDP header's offset

	tr *trace // where the headers are (TreeLines); nil when decoding fast

	general bool // tests: never take fastEthernet
}

// NewDecoder returns a Decoder for cfg.
func NewDecoder(cfg Config) *Decoder {
	port := cfg.RoCEPort
	if port == 0 {
		port = DefaultRoCEPort
	}
	vxlan := cfg.VXLANPort
	if vxlan == 0 {
		vxlan = DefaultVXLANPort
	}
	return &Decoder{port: port, vxlan: vxlan}
}

// DecodeRecord decodes one capture record into p, replacing all of p.
func (d *Decoder) DecodeRecord(rec *pcapio.Record, p *Packet) {
	d.Decode(rec.Data, rec.LinkType, rec.Len, p)
	setRecord(p, rec)
}

// setRecord copies into p what the record says of the frame: its file,
// number, offset and time.
func setRecord(p *Packet, rec *pcapio.Record) {
	p.File = rec.File
	p.Frame = rec.Frame
	p.Offset = rec.Offset
	p.TsNs = rec.TsNs
}

// takePending ends a deferring decode: it returns the ICRC check left to
// the caller (nil: none) and clears it.
func (d *Decoder) takePending() (ip []byte, udpOff int) {
	d.deferMin = 0
	ip, udpOff = d.pendIP, d.pendOff
	d.pendIP = nil
	return ip, udpOff
}

// DecodeRecordDeferICRC is DecodeRecord, except that the ICRC check of a
// whole RoCE frame whose IP packet is at least minLen bytes long (minLen >=
// 1) is left to the caller, who may do it later, on another goroutine: it
// returns that IP packet (up to the end of the ICRC field; it aliases
// rec.Data, so copy it to keep it) and the offset of the UDP header in it,
// and p.ICRC and p.ICRCStatus stay unset until FinishICRC(p, ip, udpOff)
// sets them as DecodeRecord would have. It returns nil when there is no
// check to do (none is possible, or it was done).
//
// A pipeline uses it to move the CRC over big frames, the costliest part of
// decoding, off the goroutine that reads and decodes.
func (d *Decoder) DecodeRecordDeferICRC(rec *pcapio.Record, p *Packet, minLen int) (ip []byte, udpOff int) {
	d.deferMin = max(minLen, 1)
	d.DecodeRecord(rec, p)
	return d.takePending()
}

// DecodeZeroedRecordDeferICRC is DecodeRecordDeferICRC for a p that is
// the zero Packet (never written, or cleared since), which it does not
// clear again: a pipeline clears its batch of packets at once (clear on
// the slice), for a third of the instructions of clearing each. It sets p
// as DecodeRecordDeferICRC sets it; a minLen of math.MaxInt leaves no check
// to the caller (DecodeRecord).
func (d *Decoder) DecodeZeroedRecordDeferICRC(rec *pcapio.Record, p *Packet, minLen int) (ip []byte, udpOff int) {
	d.deferMin = max(minLen, 1)
	if data := rec.Data; rec.LinkType == pcapio.LinkTypeEthernet && !d.general {
		// Decode's part for Ethernet, without its clearing of p.
		wire := max(rec.Len, len(data))
		p.Len, p.CapLen, p.LinkType, p.Truncated = wire, len(data), pcapio.LinkTypeEthernet, len(data) < wire
		if !d.fastEthernet(data, wire, p) {
			d.ethernet(data, wire, 0, p)
		}
	} else {
		d.Decode(data, rec.LinkType, rec.Len, p)
	}
	setRecord(p, rec)
	return d.takePending()
}

// FinishICRC completes the ICRC check DecodeRecordDeferICRC left to the
// caller: ip and udpOff are what it returned (ip possibly a copy). Any
// Decoder may do it; it uses only its scratch space.
func (d *Decoder) FinishICRC(p *Packet, ip []byte, udpOff int) {
	if crc, ok := computeICRC(ip, udpOff, &d.scratch); ok {
		p.ICRC = StoredICRC(ip)
		if crc == p.ICRC {
			p.ICRCStatus = ICRCOK
		} else {
			p.ICRCStatus = ICRCBad
		}
	}
}

// Decode decodes one frame of the given link type into p, replacing all of
// p. data holds the captured bytes and wireLen the frame's length on the
// wire. Decode never fails: what cannot be decoded leaves p.Kind ==
// KindOther, and contradictions set p.Malformed.
func (d *Decoder) Decode(data []byte, link pcapio.LinkType, wireLen int, p *Packet) {
	*p = Packet{}
	if wireLen < len(data) {
		wireLen = len(data)
	}
	p.Len = wireLen
	p.CapLen = len(data)
	p.LinkType = link
	p.Truncated = len(data) < wireLen
	switch link {
	case pcapio.LinkTypeEthernet:
		if d.general || !d.fastEthernet(data, wireLen, p) {
			d.ethernet(data, wireLen, 0, p)
		}
	case pcapio.LinkTypeLinuxSLL:
		// 16-byte cooked header: packet type, ARPHRD, address length,
		// 8 address bytes, protocol.
		if len(data) < 16 {
			return
		}
		if binary.BigEndian.Uint16(data[4:6]) == 6 {
			copy(p.SrcMAC[:], data[6:12])
			p.HasMAC = true
		}
		p.FrameLen = wireLen - 16 + 14
		d.etherType(binary.BigEndian.Uint16(data[14:16]), data[16:], wireLen-16, 0, p)
	case pcapio.LinkTypeLinuxSLL2:
		// 20-byte cooked v2 header: protocol, reserved, ifindex, ARPHRD,
		// packet type, address length, 8 address bytes.
		if len(data) < 20 {
			return
		}
		if data[11] == 6 {
			copy(p.SrcMAC[:], data[12:18])
			p.HasMAC = true
		}
		p.FrameLen = wireLen - 20 + 14
		d.etherType(binary.BigEndian.Uint16(data[0:2]), data[20:], wireLen-20, 0, p)
	case pcapio.LinkTypeRaw, pcapio.LinkTypeRawDLT12, pcapio.LinkTypeRawDLT14:
		d.rawIP(0, data, wireLen, p) // IPv4 or IPv6 by the version nibble
	case pcapio.LinkTypeIPv4:
		d.rawIP(etherTypeIPv4, data, wireLen, p)
	case pcapio.LinkTypeIPv6:
		d.rawIP(etherTypeIPv6, data, wireLen, p)
	}
}

// rawIP decodes a record that is an IP packet without a link header (the
// raw-IP link types); its analysed frame length is that of the packet in
// an untagged Ethernet frame, as for the cooked link types.
func (d *Decoder) rawIP(et uint16, data []byte, wire int, p *Packet) {
	if et == 0 {
		if len(data) < 1 {
			return
		}
		switch data[0] >> 4 {
		case 4:
			et = etherTypeIPv4
		case 6:
			et = etherTypeIPv6
		default:
			return
		}
	}
	p.FrameLen = wire + 14
	d.etherType(et, data, wire, 0, p)
}

// ethernet decodes an Ethernet II frame; wire is its length on the wire.
func (d *Decoder) ethernet(b []byte, wire, depth int, p *Packet) {
	if len(b) < 14 {
		return
	}
	copy(p.DstMAC[:], b[0:6])
	copy(p.SrcMAC[:], b[6:12])
	p.HasMAC = true
	p.FrameLen = wire
	et := binary.BigEndian.Uint16(b[12:14])
	off := 14
	for et == etherTypeVLAN || et == etherTypeQinQ || et == etherTypeQinQOld {
		if len(b) < off+4 || p.VLANCount == maxVLANTags {
			return
		}
		if p.VLANCount == 0 {
			tci := binary.BigEndian.Uint16(b[off : off+2])
			p.VLANPCP = uint8(tci >> 13)
			p.VLANID = tci & 0x0FFF
		} else if p.VLANCount == 1 {
			p.VLAN2TCI = binary.BigEndian.Uint16(b[off : off+2])
		}
		p.VLANCount++
		et = binary.BigEndian.Uint16(b[off+2 : off+4])
		off += 4
	}
	d.etherType(et, b[off:], wire-off, depth, p)
}

// etherType dispatches on the EtherType of the bytes in b (wire bytes
// remaining on the wire from b's start).
func (d *Decoder) etherType(et uint16, b []byte, wire, depth int, p *Packet) {
	p.EtherType = et
	switch et {
	case etherTypeIPv4:
		d.ipv4(b, wire, depth, p)
	case etherTypeIPv6:
		d.ipv6(b, wire, depth, p)
	case etherTypeMACControl:
		macControl(b, wire, p)
	case etherTypeMPLS, etherTypeMPLSMulti:
		d.mpls(b, wire, depth, p)
	case etherTypeRoCEv1:
		d.roceV1(b, wire, p)
	}
}

// MAC Control frame lengths after the EtherType: the opcode and its
// parameters (PFC: class-enable vector and eight times; PAUSE: one time).
const (
	macControlPFCLen   = 2 + 2 + 16
	macControlPauseLen = 2 + 2
)

// macControl decodes a MAC Control frame (PFC or 802.3x PAUSE); wire is
// its length on the wire from the opcode on. A frame shorter on the wire
// than its opcode's parameters is malformed (of kind other); one the
// capture cut short is only truncated.
func macControl(b []byte, wire int, p *Packet) {
	if len(b) < 2 {
		return
	}
	switch binary.BigEndian.Uint16(b[0:2]) {
	case macControlPFC:
		if wire < macControlPFCLen {
			malformed(p, "PFC frame too short for the class-enable vector and the eight times")
			return
		}
		if len(b) < macControlPFCLen {
			return
		}
		p.PFCEnable = binary.BigEndian.Uint16(b[2:4])
		for i := range p.PFCQuanta {
			p.PFCQuanta[i] = binary.BigEndian.Uint16(b[4+2*i:])
		}
		p.Kind = KindPFC
	case macControlPause:
		if wire < macControlPauseLen {
			malformed(p, "PAUSE frame too short for the pause time")
			return
		}
		if len(b) < macControlPauseLen {
			return
		}
		p.PauseQuanta = binary.BigEndian.Uint16(b[2:4])
		p.Kind = KindPause
	}
}

// malformed marks p as contradicting itself.
func malformed(p *Packet, why string) {
	p.Malformed = true
	if p.Problem == "" {
		p.Problem = why
	}
}

// ipv4 decodes an IPv4 header and what it carries.
func (d *Decoder) ipv4(b []byte, wire, depth int, p *Packet) {
	if len(b) < 20 {
		return
	}
	if b[0]>>4 != 4 {
		malformed(p, "IPv4 header with another version")
		return
	}
	ihl := int(b[0]&0x0F) * 4
	total := int(binary.BigEndian.Uint16(b[2:4]))
	if ihl < 20 {
		malformed(p, "IPv4 header length below 20")
		return
	}
	if total < ihl {
		malformed(p, "IPv4 total length below header length")
		return
	}
	if total > wire {
		malformed(p, "IPv4 total length beyond the frame")
		return
	}
	p.IPVersion = 4
	p.DSCP = b[1] >> 2
	p.ECN = b[1] & 3
	p.TTL = b[8]
	p.IPProto = b[9]
	p.SrcIP = netip.AddrFrom4([4]byte(b[12:16]))
	p.DstIP = netip.AddrFrom4([4]byte(b[16:20]))
	if len(b) < ihl {
		return
	}
	if binary.BigEndian.Uint16(b[6:8])&0x3FFF != 0 {
		return // a fragment: the transport header is not whole here
	}
	if len(b) > total {
		b = b[:total] // Ethernet padding or FCS
	}
	d.transport(b, ihl, total, depth, p)
}

// ipv6 decodes an IPv6 header, skips extension headers, and decodes what
// it carries.
func (d *Decoder) ipv6(b []byte, wire, depth int, p *Packet) {
	if len(b) < 40 {
		return
	}
	if b[0]>>4 != 6 {
		malformed(p, "IPv6 header with another version")
		return
	}
	total := 40 + int(binary.BigEndian.Uint16(b[4:6]))
	if total > wire {
		malformed(p, "IPv6 payload length beyond the frame")
		return
	}
	tc := b[0]<<4 | b[1]>>4
	p.IPVersion = 6
	p.DSCP = tc >> 2
	p.ECN = tc & 3
	p.TTL = b[7]
	p.SrcIP = netip.AddrFrom16([16]byte(b[8:24]))
	p.DstIP = netip.AddrFrom16([16]byte(b[24:40]))
	next := b[6]
	off := 40
	for next == 0 || next == 43 || next == 60 { // hop-by-hop, routing, destination options
		if off+8 > total {
			malformed(p, "IPv6 extension header beyond the payload length")
			return
		}
		if len(b) < off+8 {
			return
		}
		next = b[off]
		off += (int(b[off+1]) + 1) * 8
	}
	if off > total {
		malformed(p, "IPv6 extension header beyond the payload length")
		return
	}
	p.IPProto = next
	if len(b) < off {
		return
	}
	if len(b) > total {
		b = b[:total]
	}
	d.transport(b, off, total, depth, p)
}

// transport decodes UDP or GRE at ip[off:]; total is the IP packet's length.
func (d *Decoder) transport(ip []byte, off, total, depth int, p *Packet) {
	switch p.IPProto {
	case ipProtoUDP:
		d.udp(ip, off, total, depth, p)
	case ipProtoGRE:
		if depth < maxEncapDepth {
			d.gre(ip[off:], total-off, depth, p)
		}
	}
}

// udp decodes the UDP header at ip[off:] and, on the RoCE port, the BTH.
func (d *Decoder) udp(ip []byte, off, total, depth int, p *Packet) {
	u := ip[off:]
	if len(u) < 8 {
		return
	}
	ulen := int(binary.BigEndian.Uint16(u[4:6]))
	p.HasUDP = true
	p.SrcPort = binary.BigEndian.Uint16(u[0:2])
	p.DstPort = binary.BigEndian.Uint16(u[2:4])
	p.UDPLen = uint16(ulen)
	if ulen < 8 || ulen > total-off {
		malformed(p, "UDP length does not fit the IP packet")
		return
	}
	if p.DstPort != d.port {
		d.udpTunnel(u, ulen, depth, p) // VXLAN, Geneve (overlay.go)
		return
	}
	if ulen < 8+BTHLen+ICRCLen {
		malformed(p, "UDP length too short for BTH and ICRC")
		return
	}
	if len(u) < 8+BTHLen {
		p.BTHCut = true
		return // cut inside the BTH: counted as truncated, in no flow
	}
	bth := u[8 : 8+BTHLen]
	p.HasBTH = true
	// p is zeroed, so this sets all of p.BTH.
	b := &p.BTH
	b.set(binary.BigEndian.Uint64(bth[0:8]))
	b.AckReq = bth[8]&0x80 != 0
	b.PSN = uint32(bth[9])<<16 | uint32(bth[10])<<8 | uint32(bth[11])
	p.Kind = KindRoCE
	if p.BTH.Opcode == OpcodeCNP {
		p.Kind = KindCNP
	}
	want, extLen := opcodeExt[p.BTH.Opcode], int(opcodeExtLen[p.BTH.Opcode])
	payload := ulen - 8 - BTHLen - extLen - int(p.BTH.Pad) - ICRCLen
	if payload < 0 {
		malformed(p, "UDP length too short for the opcode's headers")
		p.ICRCStatus = ICRCMalformed
	} else {
		p.PayloadLen = payload
		p.HasPayloadLen = true
	}
	rest := p.extHeaders(u[8+BTHLen:], want)
	if p.Ext&ExtDETH != 0 && p.BTH.DestQP == 1 && rest != nil {
		p.cm(rest)
	}
	if len(u) >= ulen && payload >= 0 {
		if d.deferMin > 0 && off+ulen >= d.deferMin {
			d.pendIP, d.pendOff = ip[:off+ulen], off
			return
		}
		d.FinishICRC(p, ip[:off+ulen], off)
	}
}

// gre decodes a GRE header and the mirrored Ethernet frame inside
// (ERSPAN I/II/III or transparent Ethernet bridging); wire is the GRE
// packet's length.
func (d *Decoder) gre(b []byte, wire, depth int, p *Packet) {
	if len(b) < 4 {
		return
	}
	flags := binary.BigEndian.Uint16(b[0:2])
	if flags&0x0007 != 0 {
		return // GRE version other than 0
	}
	proto := binary.BigEndian.Uint16(b[2:4])
	off := 4
	if flags&0x8000 != 0 { // checksum present
		off += 4
	}
	if flags&0x2000 != 0 { // key present
		off += 4
	}
	seq := flags&0x1000 != 0
	if seq {
		off += 4
	}
	var enc Encap
	switch proto {
	case etherTypeERSPAN12:
		if seq {
			enc = EncapERSPAN2
			if len(b) >= off+4 {
				p.TunnelID = uint32(binary.BigEndian.Uint16(b[off+2:off+4]) & 0x03FF) // session ID
			}
			off += 8
		} else {
			enc = EncapERSPAN1
		}
	case etherTypeERSPAN3:
		if len(b) >= off+12 {
			d.erspan3(b, off, wire, depth, p) // by its frame type (overlay.go)
		}
		return
	case etherTypeTEB:
		enc = EncapGREBridge
	case etherTypeIPv4, etherTypeIPv6:
		if off > wire {
			malformed(p, "GRE/ERSPAN header beyond the packet")
		} else if len(b) >= off {
			d.greIP(proto, b[off:], wire-off, depth, p)
		}
		return
	default:
		return
	}
	if off > wire {
		malformed(p, "GRE/ERSPAN header beyond the packet")
		return
	}
	if len(b) < off {
		return
	}
	p.resetInner()
	p.Encap = enc
	d.traceEthernet(b[off:])
	d.ethernet(b[off:], wire-off, depth+1, p)
}

// resetInner clears what the outer headers of a mirrored frame set, so
// only the inner frame's headers describe the packet.
func (p *Packet) resetInner() {
	p.HasMAC, p.SrcMAC, p.DstMAC = false, [6]byte{}, [6]byte{}
	p.VLANCount, p.VLANID, p.VLANPCP, p.EtherType = 0, 0, 0, 0
	p.VLAN2TCI = 0
	p.IPVersion, p.SrcIP, p.DstIP = 0, netip.Addr{}, netip.Addr{}
	p.DSCP, p.ECN, p.TTL, p.IPProto = 0, 0, 0, 0
	p.FrameLen = 0
}
