package layers

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net"
	"reflect"
	"testing"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// layersExtChain builds the extended headers of e in wire order, with
// distinct field values and the Next sets decodeBTH will give them.
func layersExtChain(e decode.Ext, seed uint32) []gopacket.SerializableLayer {
	var out []gopacket.SerializableLayer
	remaining := e
	for _, h := range extChain {
		if remaining&h == 0 {
			continue
		}
		remaining &^= h
		switch h {
		case decode.ExtXRCETH:
			out = append(out, &XRCETH{XRCETHFields: decode.XRCETHFields{XRCSRQ: 0x123456 ^ seed&0xFFFFFF}, Resv8: 0, Next: remaining})
		case decode.ExtDETH:
			out = append(out, &DETH{DETHFields: decode.DETHFields{QKey: 0x11111111 ^ seed, SrcQP: 0xABCDE}, Next: remaining})
		case decode.ExtRETH:
			out = append(out, &RETH{RETHFields: decode.RETHFields{VA: 0x1122334455667788 ^ uint64(seed), RKey: 0x99AABBCC, DMALen: 4096 + seed}, Next: remaining})
		case decode.ExtAETH:
			out = append(out, &AETH{AETHFields: decode.AETHFields{Syndrome: decode.Syndrome(seed & 0x7F), MSN: 0xFEDCBA ^ seed&0xFFFF}, Next: remaining})
		case decode.ExtAtomicETH:
			out = append(out, &AtomicETH{AtomicETHFields: decode.AtomicETHFields{VA: 0xA1A2A3A4A5A6A7A8, RKey: 0xB1B2B3B4, SwapAdd: uint64(seed) << 32, Compare: 0xC1C2C3C4C5C6C7C8}, Next: remaining})
		case decode.ExtAtomicAckETH:
			out = append(out, &AtomicAckETH{AtomicAckETHFields: decode.AtomicAckETHFields{AtomicAckOrig: 0xD1D2D3D4D5D6D7D8 ^ uint64(seed)}, Next: remaining})
		case decode.ExtImmDt:
			out = append(out, &ImmDt{ImmDtFields: decode.ImmDtFields{Imm: 0xCAFEBABE ^ seed}, Next: remaining})
		case decode.ExtIETH:
			out = append(out, &IETH{IETHFields: decode.IETHFields{IETHRKey: 0x0BADF00D ^ seed}, Next: remaining})
		case decode.ExtCNP:
			out = append(out, &CNP{Next: remaining})
		}
	}
	return out
}

// layersRoCEFrame serializes Ethernet/IP/UDP/BTH/ext/payload and fills in
// the ICRC with FinishRoCE. It returns the frame and the IP packet's end.
func layersRoCEFrame(t *testing.T, v6 bool, bth *BTH, ext []gopacket.SerializableLayer, payload []byte) ([]byte, int, int) {
	t.Helper()
	eth := &gplayers.Ethernet{
		SrcMAC: net.HardwareAddr{0x02, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0x02, 0, 0, 0, 0, 2},
		EthernetType: gplayers.EthernetTypeIPv4,
	}
	udp := &gplayers.UDP{SrcPort: gplayers.UDPPort(0xC000 + uint16(bth.Opcode)), DstPort: 4791}
	var ip gopacket.SerializableLayer
	udpOff := 14 + 20
	if v6 {
		eth.EthernetType = gplayers.EthernetTypeIPv6
		ip = &gplayers.IPv6{Version: 6, TrafficClass: 0x6a, FlowLabel: 0x12345, NextHeader: gplayers.IPProtocolUDP, HopLimit: 64,
			SrcIP: net.ParseIP("2001:db8::1"), DstIP: net.ParseIP("2001:db8::2")}
		udpOff = 14 + 40
	} else {
		ip = &gplayers.IPv4{Version: 4, IHL: 5, TOS: 0x6a, TTL: 64, Flags: gplayers.IPv4DontFragment, Protocol: gplayers.IPProtocolUDP,
			SrcIP: net.IPv4(192, 0, 2, 1).To4(), DstIP: net.IPv4(192, 0, 2, 2).To4()}
	}
	ls := []gopacket.SerializableLayer{eth, ip, udp, bth}
	ls = append(ls, ext...)
	ls = append(ls, gopacket.Payload(payload))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
		t.Fatalf("serialize: %v", err)
	}
	frame := buf.Bytes()
	ipEnd := udpOff + int(binary.BigEndian.Uint16(frame[udpOff+4:udpOff+6])) // UDP length; Ethernet padding may follow
	if !FinishRoCE(frame[:ipEnd], 14, udpOff) {
		t.Fatalf("FinishRoCE refused the frame")
	}
	return frame, udpOff, ipEnd
}

// TestLayersAllOpcodes builds a packet for every defined opcode over IPv4
// and IPv6, with payloads of 0-6 bytes (so every pad count occurs), and
// checks that decoding gives back the layers, payload, pad and a valid ICRC,
// and that re-serializing the decoded layers gives back the same bytes.
func TestLayersAllOpcodes(t *testing.T) {
	n := 0
	for op := range 256 {
		o := decode.Opcode(op)
		if !o.Defined() {
			continue
		}
		n++
		for _, v6 := range []bool{false, true} {
			plen := op % 7
			if o == decode.OpcodeCNP {
				plen = 0
			}
			payload := make([]byte, plen)
			for i := range payload {
				payload[i] = byte(0xA0 + i)
			}
			bth := &BTH{BTHFields: decode.BTHFields{Opcode: o, SE: op%2 == 0, MigReq: true, TVer: uint8(op) & 0x0F, PKey: 0x8001, FECN: op%3 == 0, BECN: op%5 == 0, DestQP: 0xABCDEF ^ uint32(op), AckReq: op%2 == 1, PSN: 0xFFFFFF - uint32(op)}}
			ext := layersExtChain(o.ExtHeaders(), uint32(op))
			frame, udpOff, ipEnd := layersRoCEFrame(t, v6, bth, ext, payload)

			p := gopacket.NewPacket(frame, gplayers.LayerTypeEthernet, layersDecodeOptions)
			if el := p.ErrorLayer(); el != nil {
				t.Fatalf("%v v6=%v: %v", o, v6, el.Error())
			}
			want := []gopacket.LayerType{gplayers.LayerTypeEthernet, gplayers.LayerTypeIPv4, gplayers.LayerTypeUDP, LayerTypeBTH}
			if v6 {
				want[1] = gplayers.LayerTypeIPv6
			}
			for _, l := range ext {
				want = append(want, l.LayerType())
			}
			if plen > 0 {
				want = append(want, gopacket.LayerTypePayload)
			}
			if got := layersStack(p); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v v6=%v: stack %v, want %v", o, v6, got, want)
			}

			got := p.Layer(LayerTypeBTH).(*BTH)
			wantBTH := *bth
			wantBTH.BaseLayer = gplayers.BaseLayer{}
			wantBTH.Ext = o.ExtHeaders()
			wantBTH.Pad = uint8(-plen & 3)
			wantBTH.ICRC = decode.StoredICRC(frame[:ipEnd])
			wantBTH.HasICRC = true
			if g := layersFields(got); !reflect.DeepEqual(g, &wantBTH) {
				t.Errorf("%v v6=%v: BTH\n got %#v\nwant %#v", o, v6, g, &wantBTH)
			}
			if bth.Pad != wantBTH.Pad {
				t.Errorf("%v: FixLengths set Pad %d, want %d", o, bth.Pad, wantBTH.Pad)
			}
			if c, ok := decode.ComputeICRC(frame[14:ipEnd], udpOff-14); !ok || c != got.ICRC {
				t.Errorf("%v v6=%v: ICRC stored %#x, computed %#x (%v)", o, v6, got.ICRC, c, ok)
			}
			if c := layersSpecICRC(frame[14:ipEnd], udpOff-14); c != got.ICRC {
				t.Errorf("%v v6=%v: ICRC stored %#x, naive spec ICRC %#x", o, v6, got.ICRC, c)
			}
			ours := layersOurs(p)[1:]
			for i, l := range ext {
				if g, w := ours[i], layersFields(l.(gopacket.Layer)); !reflect.DeepEqual(g, w) {
					t.Errorf("%v v6=%v: %v\n got %#v\nwant %#v", o, v6, l.LayerType(), g, w)
				}
			}
			if plen > 0 && !bytes.Equal(p.ApplicationLayer().Payload(), payload) {
				t.Errorf("%v v6=%v: payload % x, want % x", o, v6, p.ApplicationLayer().Payload(), payload)
			}
			if b := frame[ipEnd-decode.ICRCLen-int(wantBTH.Pad) : ipEnd-decode.ICRCLen]; !bytes.Equal(b, make([]byte, len(b))) {
				t.Errorf("%v: pad bytes % x not zero", o, b)
			}

			// Decoded layers serialize back to the same bytes.
			var ls []gopacket.SerializableLayer
			for _, l := range p.Layers() {
				ls = append(ls, l.(gopacket.SerializableLayer))
			}
			buf := gopacket.NewSerializeBuffer()
			if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, ls...); err != nil {
				t.Fatalf("%v: reserialize: %v", o, err)
			}
			if !bytes.Equal(buf.Bytes(), frame) {
				t.Errorf("%v v6=%v: reserialized\n % x\nwant\n % x", o, v6, buf.Bytes(), frame)
			}
		}
	}
	if n < 80 {
		t.Errorf("only %d defined opcodes", n)
	}
}

// TestLayersIsomorphicFixtures decodes every fixture and serializes the
// decoded layers again, without fixing lengths: the bytes must not change.
func TestLayersIsomorphicFixtures(t *testing.T) {
	for _, c := range layersCases() {
		p := gopacket.NewPacket(c.data, c.decoder(), layersDecodeOptions)
		var ls []gopacket.SerializableLayer
		for _, l := range p.Layers() {
			s, ok := l.(gopacket.SerializableLayer)
			if !ok {
				t.Fatalf("%s: %v is not serializable", c.name, l.LayerType())
			}
			ls = append(ls, s)
		}
		// MACControl keeps the frame padding as its payload; put it back.
		if m, ok := p.Layer(LayerTypeMACControl).(*MACControl); ok {
			ls = append(ls, gopacket.Payload(m.Payload))
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, ls...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(buf.Bytes(), c.data) {
			t.Errorf("%s: reserialized\n % x\nwant\n % x", c.name, buf.Bytes(), c.data)
		}
	}
}

// TestLayersSerializeDecode serializes each layer on its own, with fields
// that fill every bit, and decodes it back.
func TestLayersSerializeDecode(t *testing.T) {
	cases := []struct {
		name    string
		layer   gopacket.SerializableLayer
		fresh   func() gopacket.DecodingLayer
		fix     bool
		wantLen int
	}{
		{"BTH all ones", &BTH{BTHFields: decode.BTHFields{Opcode: 0xFF, SE: true, MigReq: true, Pad: 3, TVer: 0xF, PKey: 0xFFFF, FECN: true, BECN: true, DestQP: 0xFFFFFF, AckReq: true, PSN: 0xFFFFFF}, Resv6: 0x3F, Resv7: 0x7F, ICRC: 0xFFFFFFFF, HasICRC: true}, func() gopacket.DecodingLayer { return &BTH{} }, false, 12 + 3 + 4 + 1},
		{"BTH zero", &BTH{HasICRC: true}, func() gopacket.DecodingLayer { return &BTH{} }, true, 12 + 3 + 4 + 1},
		{"RETH", &RETH{RETHFields: decode.RETHFields{VA: 0xFFFFFFFFFFFFFFFF, RKey: 0x01020304, DMALen: 0xFFFFFFFF}}, func() gopacket.DecodingLayer { return &RETH{} }, false, 17},
		{"AETH", &AETH{AETHFields: decode.AETHFields{Syndrome: 0x7F, MSN: 0xFFFFFF}}, func() gopacket.DecodingLayer { return &AETH{} }, false, 5},
		{"AtomicETH", &AtomicETH{AtomicETHFields: decode.AtomicETHFields{VA: 1, RKey: 2, SwapAdd: 3, Compare: 0xFFFFFFFFFFFFFFFF}}, func() gopacket.DecodingLayer { return &AtomicETH{} }, false, 29},
		{"AtomicAckETH", &AtomicAckETH{AtomicAckETHFields: decode.AtomicAckETHFields{AtomicAckOrig: 0x8000000000000001}}, func() gopacket.DecodingLayer { return &AtomicAckETH{} }, false, 9},
		{"DETH", &DETH{DETHFields: decode.DETHFields{QKey: 0xFFFFFFFF, SrcQP: 0xFFFFFF}, Resv8: 0xFF}, func() gopacket.DecodingLayer { return &DETH{} }, false, 9},
		{"ImmDt", &ImmDt{ImmDtFields: decode.ImmDtFields{Imm: 0xDEADBEEF}}, func() gopacket.DecodingLayer { return &ImmDt{} }, false, 5},
		{"IETH", &IETH{IETHFields: decode.IETHFields{IETHRKey: 0xFEEDFACE}}, func() gopacket.DecodingLayer { return &IETH{} }, false, 5},
		{"XRCETH", &XRCETH{XRCETHFields: decode.XRCETHFields{XRCSRQ: 0xFFFFFF}, Resv8: 0xFF}, func() gopacket.DecodingLayer { return &XRCETH{} }, false, 5},
		{"CNP", &CNP{Reserved: [16]byte{1, 2, 3, 15: 0xFF}}, func() gopacket.DecodingLayer { return &CNP{} }, false, 17},
		{"MACControl PFC", &MACControl{MACControlFields: decode.MACControlFields{PFCEnable: 0x00FF, PFCQuanta: [8]uint16{1, 2, 3, 4, 5, 6, 7, 0xFFFF}}, Opcode: MACControlOpcodePFC},
			func() gopacket.DecodingLayer { return &MACControl{} }, false, 21},
		{"MACControl PAUSE", &MACControl{MACControlFields: decode.MACControlFields{PauseQuanta: 0xFFFF}, Opcode: MACControlOpcodePause}, func() gopacket.DecodingLayer { return &MACControl{} }, false, 5},
		// Other opcodes keep every byte after the opcode in Raw, the 0xEE too.
		{"MACControl raw", &MACControl{Opcode: 0x0002, Raw: []byte{9, 8, 7, 6, 0xEE}}, func() gopacket.DecodingLayer { return &MACControl{} }, false, 2 + 5},
		{"SLL2", &SLL2{ProtocolType: gplayers.EthernetTypeIPv6, Reserved: 0xFFFF, InterfaceIndex: 0xFFFFFFFF, ARPHRDType: 772,
			PacketType: gplayers.LinuxSLLPacketTypeHost, AddrLen: 8, Addr: net.HardwareAddr{1, 2, 3, 4, 5, 6, 7, 8}}, func() gopacket.DecodingLayer { return &SLL2{} }, true, 21},
		{"ERSPAN III all ones", &ERSPAN3{Version: 2, VLAN: 0xFFF, COS: 7, BSO: 3, Truncated: true, SessionID: 0x3FF, Timestamp: 0xFFFFFFFF,
			SGT: 0xFFFF, P: true, FT: 0x1F, HWID: 0x3F, Direction: true, Gra: 3, O: true, PlatformID: 0x3F, PlatformInfo: 1<<58 - 1},
			func() gopacket.DecodingLayer { return &ERSPAN3{} }, false, 21},
		{"ERSPAN III plain", &ERSPAN3{Version: 2, VLAN: 1, SessionID: 2, Timestamp: 3}, func() gopacket.DecodingLayer { return &ERSPAN3{} }, false, 13},
	}
	for _, c := range cases {
		buf := gopacket.NewSerializeBuffer()
		// One payload byte after the header (0xEE), to check the split.
		ls := []gopacket.SerializableLayer{c.layer, gopacket.Payload{0xEE}}
		raw := c.name == "MACControl raw"
		if raw {
			ls = ls[:1]
		}
		err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: c.fix}, ls...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(buf.Bytes()) != c.wantLen {
			t.Errorf("%s: %d bytes, want %d: % x", c.name, len(buf.Bytes()), c.wantLen, buf.Bytes())
		}
		var df layersFeedback
		d := c.fresh()
		if err := d.DecodeFromBytes(buf.Bytes(), &df); err != nil {
			t.Fatalf("%s: decode: %v", c.name, err)
		}
		if got, want := layersFields(d.(gopacket.Layer)), layersFields(c.layer.(gopacket.Layer)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, want)
		}
		if pl := d.LayerPayload(); !raw && (len(pl) == 0 || pl[0] != 0xEE) {
			t.Errorf("%s: payload % x, want ee first", c.name, pl)
		}
	}
}

// TestLayersMACControlMinFrame: with FixLengths, MAC Control pads its
// payload to 46 bytes, so Ethernet gives a 60-byte frame identical to the
// hand-built fixture.
func TestLayersMACControlMinFrame(t *testing.T) {
	eth := &gplayers.Ethernet{SrcMAC: net.HardwareAddr{0x02, 0, 0, 0, 0, 1}, DstMAC: MACControlDstMAC(), EthernetType: EthernetTypeMACControl}
	for _, c := range []struct {
		m    *MACControl
		want []byte
	}{
		{&MACControl{MACControlFields: decode.MACControlFields{PFCEnable: 0x0008, PFCQuanta: [8]uint16{3: 0xFFFF}}, Opcode: MACControlOpcodePFC}, layersFramePFCClass3},
		{&MACControl{MACControlFields: decode.MACControlFields{PauseQuanta: 0x1234}, Opcode: MACControlOpcodePause}, layersFramePause},
	} {
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, eth, c.m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), c.want) {
			t.Errorf("%v:\n got % x\nwant % x", c.m.Opcode, buf.Bytes(), c.want)
		}
		// Without Ethernet the MAC Control payload alone is 46 bytes.
		buf = gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, c.m); err != nil {
			t.Fatal(err)
		}
		if len(buf.Bytes()) != MACControlMinLen {
			t.Errorf("%v: %d bytes, want %d", c.m.Opcode, len(buf.Bytes()), MACControlMinLen)
		}
	}
	m := &MACControl{MACControlFields: decode.MACControlFields{PFCEnable: 0x0108}, Opcode: MACControlOpcodePFC}
	for prio, want := range []bool{false, false, false, true, false, false, false, false} {
		if m.Enabled(prio) != want {
			t.Errorf("Enabled(%d) = %v", prio, !want)
		}
	}
}

// layersSpecICRC is a second, naive ICRC straight from the wire-format
// sheet, to check ComputeICRC independently: CRC-32 over 8 bytes of 0xff and
// the packet up to the ICRC, with the variant fields set to ones.
func layersSpecICRC(ip []byte, udpOff int) uint32 {
	m := append(bytes.Repeat([]byte{0xff}, 8), ip[:len(ip)-decode.ICRCLen]...)
	h := m[8:]
	if h[0]>>4 == 4 {
		h[1], h[8], h[10], h[11] = 0xff, 0xff, 0xff, 0xff // TOS, TTL, header checksum
	} else {
		h[0] |= 0x0f                                    // traffic class, high nibble
		h[1], h[2], h[3], h[7] = 0xff, 0xff, 0xff, 0xff // traffic class low nibble, flow label, hop limit
	}
	h[udpOff+6], h[udpOff+7] = 0xff, 0xff // UDP checksum
	h[udpOff+8+4] = 0xff                  // BTH FECN, BECN, reserved
	return crc32.ChecksumIEEE(m)
}

// TestLayersFinishRoCE builds IPv4 and IPv6 RoCE frames, fills in the ICRC
// and checks it: recomputing gives the stored value, the variant fields
// (TOS/traffic class, TTL/hop limit, flow label, UDP checksum, FECN/BECN)
// do not change it, and an invariant byte does.
func TestLayersFinishRoCE(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		bth := &BTH{BTHFields: decode.BTHFields{Opcode: 0x0a, PKey: 0xffff, DestQP: 0x2c, AckReq: true, PSN: 0x3da8}}
		ext := []gopacket.SerializableLayer{&RETH{RETHFields: decode.RETHFields{VA: 0x5b2693822500, RKey: 0x1f86, DMALen: 13}}}
		frame, udpOff, ipEnd := layersRoCEFrame(t, v6, bth, ext, []byte("rdma-ping-0:\x00"))
		ip := frame[14:ipEnd]
		stored := decode.StoredICRC(ip)
		if c, ok := decode.ComputeICRC(ip, udpOff-14); !ok || c != stored {
			t.Fatalf("v6=%v: computed %#x (%v), stored %#x", v6, c, ok, stored)
		}
		if stored == 0 {
			t.Errorf("v6=%v: ICRC left zero", v6)
		}
		if spec := layersSpecICRC(ip, udpOff-14); spec != stored {
			t.Errorf("v6=%v: ComputeICRC %#x, naive spec ICRC %#x", v6, stored, spec)
		}
		variant := append([]byte(nil), ip...)
		if v6 {
			variant[0] |= 0x0F
			variant[1] ^= 0xFF
			variant[3] ^= 0x55
			variant[7] = 1
		} else {
			variant[1] = 0x03
			variant[8] = 1
			variant[10], variant[11] = 0x12, 0x34
		}
		u := udpOff - 14
		variant[u+6], variant[u+7] = 0xAB, 0xCD
		variant[u+8+4] = 0xC0
		if c, _ := decode.ComputeICRC(variant, u); c != stored {
			t.Errorf("v6=%v: variant fields changed the ICRC: %#x != %#x", v6, c, stored)
		}
		invariant := append([]byte(nil), ip...)
		invariant[u+8+11] ^= 1 // PSN
		if c, _ := decode.ComputeICRC(invariant, u); c == stored {
			t.Errorf("v6=%v: PSN change kept the ICRC", v6)
		}
		p := gopacket.NewPacket(frame, gplayers.LayerTypeEthernet, layersDecodeOptions)
		if b := p.Layer(LayerTypeBTH).(*BTH); !b.HasICRC || b.ICRC != stored || b.Pad != 3 {
			t.Errorf("v6=%v: decoded HasICRC %v ICRC %#x Pad %d", v6, b.HasICRC, b.ICRC, b.Pad)
		}
	}
	for _, c := range []struct{ ipOff, udpOff int }{{-1, 20}, {14, 10}, {100, 120}, {14, 14}} {
		f := append([]byte(nil), layersPacketRCAck...)
		if FinishRoCE(f, c.ipOff, c.udpOff) || !bytes.Equal(f, layersPacketRCAck) {
			t.Errorf("FinishRoCE(%d, %d) accepted bad offsets or changed the frame", c.ipOff, c.udpOff)
		}
	}
	// Refilling a real frame's ICRC leaves it unchanged.
	f := append([]byte(nil), layersPacketRCSendOnly...)
	clear(f[len(f)-4:])
	if !FinishRoCE(f, 14, 34) || !bytes.Equal(f, layersPacketRCSendOnly) {
		t.Errorf("FinishRoCE on rping frame 4 gives % x", f[len(f)-4:])
	}
}

// TestLayersFields checks that a layer's embedded field struct is the
// plain value decode.Packet holds (reserved bits and trailer stay outside).
func TestLayersFields(t *testing.T) {
	b := &BTH{BTHFields: decode.BTHFields{Opcode: 0x0a, SE: true, MigReq: true, Pad: 2, TVer: 1, PKey: 0x8001, FECN: true, BECN: true, DestQP: 0x123456, AckReq: true, PSN: 0xFFFFFE}, Resv6: 5, Resv7: 3, ICRC: 9, HasICRC: true}
	if got, want := b.BTHFields, (decode.BTHFields{Opcode: 0x0a, SE: true, MigReq: true, Pad: 2, TVer: 1, PKey: 0x8001, FECN: true,
		BECN: true, DestQP: 0x123456, AckReq: true, PSN: 0xFFFFFE}); got != want {
		t.Errorf("BTH.BTHFields = %+v, want %+v", got, want)
	}
	if got, want := (&RETH{RETHFields: decode.RETHFields{VA: 1, RKey: 2, DMALen: 3}}).RETHFields, (decode.RETHFields{VA: 1, RKey: 2, DMALen: 3}); got != want {
		t.Errorf("RETH.RETHFields = %+v", got)
	}
	if got, want := (&AETH{AETHFields: decode.AETHFields{Syndrome: 0x60, MSN: 4}}).AETHFields, (decode.AETHFields{Syndrome: 0x60, MSN: 4}); got != want {
		t.Errorf("AETH.AETHFields = %+v", got)
	}
	if got, want := (&DETH{DETHFields: decode.DETHFields{QKey: 5, SrcQP: 6}, Resv8: 1}).DETHFields, (decode.DETHFields{QKey: 5, SrcQP: 6}); got != want {
		t.Errorf("DETH.DETHFields = %+v", got)
	}
	if got, want := (&AtomicETH{AtomicETHFields: decode.AtomicETHFields{VA: 7, RKey: 8, SwapAdd: 9, Compare: 10}}).AtomicETHFields, (decode.AtomicETHFields{VA: 7, RKey: 8, SwapAdd: 9, Compare: 10}); got != want {
		t.Errorf("AtomicETH.AtomicETHFields = %+v", got)
	}
}

// TestLayersExtLayersDecode uses ExtLayers directly, as a hand-written
// decoder would.
func TestLayersExtLayersDecode(t *testing.T) {
	var (
		b  BTH
		x  ExtLayers
		df layersFeedback
	)
	udp := layersUDPPayload(t, layersPacketRCAtomicAck)
	if err := b.DecodeFromBytes(udp, &df); err != nil {
		t.Fatal(err)
	}
	rest, err := x.Decode(b.Ext, b.Payload, &df)
	if err != nil || len(rest) != 0 {
		t.Fatalf("rest % x, err %v", rest, err)
	}
	if x.AETH.Syndrome != 0x1f || x.AETH.Next != decode.ExtAtomicAckETH || x.AtomicAckETH.AtomicAckOrig != 0x3a01a68d6b397ac6 {
		t.Errorf("AETH %+v AtomicAckETH %+v", x.AETH, x.AtomicAckETH)
	}
	if l := x.Layer(decode.ExtAETH); l != &x.AETH {
		t.Errorf("Layer(ExtAETH) = %p, want %p", l, &x.AETH)
	}
	if l := x.Layer(decode.ExtAETH | decode.ExtRETH); l != nil {
		t.Errorf("Layer of two headers = %v, want nil", l)
	}
	if _, err := x.Decode(b.Ext, b.Payload[:6], &df); err == nil || !df.truncated {
		t.Errorf("short ext headers: err %v truncated %v", err, df.truncated)
	}
}
