package layers

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Seeds and checks of the differential test for the overlays (VXLAN,
// Geneve, GRE carrying IP, MPLS, ERSPAN III frame type 2), RoCEv1 and the
// raw-IP link types. The frames are built here by hand from
// layersPacketRCWriteOnly (Ethernet 14, IPv4 20, UDP 8, then the BTH).

// overlayOuter returns an Ethernet/IPv4 header (protocol proto) for a
// payload of n bytes, between 10.0.0.250 and 10.0.0.251.
func overlayOuter(proto uint8, n int) []byte {
	b := []byte{2, 0, 0, 0, 0, 251, 2, 0, 0, 0, 0, 250, 0x08, 0x00,
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, 250, 10, 0, 0, 251}
	binary.BigEndian.PutUint16(b[16:], uint16(20+n))
	return b
}

// overlayUDP wraps body in UDP to port.
func overlayUDP(port uint16, body []byte) []byte {
	u := make([]byte, 8, 8+len(body))
	binary.BigEndian.PutUint16(u[0:], 50001)
	binary.BigEndian.PutUint16(u[2:], port)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(body)))
	u = append(u, body...)
	return append(overlayOuter(17, len(u)), u...)
}

// overlaySeeds returns the RC WRITE Only frame in every overlay, as
// RoCEv1, and its IP packet for the raw-IP link types (link indexes of
// diffLinks).
func overlaySeeds() (links []uint8, frames [][]byte) {
	eth := layersPacketRCWriteOnly
	ip := eth[14:]
	add := func(link uint8, f []byte) { links, frames = append(links, link), append(frames, f) }
	vx := append([]byte{0x08, 0, 0, 0, 0, 0x12, 0x34, 0}, eth...)
	add(0, overlayUDP(4789, vx))
	gen := append([]byte{0x02, 0, 0x65, 0x58, 0, 0x56, 0x78, 0, 1, 3, 1, 1, 0xAA, 0xBB, 0xCC, 0xDD}, eth...)
	add(0, overlayUDP(6081, gen))
	genIP := append([]byte{0x00, 0, 0x08, 0x00, 0, 0x56, 0x78, 0}, ip...)
	add(0, overlayUDP(6081, genIP))
	gre := append([]byte{0, 0, 0x08, 0x00}, ip...)
	add(0, append(overlayOuter(47, len(gre)), gre...))
	// GRE with a sequence number, ERSPAN III version 2, session 7, FT 2.
	e3 := append([]byte{0x10, 0, 0x22, 0xEB, 0, 0, 0, 1, 0x20, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0x08, 0x10}, ip...)
	add(0, append(overlayOuter(47, len(e3)), e3...))
	// Two MPLS labels (the second the bottom one) before the IP header.
	mpls := append(bytes.Clone(eth[:12]), 0x88, 0x47, 0, 0x06, 0x40, 64, 0, 0x0C, 0x81, 64)
	add(0, append(mpls, ip...))
	add(3, bytes.Clone(ip)) // LINKTYPE_RAW
	add(4, bytes.Clone(ip)) // LINKTYPE_IPV4
	// RoCEv1: the WRITE Only's BTH and what follows, after a GRH.
	bth := ip[28:]
	v1 := append(bytes.Clone(eth[:12]), 0x89, 0x15, 0x60, 0, 0, 0, 0, 0, 0x1B, 64)
	binary.BigEndian.PutUint16(v1[18:], uint16(len(bth)))
	v1 = append(v1, bytes.Repeat([]byte{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 1)...)
	v1 = append(v1, bytes.Repeat([]byte{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 1)...)
	add(0, append(v1, bth...))
	return links, frames
}

// TestOverlaysMatchDecoder: on every overlay seed the layers and the
// decoder find the same datagram and agree on its headers.
func TestOverlaysMatchDecoder(t *testing.T) {
	links, frames := overlaySeeds()
	d := decode.NewDecoder(decode.Config{})
	for i, frame := range frames {
		l := diffLinks[links[i]]
		var p decode.Packet
		d.Decode(frame, l.link, len(frame), &p)
		gp := gopacket.NewPacket(frame, l.first, gopacket.Default)
		if !p.HasBTH || p.Malformed {
			t.Errorf("seed %d: decoder found no BTH (kind %v, malformed %v %s)", i, p.Kind, p.Malformed, p.Problem)
			continue
		}
		if !diffCompare(t, &p, gp) {
			t.Errorf("seed %d (%v): layers and decoder did not compare the same datagram:\n%v", i, p.Encap, gp)
		}
	}
}

// diffSameGRH reports whether gopacket found the RoCEv1 GRH the fast path
// decoded (same GIDs).
func diffSameGRH(p *decode.Packet, gp gopacket.Packet) bool {
	g, _ := gp.Layer(LayerTypeGRH).(*GRH)
	return g != nil && p.IsRoCEv1() && g.SGID == p.SrcIP && g.DGID == p.DstIP
}

// overlayDiffLinks are the raw-IP link types of the differential test.
var overlayDiffLinks = []struct {
	link  pcapio.LinkType
	first gopacket.Decoder
}{
	{pcapio.LinkTypeRaw, gplayers.LinkTypeRaw},
	{pcapio.LinkTypeIPv4, gplayers.LayerTypeIPv4},
	{pcapio.LinkTypeIPv6, gplayers.LayerTypeIPv6},
}
