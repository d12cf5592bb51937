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

// Tunnel is an overlay a frame travels in (Wrap.Tunnel), besides the
// ERSPAN mirrors of Wrap.ERSPAN. The tunnels that carry IP packets (GRE-IP,
// Geneve-IP, ERSPAN III frame type 2) carry a frame's IP packet without its
// Ethernet header and tags; frames that hold no IP packet (PFC, PAUSE) are
// then left as they are, unwrapped, as they would be on the wire.
type Tunnel int

// Tunnels.
const (
	TunnelNone      Tunnel = iota
	TunnelVXLAN            // Ethernet in VXLAN (VNI 0x1234) in UDP to Wrap.TunnelPort (0: 4789)
	TunnelGeneve           // Ethernet in Geneve (VNI 0x5678, one 8-byte option) in UDP 6081
	TunnelGeneveIP         // the IP packet in Geneve (protocol 0x0800 or 0x86DD)
	TunnelGREIP            // the IP packet in GRE (protocol 0x0800 or 0x86DD)
	TunnelERSPAN3IP        // the IP packet in ERSPAN III with frame type 2
	TunnelMPLS             // two MPLS labels (100, then 200 at the bottom) between the Ethernet header and IP
)

// Tunnel VNIs and labels, for tests to check.
const (
	TunnelVNIVXLAN  = 0x1234
	TunnelVNIGeneve = 0x5678
	TunnelMPLSTop   = 100
	TunnelMPLSBot   = 200
)

// tunnel wraps frame (an Ethernet frame, possibly tagged) in w.Tunnel.
func tunnel(frame []byte, w Wrap) ([]byte, error) {
	switch w.Tunnel {
	case TunnelNone:
		return frame, nil
	case TunnelMPLS:
		return mplsInsert(frame), nil
	}
	ip, et := ipOfFrame(frame)
	var body []byte
	switch w.Tunnel {
	case TunnelVXLAN:
		body = binary.BigEndian.AppendUint32([]byte{0x08, 0, 0, 0}, TunnelVNIVXLAN<<8)
		body = append(body, frame...)
		return udpTunnel(body, w.TunnelPort, decode.DefaultVXLANPort)
	case TunnelGeneve:
		return udpTunnel(geneve(0x6558, frame), 0, decode.GenevePort)
	}
	if ip == nil {
		return frame, nil // no IP packet: not tunnelled
	}
	switch w.Tunnel {
	case TunnelGeneveIP:
		return udpTunnel(geneve(et, ip), 0, decode.GenevePort)
	case TunnelGREIP:
		return greTunnel(&gplayers.GRE{Protocol: gplayers.EthernetType(et)}, nil, ip)
	case TunnelERSPAN3IP:
		gre := &gplayers.GRE{Protocol: layers.EthernetTypeERSPAN3, SeqPresent: true, Seq: 1}
		return greTunnel(gre, &layers.ERSPAN3{Version: 2, SessionID: 7, HWID: 1, FT: 2}, ip)
	}
	return nil, fmt.Errorf("unknown tunnel %d", w.Tunnel)
}

// ipOfFrame returns the IP packet of an Ethernet frame and its EtherType,
// or nil.
func ipOfFrame(frame []byte) ([]byte, uint16) {
	off := 12
	for len(frame) >= off+2 {
		et := binary.BigEndian.Uint16(frame[off:])
		switch et {
		case 0x8100, 0x88A8, 0x9100:
			off += 4
			continue
		case 0x0800, 0x86DD:
			return frame[off+2:], et
		}
		return nil, 0
	}
	return nil, 0
}

// geneve returns a Geneve header with one 8-byte option (class 0x0103,
// type 1) for protocol proto, then inner.
func geneve(proto uint16, inner []byte) []byte {
	h := []byte{0x02, 0, 0, 0, 0, 0, 0, 0} // version 0, options 2 words
	binary.BigEndian.PutUint16(h[2:], proto)
	binary.BigEndian.PutUint32(h[4:], TunnelVNIGeneve<<8)
	h = append(h, 0x01, 0x03, 0x01, 0x01, 0xAA, 0xBB, 0xCC, 0xDD) // class, type, length 1 word, data
	return append(h, inner...)
}

// udpTunnel sends body in UDP to port (def when 0) between the mirror hosts
// 10.0.0.250 and 10.0.0.251.
func udpTunnel(body []byte, port, def uint16) ([]byte, error) {
	if port == 0 {
		port = def
	}
	src, dst := Host(250), Host(251)
	ip := &gplayers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: gplayers.IPProtocolUDP,
		SrcIP: src.IP.AsSlice(), DstIP: dst.IP.AsSlice()}
	udp := &gplayers.UDP{SrcPort: 50001, DstPort: gplayers.UDPPort(port)}
	_ = udp.SetNetworkLayerForChecksum(ip)
	ls := append(ethernetLayers(src.MAC, dst.MAC, nil, false, gplayers.EthernetTypeIPv4), ip, udp, gopacket.Payload(body))
	return serialize(ls, "UDP tunnel")
}

// greTunnel sends hdr (may be nil) and inner in gre between the mirror hosts.
func greTunnel(gre *gplayers.GRE, hdr gopacket.SerializableLayer, inner []byte) ([]byte, error) {
	src, dst := Host(250), Host(251)
	ip := &gplayers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: gplayers.IPProtocolGRE,
		SrcIP: src.IP.AsSlice(), DstIP: dst.IP.AsSlice()}
	ls := append(ethernetLayers(src.MAC, dst.MAC, nil, false, gplayers.EthernetTypeIPv4), ip, gre)
	if hdr != nil {
		ls = append(ls, hdr)
	}
	return serialize(append(ls, gopacket.Payload(inner)), "GRE tunnel")
}

func serialize(ls []gopacket.SerializableLayer, what string) ([]byte, error) {
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		return nil, fmt.Errorf("serializing %s: %w", what, err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// mplsInsert puts two MPLS labels between the Ethernet header (and tags)
// and the IP packet of frame, which becomes EtherType 0x8847. A frame
// without an IP packet is returned as it is.
func mplsInsert(frame []byte) []byte {
	ip, _ := ipOfFrame(frame)
	if ip == nil {
		return frame
	}
	off := len(frame) - len(ip) // after the EtherType
	out := append([]byte(nil), frame[:off]...)
	binary.BigEndian.PutUint16(out[off-2:], 0x8847)
	out = binary.BigEndian.AppendUint32(out, TunnelMPLSTop<<12|64)       // TC 0, S 0, TTL 64
	out = binary.BigEndian.AppendUint32(out, TunnelMPLSBot<<12|0x100|64) // S 1: bottom of stack
	return append(out, ip...)
}

// FrameV1 returns r as a RoCEv1 frame: Ethernet (EtherType 0x8915, w's
// VLAN tags), a GRH whose GIDs are r's addresses as IPv6 (IPv4 ones
// mapped, ::ffff:a.b.c.d), TClass DSCP|ECN, HopLmt r.TTL (0: 64), the BTH
// and what follows it, and the RoCEv1 ICRC. w.Tunnel and w.ERSPAN apply as
// for RoCEv2 frames (an IP tunnel leaves it unwrapped).
func (r *RoCE) FrameV1(w Wrap) ([]byte, error) {
	bth, err := r.transportBytes()
	if err != nil {
		return nil, err
	}
	ttl := r.TTL
	if ttl == 0 {
		ttl = 64
	}
	grh := &layers.GRH{IPVer: 6, TClass: r.DSCP<<2 | r.ECN&3, NxtHdr: 0x1B, HopLmt: ttl,
		SGID: as6(r.Src), DGID: as6(r.Dst)}
	ls := append(ethernetLayers(r.Src.MAC, r.Dst.MAC, w.VLANs, w.QinQ, layers.EthernetTypeRoCEv1), grh, gopacket.Payload(bth))
	frame, err := serialize(ls, "RoCEv1 frame")
	if err != nil {
		return nil, err
	}
	grhOff := 14 + 4*len(w.VLANs)
	crc, ok := decode.ComputeICRCv1(frame[grhOff:])
	if !ok {
		return nil, fmt.Errorf("computing RoCEv1 ICRC: frame too short")
	}
	if r.CorruptICRC {
		crc ^= 1
	}
	binary.LittleEndian.PutUint32(frame[len(frame)-decode.ICRCLen:], crc)
	if w.ERSPAN != 0 {
		if frame, err = mirror(frame, w); err != nil {
			return nil, err
		}
	}
	return tunnel(frame, w)
}

// as6 returns e's address as IPv6 (an IPv4 one mapped).
func as6(e Endpoint) netip.Addr { return netip.AddrFrom16(e.IP.As16()) }

// AddRoCEv1 appends r as a RoCEv1 frame (FrameV1) at ts.
func (c *Capture) AddRoCEv1(ts int64, r *RoCE, w Wrap) {
	b, err := r.FrameV1(w)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return
	}
	c.Add(ts, b)
}
