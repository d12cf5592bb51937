package layers

import (
	"bytes"
	"testing"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// The differential test: the gopacket layers of this package and the fast
// path of package decode read the same headers from the same bytes, so
// wherever both decode a header every field must agree.

// diffLinks are the link types the fuzz input's first argument picks from,
// with the gopacket decoder for each.
var diffLinks = []struct {
	link  pcapio.LinkType
	first gopacket.Decoder
}{
	{pcapio.LinkTypeEthernet, gplayers.LayerTypeEthernet},
	{pcapio.LinkTypeLinuxSLL, gplayers.LayerTypeLinuxSLL},
	{pcapio.LinkTypeLinuxSLL2, LayerTypeSLL2},
	// Appended (diff_overlay_test.go): indexes 3, 4, 5.
	overlayDiffLinks[0], overlayDiffLinks[1], overlayDiffLinks[2],
}

// diffSeeds returns the frames of the layer tests, each with its link
// index, plus the RC SEND Only frame under every BTH opcode (so that every
// extended header chain is seeded, its bytes made of what follows).
func diffSeeds() (links []uint8, frames [][]byte) {
	for _, c := range layersCases() {
		link := uint8(0)
		if c.first == LayerTypeSLL2 {
			link = 2
		}
		links, frames = append(links, link), append(frames, c.data)
	}
	for _, f := range [][]byte{layersPacketRCReadRequest, layersPacketRCReadResponseOnly, layersPacketRCWriteOnly,
		layersPacketUDSendOnly, layersPacketRCFetchAdd, layersPacketRCAtomicAck, layersPacketRCWriteOnlyImm,
		layersPacketRCSendOnlyImm, layersPacketCNP, layersFramePFCClass3, layersFramePause} {
		links, frames = append(links, 0), append(frames, f)
	}
	ol, of := overlaySeeds()
	links, frames = append(links, ol...), append(frames, of...)
	long := append(append([]byte(nil), layersPacketRCWriteOnly...), make([]byte, 40)...)
	for op := range 256 {
		f := bytes.Clone(layersPacketRCWriteOnly)
		f[42] = byte(op) // BTH opcode: Ethernet 14 + IPv4 20 + UDP 8
		links, frames = append(links, 0), append(frames, f)
		g := bytes.Clone(long)
		g[42] = byte(op)
		links, frames = append(links, 0), append(frames, g)
	}
	return links, frames
}

// FuzzLayersMatchDecoder decodes arbitrary bytes with gopacket.NewPacket
// (this package's layers) and with decode.Decoder, and wherever both decode
// a header, checks that every field of BTH, RETH, AETH, DETH, AtomicETH,
// AtomicAckETH, ImmDt, IETH, XRCETH, the CNP and MAC Control (PFC, PAUSE)
// agrees, as do the ICRC and the set of extended headers.
func FuzzLayersMatchDecoder(f *testing.F) {
	links, frames := diffSeeds()
	for i := range frames {
		f.Add(links[i], frames[i])
	}
	d := decode.NewDecoder(decode.Config{})
	f.Fuzz(func(t *testing.T, link uint8, frame []byte) {
		l := diffLinks[int(link)%len(diffLinks)]
		var p decode.Packet
		d.Decode(frame, l.link, len(frame), &p)
		gp := gopacket.NewPacket(frame, l.first, gopacket.Default)
		diffCompare(t, &p, gp)
	})
}

// TestLayersMatchDecoderSeeds runs the differential check over the seeds
// and requires that the seeds reach every header, so that the fuzz test
// compares something.
func TestLayersMatchDecoderSeeds(t *testing.T) {
	links, frames := diffSeeds()
	d := decode.NewDecoder(decode.Config{})
	var seen decode.Ext
	pfc, pause := false, false
	for i, frame := range frames {
		l := diffLinks[links[i]]
		var p decode.Packet
		d.Decode(frame, l.link, len(frame), &p)
		gp := gopacket.NewPacket(frame, l.first, gopacket.Default)
		if diffCompare(t, &p, gp) {
			seen |= p.Ext
		}
		pfc = pfc || p.Kind == decode.KindPFC
		pause = pause || p.Kind == decode.KindPause
	}
	all := decode.ExtXRCETH | decode.ExtDETH | decode.ExtRETH | decode.ExtAETH | decode.ExtAtomicETH |
		decode.ExtAtomicAckETH | decode.ExtImmDt | decode.ExtIETH | decode.ExtCNP
	if seen != all || !pfc || !pause {
		t.Errorf("the seeds compare headers %v of %v (PFC %v, PAUSE %v)", seen, all, pfc, pause)
	}
}

// diffCompare reports field differences between the fast path's p and the
// layers of gp, and whether the two decoded the same RoCE datagram (and so
// compared its headers).
func diffCompare(t *testing.T, p *decode.Packet, gp gopacket.Packet) bool {
	t.Helper()
	diffMACControl(t, p, gp)
	bth, _ := gp.Layer(LayerTypeBTH).(*BTH)
	if bth == nil || !p.HasBTH || !(diffSameDatagram(p, gp) || diffSameGRH(p, gp)) {
		return false
	}
	if bth.BTHFields != p.BTH {
		t.Errorf("BTH: layers %+v, decoder %+v", bth.BTHFields, p.BTH)
	}
	if bth.HasICRC && p.ICRCStatus != decode.ICRCUnchecked && bth.ICRC != p.ICRC {
		t.Errorf("ICRC: layers %#x, decoder %#x", bth.ICRC, p.ICRC)
	}
	var ext decode.Ext
	for _, gl := range gp.Layers() {
		h, ok := diffExt(t, p, gl)
		if !ok {
			continue
		}
		ext |= h
		if p.Ext&h == 0 {
			t.Errorf("%v decoded by the layers, not by the decoder (decoder has %v)", gl.LayerType(), p.Ext)
		}
	}
	if p.Ext&^ext != 0 && gp.ErrorLayer() == nil {
		t.Errorf("decoder has headers %v, the layers %v without an error", p.Ext, ext)
	}
	return true
}

// diffExt compares one extended header layer with p and returns its Ext bit.
func diffExt(t *testing.T, p *decode.Packet, gl gopacket.Layer) (decode.Ext, bool) {
	t.Helper()
	check := func(name string, got, want any) {
		if got != want {
			t.Errorf("%s: layers %+v, decoder %+v", name, got, want)
		}
	}
	switch l := gl.(type) {
	case *XRCETH:
		check("XRCETH", l.XRCETHFields, p.XRCETHFields)
		return decode.ExtXRCETH, true
	case *DETH:
		check("DETH", l.DETHFields, p.DETH)
		return decode.ExtDETH, true
	case *RETH:
		check("RETH", l.RETHFields, p.RETH)
		return decode.ExtRETH, true
	case *AETH:
		check("AETH", l.AETHFields, p.AETH)
		return decode.ExtAETH, true
	case *AtomicETH:
		check("AtomicETH", l.AtomicETHFields, p.AtomicETH)
		return decode.ExtAtomicETH, true
	case *AtomicAckETH:
		check("AtomicAckETH", l.AtomicAckETHFields, p.AtomicAckETHFields)
		return decode.ExtAtomicAckETH, true
	case *ImmDt:
		check("ImmDt", l.ImmDtFields, p.ImmDtFields)
		return decode.ExtImmDt, true
	case *IETH:
		check("IETH", l.IETHFields, p.IETHFields)
		return decode.ExtIETH, true
	case *CNP:
		if p.Kind != decode.KindCNP {
			t.Errorf("CNP layer on a frame of kind %v", p.Kind)
		}
		return decode.ExtCNP, true
	}
	return 0, false
}

// diffSameDatagram reports whether gopacket found the UDP datagram the fast
// path decoded: same innermost IP addresses, ports and UDP length. The two
// part ways where gopacket reads the GRE payload otherwise (ERSPAN type I,
// which gopacket v1.1.19 decodes as type II, and GRE routing fields, which
// the decoder does not skip); there they read different bytes.
func diffSameDatagram(p *decode.Packet, gp gopacket.Packet) bool {
	if p.Encap == decode.EncapERSPAN1 || !p.HasUDP {
		return false
	}
	var udp *gplayers.UDP
	var src, dst []byte
	for _, l := range gp.Layers() {
		switch v := l.(type) {
		case *gplayers.IPv4:
			src, dst = v.SrcIP, v.DstIP
		case *gplayers.IPv6:
			src, dst = v.SrcIP, v.DstIP
		case *gplayers.UDP:
			udp = v
		}
	}
	return udp != nil && uint16(udp.SrcPort) == p.SrcPort && uint16(udp.DstPort) == p.DstPort &&
		udp.Length == p.UDPLen && bytes.Equal(src, p.SrcIP.AsSlice()) && bytes.Equal(dst, p.DstIP.AsSlice())
}

// diffMACControl compares a MAC Control layer with the fast path's PFC or
// PAUSE fields, when both decoded the frame (from the same source MAC).
func diffMACControl(t *testing.T, p *decode.Packet, gp gopacket.Packet) {
	t.Helper()
	m, _ := gp.Layer(LayerTypeMACControl).(*MACControl)
	if m == nil || p.Encap == decode.EncapERSPAN1 {
		return
	}
	var eth *gplayers.Ethernet // the innermost, which the decoder describes
	for _, l := range gp.Layers() {
		if e, ok := l.(*gplayers.Ethernet); ok {
			eth = e
		}
	}
	if eth != nil && !bytes.Equal(eth.SrcMAC, p.SrcMAC[:]) {
		return // not the same Ethernet frame (a mirror gopacket reads otherwise)
	}
	switch {
	case p.Kind == decode.KindPFC && m.Opcode == MACControlOpcodePFC,
		p.Kind == decode.KindPause && m.Opcode == MACControlOpcodePause:
		if m.MACControlFields != p.MACControlFields {
			t.Errorf("MAC Control %v: layers %+v, decoder %+v", m.Opcode, m.MACControlFields, p.MACControlFields)
		}
	case p.Kind == decode.KindPFC || p.Kind == decode.KindPause:
		t.Errorf("decoder kind %v, MAC Control layer opcode %v", p.Kind, m.Opcode)
	}
}
