package layers

import (
	"reflect"
	"testing"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"
)

// layersFeedback records SetTruncated.
type layersFeedback struct{ truncated bool }

func (f *layersFeedback) SetTruncated() { f.truncated = true }

// layersUDPPayload returns the UDP payload (the BTH onwards) of a fixture.
func layersUDPPayload(t *testing.T, frame []byte) []byte {
	t.Helper()
	p := gopacket.NewPacket(frame, gplayers.LayerTypeEthernet, layersDecodeOptions)
	udp, ok := p.Layer(gplayers.LayerTypeUDP).(*gplayers.UDP)
	if !ok {
		t.Fatalf("fixture has no UDP layer")
	}
	return udp.Payload
}

// TestLayersTruncatedPrefixes cuts every fixture at every length and decodes
// it through gopacket.NewPacket (panics let through) and a
// DecodingLayerParser: each cut must be reported as truncated or as an error,
// and none may panic. Exceptions, each explained below: a cut at the end of
// the link-layer header, cuts in Ethernet padding (minDetect), and cuts in
// gopacket's GRE header (greFrom..greTo), which run with recovery on.
func TestLayersTruncatedPrefixes(t *testing.T) {
	var (
		eth     gplayers.Ethernet
		ip4     gplayers.IPv4
		ip6     gplayers.IPv6
		udp     gplayers.UDP
		gre     gplayers.GRE
		bth     BTH
		ext     ExtLayers
		mac     MACControl
		erspan  ERSPAN3
		sll2    SLL2
		payload gopacket.Payload
	)
	bth.Link(&ext)
	dls := append([]gopacket.DecodingLayer{&eth, &ip4, &ip6, &udp, &gre, &bth, &mac, &erspan, &sll2, &payload}, ext.DecodingLayers()...)
	var decoded []gopacket.LayerType
	for _, c := range layersCases() {
		first := c.decoder().(gopacket.LayerType)
		dlp := gopacket.NewDecodingLayerParser(first, dls...)
		dlp.IgnorePanic = true // let panics fail the test
		dlp.IgnoreUnsupported = true
		minDetect := c.minDetect
		if minDetect == 0 {
			minDetect = len(c.data)
		}
		// A frame cut right after its link-layer header is a frame with an
		// empty payload: gopacket's Ethernet (and SLL2, to match) decode it
		// without complaint, and there is nothing to tell it from one.
		linkLen := 14
		if first == LayerTypeSLL2 {
			linkLen = SLL2Len
		}
		for n := range len(c.data) {
			if n == linkLen {
				continue
			}
			cut := append([]byte(nil), c.data[:n]...) // exact capacity: no reads past the cut
			opts := layersDecodeOptions
			inGRE := n >= c.greFrom && n <= c.greTo && c.greTo > 0
			if inGRE {
				opts.SkipDecodeRecovery = false
			}
			p := gopacket.NewPacket(cut, first, opts)
			if n < minDetect && p.ErrorLayer() == nil && !p.Metadata().Truncated {
				t.Errorf("%s cut at %d: NewPacket reports neither error nor truncation; layers %v", c.name, n, layersStack(p))
			}
			if inGRE {
				continue
			}
			err := dlp.DecodeLayers(cut, &decoded)
			if n < minDetect && err == nil && !dlp.Truncated {
				t.Errorf("%s cut at %d: parser reports neither error nor truncation; layers %v", c.name, n, decoded)
			}
		}
	}
}

// layersHeaderCase is one header's exact bytes, for DecodeFromBytes.
type layersHeaderCase struct {
	name  string
	layer func() gopacket.DecodingLayer
	data  []byte
}

func layersHeaderCases(t *testing.T) []layersHeaderCase {
	ackUDP := layersUDPPayload(t, layersPacketRCAck)
	return []layersHeaderCase{
		{"BTH ACK datagram", func() gopacket.DecodingLayer { return &BTH{} }, ackUDP},
		{"BTH CNP datagram", func() gopacket.DecodingLayer { return &BTH{} }, layersUDPPayload(t, layersPacketCNP)},
		{"BTH WRITE Only Imm datagram", func() gopacket.DecodingLayer { return &BTH{} }, layersUDPPayload(t, layersPacketRCWriteOnlyImm)},
		{"BTH ATOMIC ACK datagram", func() gopacket.DecodingLayer { return &BTH{} }, layersUDPPayload(t, layersPacketRCAtomicAck)},
		{"RETH", func() gopacket.DecodingLayer { return &RETH{} }, layersPacketRCReadRequest[54:70]},
		{"AETH", func() gopacket.DecodingLayer { return &AETH{} }, ackUDP[12:16]},
		{"AtomicETH", func() gopacket.DecodingLayer { return &AtomicETH{} }, layersPacketRCFetchAdd[54:82]},
		{"AtomicAckETH", func() gopacket.DecodingLayer { return &AtomicAckETH{} }, layersPacketRCAtomicAck[58:66]},
		{"DETH", func() gopacket.DecodingLayer { return &DETH{} }, layersPacketUDSendOnly[54:62]},
		{"ImmDt", func() gopacket.DecodingLayer { return &ImmDt{} }, layersPacketRCSendOnlyImm[54:58]},
		{"IETH", func() gopacket.DecodingLayer { return &IETH{} }, []byte{0x0b, 0xad, 0xf0, 0x0d}},
		{"XRCETH", func() gopacket.DecodingLayer { return &XRCETH{} }, []byte{0x00, 0x12, 0x34, 0x56}},
		{"CNP", func() gopacket.DecodingLayer { return &CNP{} }, layersPacketCNP[54:70]},
		{"MACControl PFC", func() gopacket.DecodingLayer { return &MACControl{} }, layersFramePFCClass3[14 : 14+macControlPFCLen]},
		{"MACControl PAUSE", func() gopacket.DecodingLayer { return &MACControl{} }, layersFramePause[14 : 14+macControlPauseLen]},
		{"SLL2", func() gopacket.DecodingLayer { return &SLL2{} }, layersPacketSLL2[:SLL2Len]},
		{"ERSPAN III", func() gopacket.DecodingLayer { return &ERSPAN3{} }, layersPacketERSPAN3[42:54]},
		{"ERSPAN III platform", func() gopacket.DecodingLayer { return &ERSPAN3{} }, layersPacketERSPAN3Platform[42:62]},
	}
}

// TestLayersDecodeFromBytesPrefixes feeds every layer every prefix of its
// own header: each must fail, call SetTruncated, and not panic; the whole
// header must decode.
func TestLayersDecodeFromBytesPrefixes(t *testing.T) {
	for _, c := range layersHeaderCases(t) {
		for n := 0; n <= len(c.data); n++ {
			cut := append([]byte(nil), c.data[:n]...)
			var df layersFeedback
			err := c.layer().DecodeFromBytes(cut, &df)
			switch {
			case n == len(c.data) && err != nil:
				t.Errorf("%s: whole header: %v", c.name, err)
			case n < len(c.data) && (err == nil || !df.truncated):
				t.Errorf("%s cut at %d: err %v, truncated %v", c.name, n, err, df.truncated)
			}
		}
	}
}

// TestLayersNoPanicAnywhere feeds every layer every window of every
// fixture: arbitrary bytes must give an error or a decode, never a panic.
func TestLayersNoPanicAnywhere(t *testing.T) {
	ls := []gopacket.DecodingLayer{&BTH{}, &RETH{}, &AETH{}, &AtomicETH{}, &AtomicAckETH{}, &DETH{}, &ImmDt{},
		&IETH{}, &XRCETH{}, &CNP{}, &MACControl{}, &SLL2{}, &ERSPAN3{}}
	var df layersFeedback
	for _, c := range layersCases() {
		for off := range len(c.data) {
			for n := 0; n <= 40 && off+n <= len(c.data); n++ {
				w := append([]byte(nil), c.data[off:off+n]...)
				for _, l := range ls {
					_ = l.DecodeFromBytes(w, &df)
					_ = l.NextLayerType()
				}
			}
		}
	}
}

// TestLayersBTHMalformedPad: a pad count larger than the payload is an
// error, not a truncation.
func TestLayersBTHMalformedPad(t *testing.T) {
	d := append([]byte(nil), layersUDPPayload(t, layersPacketRCAck)...)
	d[1] |= 0x30 // pad 3, but an ACK has no payload
	var df layersFeedback
	if err := (&BTH{}).DecodeFromBytes(d, &df); err == nil || df.truncated {
		t.Errorf("err %v truncated %v, want an error without truncation", err, df.truncated)
	}
}

// TestLayersBTHAfterTruncation: once UDP has found the capture cut short,
// BTH keeps everything after its header as payload and claims no ICRC.
func TestLayersBTHAfterTruncation(t *testing.T) {
	cut := layersPacketRCReadResponseOnly[:80]
	p := gopacket.NewPacket(cut, gplayers.LayerTypeEthernet, layersDecodeOptions)
	if !p.Metadata().Truncated {
		t.Fatal("not reported truncated")
	}
	b := p.Layer(LayerTypeBTH).(*BTH)
	if b.HasICRC || b.ICRC != 0 {
		t.Errorf("HasICRC %v ICRC %#x on a cut datagram", b.HasICRC, b.ICRC)
	}
	pl := p.Layer(gopacket.LayerTypePayload)
	if pl == nil || len(pl.LayerContents()) != 80-58 {
		t.Errorf("payload layer %v, want the %d captured bytes", pl, 80-58)
	}
}

// TestLayersReuse decodes A then B into one layer and compares with a fresh
// decode of B.
func TestLayersReuse(t *testing.T) {
	udp := func(f []byte) []byte { return layersUDPPayload(t, f) }
	pairs := []struct {
		name  string
		layer func() gopacket.DecodingLayer
		a, b  []byte
	}{
		{"BTH payload then ACK", func() gopacket.DecodingLayer { return &BTH{} }, udp(layersPacketRCReadResponseOnly), udp(layersPacketRCAck)},
		{"BTH imm then CNP", func() gopacket.DecodingLayer { return &BTH{} }, udp(layersPacketRCSendOnlyImm), udp(layersPacketCNP)},
		{"RETH", func() gopacket.DecodingLayer { return &RETH{} }, layersPacketRCReadRequest[54:], layersPacketRCWriteOnly[54:]},
		{"AETH", func() gopacket.DecodingLayer { return &AETH{} }, []byte{0x60, 1, 2, 3}, udp(layersPacketRCAck)[12:]},
		{"AtomicETH", func() gopacket.DecodingLayer { return &AtomicETH{} }, layersPacketRCAtomicAck[42:], layersPacketRCFetchAdd[54:]},
		{"DETH", func() gopacket.DecodingLayer { return &DETH{} }, layersPacketRCAtomicAck[42:], layersPacketUDSendOnly[54:]},
		{"CNP", func() gopacket.DecodingLayer { return &CNP{} }, layersPacketUDSendOnly[62:], layersPacketCNP[54:]},
		{"MACControl PFC then PAUSE", func() gopacket.DecodingLayer { return &MACControl{} }, layersFramePFCClass3[14:], layersFramePause[14:]},
		{"MACControl raw then PFC", func() gopacket.DecodingLayer { return &MACControl{} }, []byte{0x00, 0x02, 1, 2, 3}, layersFramePFCClass3[14:]},
		{"MACControl PFC then raw", func() gopacket.DecodingLayer { return &MACControl{} }, layersFramePFCClass3[14:], []byte{0x00, 0x02, 1, 2, 3}},
		{"ERSPAN III platform then plain", func() gopacket.DecodingLayer { return &ERSPAN3{} }, layersPacketERSPAN3Platform[42:], layersPacketERSPAN3[42:]},
		{"SLL2 address then none", func() gopacket.DecodingLayer { return &SLL2{} }, layersPacketSLL2, append([]byte{0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}, make([]byte, 8)...)},
	}
	for _, c := range pairs {
		var df layersFeedback
		reused := c.layer()
		if err := reused.DecodeFromBytes(c.a, &df); err != nil {
			t.Fatalf("%s: A: %v", c.name, err)
		}
		if err := reused.DecodeFromBytes(c.b, &df); err != nil {
			t.Fatalf("%s: B: %v", c.name, err)
		}
		fresh := c.layer()
		if err := fresh.DecodeFromBytes(c.b, &df); err != nil {
			t.Fatalf("%s: fresh B: %v", c.name, err)
		}
		if !reflect.DeepEqual(reused, fresh) {
			t.Errorf("%s: reused\n %#v\nfresh\n %#v", c.name, reused, fresh)
		}
	}
}
