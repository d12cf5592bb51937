package layers

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// layersDecodeOptions makes gopacket.NewPacket let panics through, so a
// missing bounds check fails the test instead of becoming a DecodeFailure.
var layersDecodeOptions = gopacket.DecodeOptions{SkipDecodeRecovery: true}

// layersCase is one fixture decoded through gopacket.NewPacket.
type layersCase struct {
	name    string
	data    []byte
	first   gopacket.Decoder // gplayers.LayerTypeEthernet when nil
	stack   []gopacket.LayerType
	want    []gopacket.Layer // rocetrace layers in stack order, fields only
	payload []byte           // final gopacket.Payload contents; nil: no payload layer
	// minDetect: prefixes shorter than this must be reported as truncated
	// or failed (0 means len(data)). Past it the bytes cut are Ethernet
	// padding, which nothing can tell from a shorter frame.
	minDetect int
	// greFrom..greTo are prefix lengths that leave gopacket v1.1.19's GRE
	// layer 1-7 bytes: its DecodeFromBytes indexes without a length check
	// and panics, so those prefixes run with decode recovery on.
	greFrom, greTo int
}

func roceStack(ext ...gopacket.LayerType) []gopacket.LayerType {
	s := []gopacket.LayerType{gplayers.LayerTypeEthernet, gplayers.LayerTypeIPv4, gplayers.LayerTypeUDP, LayerTypeBTH}
	return append(s, ext...)
}

// rcBTH returns the BTH fields shared by the Soft-RoCE rping fixtures.
func rcBTH(op decode.Opcode, destQP uint32, ackReq bool, psn, icrc uint32) *BTH {
	return &BTH{BTHFields: decode.BTHFields{Opcode: op, PKey: 0xffff, DestQP: destQP, AckReq: ackReq, PSN: psn}, Ext: op.ExtHeaders(), ICRC: icrc, HasICRC: true}
}

func layersCases() []layersCase {
	ack := []gopacket.Layer{
		rcBTH(0x11, 0x2c, false, 0xfebd3d, 0x8b66803b),
		&AETH{AETHFields: decode.AETHFields{Syndrome: 0x1f, MSN: 1}},
	}
	erspanStack := []gopacket.LayerType{
		gplayers.LayerTypeEthernet, gplayers.LayerTypeIPv4, gplayers.LayerTypeGRE, LayerTypeERSPAN3,
		gplayers.LayerTypeEthernet, gplayers.LayerTypeIPv4, gplayers.LayerTypeUDP, LayerTypeBTH, LayerTypeAETH,
	}
	erspan := ERSPAN3{Version: 2, VLAN: 100, COS: 3, SessionID: 0x155, Timestamp: 0x12345678, SGT: 0xabcd,
		HWID: 5, Direction: true, Gra: 3}
	erspanO := erspan
	erspanO.O, erspanO.PlatformID, erspanO.PlatformInfo = true, 3, 0xdeadbeef
	return []layersCase{
		{
			name:    "rping frame 4 RC SEND Only",
			data:    layersPacketRCSendOnly,
			stack:   roceStack(gopacket.LayerTypePayload),
			want:    []gopacket.Layer{rcBTH(0x04, 0x2b, true, 0xfebd3d, 0x5331cf85)},
			payload: layersPacketRCSendOnly[54:70],
		},
		{
			name:  "rping frame 5 RC Acknowledge",
			data:  layersPacketRCAck,
			stack: roceStack(LayerTypeAETH),
			want:  ack,
		},
		{
			name:  "rping frame 6 RC RDMA READ Request",
			data:  layersPacketRCReadRequest,
			stack: roceStack(LayerTypeRETH),
			want: []gopacket.Layer{
				rcBTH(0x0c, 0x2c, true, 0x003da6, 0xa5b4ce01),
				&RETH{RETHFields: decode.RETHFields{VA: 0x00005b269382e5e0, RKey: 0x2095, DMALen: 64}},
			},
		},
		{
			name:  "rping frame 7 RC RDMA READ Response Only",
			data:  layersPacketRCReadResponseOnly,
			stack: roceStack(LayerTypeAETH, gopacket.LayerTypePayload),
			want: []gopacket.Layer{
				rcBTH(0x10, 0x2b, false, 0x003da6, 0xd9ea9286),
				&AETH{AETHFields: decode.AETHFields{Syndrome: 0x1f, MSN: 1}},
			},
			payload: layersPacketRCReadResponseOnly[58:122],
		},
		{
			name:  "rping frame 12 RC RDMA WRITE Only",
			data:  layersPacketRCWriteOnly,
			stack: roceStack(LayerTypeRETH, gopacket.LayerTypePayload),
			want: []gopacket.Layer{
				rcBTH(0x0a, 0x2c, true, 0x003da8, 0xdd980bf3),
				&RETH{RETHFields: decode.RETHFields{VA: 0x00005b2693822500, RKey: 0x1f86, DMALen: 64}},
			},
			payload: layersPacketRCWriteOnly[70:134],
		},
		{
			name:  "rping frame 1 UD SEND Only",
			data:  layersPacketUDSendOnly,
			stack: roceStack(LayerTypeDETH, gopacket.LayerTypePayload),
			want: []gopacket.Layer{
				rcBTH(0x64, 0x01, true, 6, 0x0238e664),
				&DETH{DETHFields: decode.DETHFields{QKey: 0x80010000, SrcQP: 1}},
			},
			payload: layersPacketUDSendOnly[62:318],
		},
		{
			name:  "atomic_bw frame 20 RC FETCH_ADD",
			data:  layersPacketRCFetchAdd,
			stack: roceStack(LayerTypeAtomicETH),
			want: []gopacket.Layer{
				rcBTH(0x14, 0x28, true, 0xa3f2c7, 0x08e2a726),
				&AtomicETH{AtomicETHFields: decode.AtomicETHFields{VA: 0x00006320d6be5000, RKey: 0x1986, SwapAdd: 1}},
			},
		},
		{
			name:  "atomic_bw frame 25 RC ATOMIC Acknowledge",
			data:  layersPacketRCAtomicAck,
			stack: roceStack(LayerTypeAETH, LayerTypeAtomicAckETH),
			want: []gopacket.Layer{
				rcBTH(0x12, 0x29, false, 0xa3f2c7, 0xf6f6c170),
				&AETH{AETHFields: decode.AETHFields{Syndrome: 0x1f, MSN: 1}, Next: decode.ExtAtomicAckETH},
				&AtomicAckETH{AtomicAckETHFields: decode.AtomicAckETHFields{AtomicAckOrig: 0x3a01a68d6b397ac6}},
			},
		},
		{
			name:  "nccl frame 510 RC RDMA WRITE Only with Immediate",
			data:  layersPacketRCWriteOnlyImm,
			stack: roceStack(LayerTypeRETH, LayerTypeImmDt),
			want: []gopacket.Layer{
				rcBTH(0x0b, 0x1d, true, 0, 0xbb016d3f),
				&RETH{RETHFields: decode.RETHFields{VA: 0x0000702e35b30000, RKey: 0x3a57}, Next: decode.ExtImmDt},
				&ImmDt{},
			},
		},
		{
			name:  "hwnic frame 122 RC SEND Only with Immediate",
			data:  layersPacketRCSendOnlyImm,
			stack: roceStack(LayerTypeImmDt, gopacket.LayerTypePayload),
			want: []gopacket.Layer{
				&BTH{BTHFields: decode.BTHFields{Opcode: 0x05, MigReq: true, PKey: 0xffff, DestQP: 0x45, AckReq: true, PSN: 0x42}, Resv6: 0x10, Ext: decode.ExtImmDt, ICRC: 0x1d801637, HasICRC: true},
				&ImmDt{},
			},
			payload: layersPacketRCSendOnlyImm[58:62],
		},
		{
			name:  "hand-built CNP",
			data:  layersPacketCNP,
			stack: roceStack(LayerTypeCNP),
			want: []gopacket.Layer{
				&BTH{BTHFields: decode.BTHFields{Opcode: decode.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0x2b}, Ext: decode.ExtCNP, ICRC: 0xc2c1fe47, HasICRC: true},
				&CNP{},
			},
		},
		{
			name:      "hand-built PFC priority 3",
			data:      layersFramePFCClass3,
			stack:     []gopacket.LayerType{gplayers.LayerTypeEthernet, LayerTypeMACControl},
			want:      []gopacket.Layer{&MACControl{MACControlFields: decode.MACControlFields{PFCEnable: 0x0008, PFCQuanta: [8]uint16{3: 0xffff}}, Opcode: MACControlOpcodePFC}},
			minDetect: 14 + macControlPFCLen,
		},
		{
			name:      "hand-built 802.3x PAUSE",
			data:      layersFramePause,
			stack:     []gopacket.LayerType{gplayers.LayerTypeEthernet, LayerTypeMACControl},
			want:      []gopacket.Layer{&MACControl{MACControlFields: decode.MACControlFields{PauseQuanta: 0x1234}, Opcode: MACControlOpcodePause}},
			minDetect: 14 + macControlPauseLen,
		},
		{
			name:    "hand-built ERSPAN III with platform sub-header",
			data:    layersPacketERSPAN3Platform,
			stack:   erspanStack,
			want:    append([]gopacket.Layer{&erspanO}, ack...),
			greFrom: 35, greTo: 41,
		},
		{
			name:    "hand-built ERSPAN III",
			data:    layersPacketERSPAN3,
			stack:   erspanStack,
			want:    append([]gopacket.Layer{&erspan}, ack...),
			greFrom: 35, greTo: 41,
		},
		{
			name:  "hand-built Linux SLL2",
			data:  layersPacketSLL2,
			first: LayerTypeSLL2,
			stack: []gopacket.LayerType{LayerTypeSLL2, gplayers.LayerTypeIPv4, gplayers.LayerTypeUDP, LayerTypeBTH, LayerTypeAETH},
			want: append([]gopacket.Layer{&SLL2{ProtocolType: gplayers.EthernetTypeIPv4, InterfaceIndex: 2, ARPHRDType: 1,
				PacketType: gplayers.LinuxSLLPacketTypeOutgoing, AddrLen: 6, Addr: []byte{0x00, 0x50, 0x56, 0xa7, 0x12, 0x9f}}}, ack...),
		},
	}
}

func (c *layersCase) decoder() gopacket.Decoder {
	if c.first == nil {
		return gplayers.LayerTypeEthernet
	}
	return c.first
}

// layersFields returns a copy of l without its BaseLayer (and BTH link), so
// decoded layers compare with wants by their fields.
func layersFields(l gopacket.Layer) gopacket.Layer {
	switch v := l.(type) {
	case *BTH:
		c := *v
		c.BaseLayer, c.linked = gplayers.BaseLayer{}, nil
		return &c
	case *RETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *AETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *AtomicETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *AtomicAckETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *DETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *ImmDt:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *IETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *XRCETH:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *CNP:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *MACControl:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *SLL2:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	case *ERSPAN3:
		c := *v
		c.BaseLayer = gplayers.BaseLayer{}
		return &c
	}
	return nil
}

// layersOurs returns the packet's rocetrace layers, fields only.
func layersOurs(p gopacket.Packet) []gopacket.Layer {
	var out []gopacket.Layer
	for _, l := range p.Layers() {
		if f := layersFields(l); f != nil {
			out = append(out, f)
		}
	}
	return out
}

func layersStack(p gopacket.Packet) []gopacket.LayerType {
	var s []gopacket.LayerType
	for _, l := range p.Layers() {
		s = append(s, l.LayerType())
	}
	return s
}

func layersCheckStack(t *testing.T, p gopacket.Packet, want []gopacket.LayerType) {
	t.Helper()
	if got := layersStack(p); !reflect.DeepEqual(got, want) {
		t.Errorf("layer stack\n got %v\nwant %v", got, want)
	}
}

func TestLayersDecode(t *testing.T) {
	for _, c := range layersCases() {
		t.Run(c.name, func(t *testing.T) {
			p := gopacket.NewPacket(c.data, c.decoder(), layersDecodeOptions)
			if el := p.ErrorLayer(); el != nil {
				t.Fatalf("decode error: %v", el.Error())
			}
			if p.Metadata().Truncated {
				t.Errorf("whole fixture reported truncated")
			}
			layersCheckStack(t, p, c.stack)
			got := layersOurs(p)
			if len(got) != len(c.want) {
				t.Fatalf("got %d rocetrace layers, want %d", len(got), len(c.want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], c.want[i]) {
					t.Errorf("layer %v\n got %#v\nwant %#v", got[i].LayerType(), got[i], c.want[i])
				}
			}
			pl := p.Layer(gopacket.LayerTypePayload)
			switch {
			case c.payload == nil && pl != nil:
				t.Errorf("unexpected payload layer of %d bytes", len(pl.LayerContents()))
			case c.payload != nil && pl == nil:
				t.Errorf("no payload layer, want %d bytes", len(c.payload))
			case c.payload != nil && !bytes.Equal(pl.LayerContents(), c.payload):
				t.Errorf("payload\n got % x\nwant % x", pl.LayerContents(), c.payload)
			}
		})
	}
}

// TestLayersBTHPayloadExcludesTrailer checks that the payload stops before
// the pad bytes and the ICRC, and that Contents+Payload+pad+ICRC is the
// whole UDP payload.
func TestLayersBTHPayloadExcludesTrailer(t *testing.T) {
	for _, c := range layersCases() {
		p := gopacket.NewPacket(c.data, c.decoder(), layersDecodeOptions)
		b, ok := p.Layer(LayerTypeBTH).(*BTH)
		if !ok {
			continue
		}
		udp := p.Layer(gplayers.LayerTypeUDP).(*gplayers.UDP)
		if got, want := len(b.Contents)+len(b.Payload)+int(b.Pad)+decode.ICRCLen, len(udp.Payload); got != want {
			t.Errorf("%s: BTH %d + payload %d + pad %d + ICRC 4 = %d, UDP payload %d",
				c.name, len(b.Contents), len(b.Payload), b.Pad, got, want)
		}
		if got := decode.StoredICRC(udp.Payload); got != b.ICRC {
			t.Errorf("%s: BTH.ICRC %#x, stored %#x", c.name, b.ICRC, got)
		}
	}
}

// TestLayersICRCRealFrames recomputes the ICRC of every RoCE fixture (the
// real captures, and the inner frames of the hand-built ones) with
// ComputeICRC and compares it with the stored value.
func TestLayersICRCRealFrames(t *testing.T) {
	for _, c := range layersCases() {
		p := gopacket.NewPacket(c.data, c.decoder(), layersDecodeOptions)
		b, ok := p.Layer(LayerTypeBTH).(*BTH)
		if !ok {
			continue
		}
		var ip4 *gplayers.IPv4
		for _, l := range p.Layers() {
			if v, ok := l.(*gplayers.IPv4); ok {
				ip4 = v // the innermost one carries the UDP datagram
			}
		}
		n := len(ip4.Contents) + len(ip4.Payload)
		ip := ip4.Contents[:n:n]
		got, ok := decode.ComputeICRC(ip, len(ip4.Contents))
		if !ok {
			t.Errorf("%s: ComputeICRC refused the packet", c.name)
			continue
		}
		if got != b.ICRC || got != decode.StoredICRC(ip) {
			t.Errorf("%s: computed ICRC %#08x, stored %#08x", c.name, got, b.ICRC)
		}
		if spec := layersSpecICRC(ip, len(ip4.Contents)); spec != b.ICRC {
			t.Errorf("%s: naive spec ICRC %#08x, stored %#08x", c.name, spec, b.ICRC)
		}
	}
}

func TestLayersRegistry(t *testing.T) {
	if got := gplayers.UDPPort(4791).LayerType(); got != LayerTypeBTH {
		t.Errorf("UDP port 4791 -> %v, want BTH", got)
	}
	if got := gplayers.EthernetType(0x8808).LayerType(); got != LayerTypeMACControl {
		t.Errorf("EtherType 0x8808 -> %v, want MACControl", got)
	}
	if got := gplayers.EthernetType(0x22EB).LayerType(); got != LayerTypeERSPAN3 {
		t.Errorf("EtherType 0x22EB -> %v, want ERSPAN III", got)
	}
	// pcapgo v1.1.19 reports LINKTYPE_LINUX_SLL2 (276) as gplayers.LinkType(276 & 0xff).
	lt := gplayers.LinkType(uint32(linkTypeSLL2) & 0xff)
	if got := lt.String(); got != "Linux SLL2" {
		t.Errorf("link type 276 (as %d) is %q, want Linux SLL2", lt, got)
	}
	p := gopacket.NewPacket(layersPacketSLL2, lt, layersDecodeOptions)
	layersCheckStack(t, p, []gopacket.LayerType{LayerTypeSLL2, gplayers.LayerTypeIPv4, gplayers.LayerTypeUDP, LayerTypeBTH, LayerTypeAETH})
	if p.LinkLayer() == nil || p.LinkLayer().LayerType() != LayerTypeSLL2 {
		t.Errorf("SLL2 is not the link layer")
	}
	names := map[gopacket.LayerType]string{
		LayerTypeBTH: "BTH", LayerTypeRETH: "RETH", LayerTypeAETH: "AETH", LayerTypeAtomicETH: "AtomicETH",
		LayerTypeAtomicAckETH: "AtomicAckETH", LayerTypeDETH: "DETH", LayerTypeImmDt: "ImmDt", LayerTypeIETH: "IETH",
		LayerTypeXRCETH: "XRCETH", LayerTypeCNP: "CNP", LayerTypeMACControl: "MACControl", LayerTypeSLL2: "LinuxSLL2",
		LayerTypeERSPAN3: "ERSPANIII",
	}
	seen := map[gopacket.LayerType]bool{}
	for lt, name := range names {
		if lt.String() != name {
			t.Errorf("layer type %d is %q, want %q", int(lt), lt.String(), name)
		}
		if int(lt) < 1790 || int(lt) > 1802 || seen[lt] {
			t.Errorf("layer type %s number %d outside 1790-1802 or duplicated", name, int(lt))
		}
		seen[lt] = true
	}
}

func TestLayersAETHDescribe(t *testing.T) {
	for _, c := range []struct {
		syn  decode.Syndrome
		want string
	}{
		{0x1f, "ACK credits=31"},
		{0x00, "ACK credits=0"},
		{0x2e, "RNR NAK timer=14 (1.28 ms)"},
		{0x20, "RNR NAK timer=0 (655.36 ms)"},
		{0x21, "RNR NAK timer=1 (0.01 ms)"},
		{0x60, "NAK PSN_SEQUENCE_ERROR"},
		{0x62, "NAK REMOTE_ACCESS_ERROR"},
		{0x6f, "NAK RESERVED_15"},
		{0x45, "RESERVED 0x45"},
	} {
		a := &AETH{AETHFields: decode.AETHFields{Syndrome: c.syn, MSN: 7}}
		if got := a.Describe(); got != c.want {
			t.Errorf("Describe(%#02x) = %q, want %q", uint8(c.syn), got, c.want)
		}
		if s := gopacket.LayerString(a); !strings.Contains(s, c.want) || !strings.HasPrefix(s, "AETH\t") {
			t.Errorf("LayerString = %q, want it to name %q", s, c.want)
		}
	}
}

// TestLayersStrings checks the packet-tree rendering of every fixture: it
// must not panic and must name the key fields.
func TestLayersStrings(t *testing.T) {
	wants := map[string][]string{
		"rping frame 4 RC SEND Only":               {"BTH\tOpcode=RC_SEND_ONLY(0x04)", "DestQP=0x00002b", "PSN=16694589", "ICRC=0x5331cf85"},
		"rping frame 5 RC Acknowledge":             {"AETH\tSyndrome=0x1f(ACK credits=31) MSN=1"},
		"rping frame 6 RC RDMA READ Request":       {"RETH\tVA=0x00005b269382e5e0 RKey=0x00002095 DMALen=64"},
		"rping frame 1 UD SEND Only":               {"DETH\tQKey=0x80010000 SrcQP=0x000001"},
		"atomic_bw frame 25 RC ATOMIC Acknowledge": {"AtomicAckETH\tOrigRemoteData=0x3a01a68d6b397ac6"},
		"hand-built CNP":                           {"Opcode=CNP(0x81)", "BECN=true", "CNP\tReserved=0"},
		"hand-built PFC priority 3":                {"MACControl\tOpcode=PFC(0x0101) ClassEnable=0x0008 Quanta=[0 0 0 65535 0 0 0 0]"},
		"hand-built 802.3x PAUSE":                  {"Opcode=PAUSE(0x0001) PauseQuanta=4660"},
		"hand-built ERSPAN III with platform sub-header": {"ERSPANIII\tVersion=2 VLAN=100 COS=3", "SessionID=341",
			"Direction=true Gra=3 O=true PlatformID=3 PlatformInfo=0x0000000deadbeef"},
		"hand-built Linux SLL2": {"LinuxSLL2\tProtocolType=IPv4(0x0800) InterfaceIndex=2 ARPHRDType=1 PacketType=outgoing AddrLen=6 Addr=00:50:56:a7:12:9f"},
	}
	for _, c := range layersCases() {
		p := gopacket.NewPacket(c.data, c.decoder(), layersDecodeOptions)
		var all strings.Builder
		for _, l := range p.Layers() {
			all.WriteString(gopacket.LayerDump(l))
		}
		s := all.String() + p.String()
		for _, w := range wants[c.name] {
			if !strings.Contains(s, w) {
				t.Errorf("%s: dump lacks %q:\n%s", c.name, w, s)
			}
		}
	}
}

// TestLayersDecodingLayerParser decodes the fixtures with preallocated
// layers: BTH.Link makes the parser follow each opcode's header chain.
func TestLayersDecodingLayerParser(t *testing.T) {
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
	parsers := map[gopacket.LayerType]*gopacket.DecodingLayerParser{
		gplayers.LayerTypeEthernet: gopacket.NewDecodingLayerParser(gplayers.LayerTypeEthernet, dls...),
		LayerTypeSLL2:              gopacket.NewDecodingLayerParser(LayerTypeSLL2, dls...),
	}
	var decoded []gopacket.LayerType
	// Twice, so that every fixture is also decoded into layers used by another.
	for range 2 {
		for _, c := range layersCases() {
			first := c.decoder().(gopacket.LayerType)
			dlp := parsers[first]
			if err := dlp.DecodeLayers(c.data, &decoded); err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if !reflect.DeepEqual(decoded, c.stack) {
				t.Errorf("%s: decoded\n %v\nwant %v", c.name, decoded, c.stack)
			}
			if len(c.stack) > 3 && c.stack[len(c.stack)-1] == gopacket.LayerTypePayload && !bytes.Equal(payload, c.payload) {
				t.Errorf("%s: payload % x, want % x", c.name, []byte(payload), c.payload)
			}
			if dlp.Truncated {
				t.Errorf("%s: parser reports truncation", c.name)
			}
		}
	}
}
