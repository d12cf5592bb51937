// Package synth builds RoCEv2, CNP, PFC and PAUSE frames and writes them
// as pcap or pcapng captures with exact nanosecond timestamps. Tests use
// it to make inputs whose right answers are known by construction; the
// demo captures in pcaps/ and the benchmark captures are made with it.
//
// Frames are serialized with gopacket's layers (Ethernet, 802.1Q, IPv4,
// IPv6, UDP, GRE, ERSPAN II) and rocetrace's own decode layers (BTH and its
// extended headers, MAC Control, ERSPAN III); the ICRC is computed with
// decode.ComputeICRC.
package synth

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/layers"
)

// Endpoint is one host: its MAC and IP address (IPv4 or IPv6).
type Endpoint struct {
	MAC [6]byte
	IP  netip.Addr
}

// Host returns an IPv4 endpoint 10.0.0.n with MAC 02:00:00:00:00:n.
func Host(n uint8) Endpoint {
	return Endpoint{MAC: [6]byte{2, 0, 0, 0, 0, n}, IP: netip.AddrFrom4([4]byte{10, 0, 0, n})}
}

// Host6 returns an IPv6 endpoint fd00::n with MAC 02:00:00:00:06:n.
func Host6(n uint8) Endpoint {
	var a [16]byte
	a[0], a[1], a[15] = 0xfd, 0x00, n
	return Endpoint{MAC: [6]byte{2, 0, 0, 0, 6, n}, IP: netip.AddrFrom16(a)}
}

// VLAN is one 802.1Q tag.
type VLAN struct {
	PCP uint8
	VID uint16
}

// Wrap says how a frame travels: VLAN tags (outermost first), and an
// optional ERSPAN mirror encapsulation (type 1, 2 or 3) between two
// collector endpoints.
type Wrap struct {
	VLANs      []VLAN
	QinQ       bool // the outermost tag is 802.1ad (0x88A8)
	ERSPAN     int  // 0 none, 1, 2 or 3
	MirrorSrc  Endpoint
	MirrorDst  Endpoint
	MirrorVLAN []VLAN // tags on the outer (mirror) frame

	// Appended: an overlay (tunnel.go), applied after the ERSPAN mirror,
	// and the VXLAN UDP port (0: 4789).
	Tunnel     Tunnel
	TunnelPort uint16
}

// RoCE describes one RoCEv2 frame.
type RoCE struct {
	Src, Dst Endpoint
	SrcPort  uint16 // UDP source port (ECMP entropy); 0 means 49152
	DstPort  uint16 // 0 means 4791
	DSCP     uint8
	ECN      uint8
	TTL      uint8 // 0 means 64

	BTH           decode.BTHFields
	RETH          decode.RETHFields
	AETH          decode.AETHFields
	DETH          decode.DETHFields
	AtomicETH     decode.AtomicETHFields
	AtomicAckOrig uint64
	Imm           uint32
	IETHRKey      uint32
	XRCSRQ        uint32

	Payload     int  // RDMA payload bytes (a fixed pattern)
	CorruptICRC bool // flip one bit of the ICRC
}

// Frame returns the Ethernet frame of r (no FCS), wrapped as w says.
func (r *RoCE) Frame(w Wrap) ([]byte, error) {
	bth, err := r.transportBytes()
	if err != nil {
		return nil, err
	}
	sport, dport, ttl := r.SrcPort, r.DstPort, r.TTL
	if sport == 0 {
		sport = 49152
	}
	if dport == 0 {
		dport = decode.DefaultRoCEPort
	}
	if ttl == 0 {
		ttl = 64
	}
	udp := &gplayers.UDP{SrcPort: gplayers.UDPPort(sport), DstPort: gplayers.UDPPort(dport)}
	tos := r.DSCP<<2 | r.ECN&3
	var ip gopacket.SerializableLayer
	if r.Src.IP.Is4() {
		ip4 := &gplayers.IPv4{Version: 4, IHL: 5, TOS: tos, TTL: ttl, Protocol: gplayers.IPProtocolUDP,
			SrcIP: r.Src.IP.AsSlice(), DstIP: r.Dst.IP.AsSlice(), Flags: gplayers.IPv4DontFragment}
		_ = udp.SetNetworkLayerForChecksum(ip4)
		ip = ip4
	} else {
		ip6 := &gplayers.IPv6{Version: 6, TrafficClass: tos, HopLimit: ttl, NextHeader: gplayers.IPProtocolUDP,
			SrcIP: r.Src.IP.AsSlice(), DstIP: r.Dst.IP.AsSlice()}
		_ = udp.SetNetworkLayerForChecksum(ip6)
		ip = ip6
	}
	et := gplayers.EthernetTypeIPv4
	if !r.Src.IP.Is4() {
		et = gplayers.EthernetTypeIPv6
	}
	l2 := ethernetLayers(r.Src.MAC, r.Dst.MAC, w.VLANs, w.QinQ, et)
	// RoCEv2 leaves the UDP checksum zero (IPv4); for IPv6 we compute it.
	all := append(l2, ip, udp, gopacket.Payload(bth))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, all...); err != nil {
		return nil, fmt.Errorf("serializing RoCE frame: %w", err)
	}
	frame := buf.Bytes()
	ipOff := 14 + 4*len(w.VLANs)
	udpOff := ipOff + 20
	if !r.Src.IP.Is4() {
		udpOff = ipOff + 40
	} else {
		frame[udpOff+6], frame[udpOff+7] = 0, 0 // no UDP checksum over IPv4, as RoCE NICs send
	}
	crc, ok := decode.ComputeICRC(frame[ipOff:], udpOff-ipOff)
	if !ok {
		return nil, fmt.Errorf("computing ICRC: frame too short")
	}
	if r.CorruptICRC {
		crc ^= 1
	}
	binary.LittleEndian.PutUint32(frame[len(frame)-decode.ICRCLen:], crc)
	if !r.Src.IP.Is4() {
		// The UDP checksum covered the placeholder ICRC; recompute it.
		fixUDP6Checksum(frame[ipOff:], udpOff-ipOff)
	}
	out := append([]byte(nil), frame...)
	if w.ERSPAN != 0 {
		if out, err = mirror(out, w); err != nil {
			return nil, err
		}
	}
	return tunnel(out, w)
}

// transportBytes returns BTH, extended headers, payload, pad and a
// placeholder ICRC.
func (r *RoCE) transportBytes() ([]byte, error) {
	buf := gopacket.NewSerializeBuffer()
	ls := r.transportLayers()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
		return nil, fmt.Errorf("serializing BTH: %w", err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// payloadPattern fills n payload bytes with a recognisable pattern.
func payloadPattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i)
	}
	return p
}

// ethernetLayers returns Ethernet and its VLAN tags ending in EtherType et.
func ethernetLayers(src, dst [6]byte, vlans []VLAN, qinq bool, et gplayers.EthernetType) []gopacket.SerializableLayer {
	eth := &gplayers.Ethernet{SrcMAC: src[:], DstMAC: dst[:], EthernetType: et}
	out := []gopacket.SerializableLayer{eth}
	if len(vlans) == 0 {
		return out
	}
	eth.EthernetType = gplayers.EthernetTypeDot1Q
	if qinq {
		eth.EthernetType = gplayers.EthernetTypeQinQ
	}
	for i, v := range vlans {
		next := gplayers.EthernetTypeDot1Q
		if i == len(vlans)-1 {
			next = et
		}
		out = append(out, &gplayers.Dot1Q{Priority: v.PCP, VLANIdentifier: v.VID, Type: next})
	}
	return out
}

// fixUDP6Checksum recomputes the UDP checksum of an IPv6 packet.
func fixUDP6Checksum(ip []byte, udpOff int) {
	u := ip[udpOff:]
	u[6], u[7] = 0, 0
	var sum uint32
	add := func(b []byte) {
		for i := 0; i+1 < len(b); i += 2 {
			sum += uint32(binary.BigEndian.Uint16(b[i:]))
		}
		if len(b)%2 == 1 {
			sum += uint32(b[len(b)-1]) << 8
		}
	}
	add(ip[8:40])
	sum += uint32(len(u)) + uint32(gplayers.IPProtocolUDP)
	add(u)
	for sum>>16 != 0 {
		sum = sum&0xFFFF + sum>>16
	}
	c := ^uint16(sum)
	if c == 0 {
		c = 0xFFFF
	}
	binary.BigEndian.PutUint16(u[6:], c)
}

// mirror wraps an Ethernet frame in GRE/ERSPAN between the mirror
// endpoints of w.
func mirror(inner []byte, w Wrap) ([]byte, error) {
	gre := &gplayers.GRE{}
	var hdr gopacket.SerializableLayer
	switch w.ERSPAN {
	case 1:
		gre.Protocol = gplayers.EthernetTypeERSPAN
	case 2:
		gre.Protocol = gplayers.EthernetTypeERSPAN
		gre.SeqPresent = true
		gre.Seq = 1
		hdr = &gplayers.ERSPANII{Version: 1, SessionID: 7}
	case 3:
		gre.Protocol = gplayers.EthernetType(0x22EB)
		gre.SeqPresent = true
		gre.Seq = 1
		hdr = &layers.ERSPAN3{Version: 2, SessionID: 7, HWID: 1}
	default:
		return nil, fmt.Errorf("unknown ERSPAN type %d", w.ERSPAN)
	}
	src, dst := w.MirrorSrc, w.MirrorDst
	if !src.IP.IsValid() {
		src, dst = Host(250), Host(251)
	}
	ip := &gplayers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: gplayers.IPProtocolGRE,
		SrcIP: src.IP.AsSlice(), DstIP: dst.IP.AsSlice()}
	ls := ethernetLayers(src.MAC, dst.MAC, w.MirrorVLAN, false, gplayers.EthernetTypeIPv4)
	ls = append(ls, ip, gre)
	if hdr != nil {
		ls = append(ls, hdr)
	}
	ls = append(ls, gopacket.Payload(inner))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		return nil, fmt.Errorf("serializing ERSPAN: %w", err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// PFC returns a PFC frame from src with the class-enable vector and quanta.
func PFC(src [6]byte, enable uint16, quanta [8]uint16) []byte {
	return macControl(src, &layers.MACControl{MACControlFields: decode.MACControlFields{PFCEnable: enable, PFCQuanta: quanta}, Opcode: layers.MACControlOpcodePFC})
}

// Pause returns an 802.3x PAUSE frame from src.
func Pause(src [6]byte, quanta uint16) []byte {
	return macControl(src, &layers.MACControl{MACControlFields: decode.MACControlFields{PauseQuanta: quanta}, Opcode: layers.MACControlOpcodePause})
}

func macControl(src [6]byte, mc *layers.MACControl) []byte {
	eth := &gplayers.Ethernet{SrcMAC: src[:], DstMAC: []byte{0x01, 0x80, 0xC2, 0, 0, 1}, EthernetType: gplayers.EthernetType(0x8808)}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, eth, mc); err != nil {
		panic(fmt.Sprintf("serializing MAC Control: %v", err)) // fixed-size fields: cannot fail
	}
	return append([]byte(nil), buf.Bytes()...)
}

// transportLayers returns the BTH, the extended headers its opcode calls
// for (in wire order) and the payload, as decode's gplayers.
func (r *RoCE) transportLayers() []gopacket.SerializableLayer {
	h := r.BTH
	ext := h.Opcode.ExtHeaders()
	ls := []gopacket.SerializableLayer{&layers.BTH{BTHFields: decode.BTHFields{Opcode: h.Opcode, SE: h.SE, MigReq: h.MigReq, TVer: h.TVer, PKey: h.PKey, FECN: h.FECN, BECN: h.BECN, DestQP: h.DestQP, AckReq: h.AckReq, PSN: h.PSN}, Ext: ext}}
	if ext&decode.ExtXRCETH != 0 {
		ls = append(ls, &layers.XRCETH{XRCETHFields: decode.XRCETHFields{XRCSRQ: r.XRCSRQ}})
	}
	if ext&decode.ExtDETH != 0 {
		ls = append(ls, &layers.DETH{DETHFields: decode.DETHFields{QKey: r.DETH.QKey, SrcQP: r.DETH.SrcQP}})
	}
	if ext&decode.ExtRETH != 0 {
		ls = append(ls, &layers.RETH{RETHFields: decode.RETHFields{VA: r.RETH.VA, RKey: r.RETH.RKey, DMALen: r.RETH.DMALen}})
	}
	if ext&decode.ExtAETH != 0 {
		ls = append(ls, &layers.AETH{AETHFields: decode.AETHFields{Syndrome: r.AETH.Syndrome, MSN: r.AETH.MSN}})
	}
	if ext&decode.ExtAtomicETH != 0 {
		a := r.AtomicETH
		ls = append(ls, &layers.AtomicETH{AtomicETHFields: decode.AtomicETHFields{VA: a.VA, RKey: a.RKey, SwapAdd: a.SwapAdd, Compare: a.Compare}})
	}
	if ext&decode.ExtAtomicAckETH != 0 {
		ls = append(ls, &layers.AtomicAckETH{AtomicAckETHFields: decode.AtomicAckETHFields{AtomicAckOrig: r.AtomicAckOrig}})
	}
	if ext&decode.ExtImmDt != 0 {
		ls = append(ls, &layers.ImmDt{ImmDtFields: decode.ImmDtFields{Imm: r.Imm}})
	}
	if ext&decode.ExtIETH != 0 {
		ls = append(ls, &layers.IETH{IETHFields: decode.IETHFields{IETHRKey: r.IETHRKey}})
	}
	if ext&decode.ExtCNP != 0 {
		ls = append(ls, &layers.CNP{})
	}
	return append(ls, gopacket.Payload(payloadPattern(r.Payload)))
}
