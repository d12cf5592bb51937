package decode_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// sendOnly is an RC SEND Only from A to B with 16 payload bytes. As an
// untagged Ethernet frame it is 14 + 20 (IPv4) + 8 (UDP) + 12 (BTH) + 16 +
// 4 (ICRC) = 74 bytes; its IP packet is 60.
func sendOnly() *synth.RoCE {
	r := rc(0x04, 77)
	r.Payload = 16
	return r
}

// TestOverlays decodes the SEND Only in every overlay: the inner frame is
// the packet (addresses, ports, BTH, ICRC ok), Encap and TunnelID say how
// it came, FrameLen is what a flow counts.
func TestOverlays(t *testing.T) {
	for _, tc := range []struct {
		name      string
		w         synth.Wrap
		cfg       decode.Config
		recLen    int // captured record
		frameLen  int // analysed frame
		encap     decode.Encap
		tunnelID  uint32
		mplsDepth uint8
	}{
		// Outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 + the frame 74.
		{"vxlan", synth.Wrap{Tunnel: synth.TunnelVXLAN}, decode.Config{}, 124, 74, decode.EncapVXLAN, 0x1234, 0},
		{"vxlan port 8472", synth.Wrap{Tunnel: synth.TunnelVXLAN, TunnelPort: 8472}, decode.Config{VXLANPort: 8472}, 124, 74, decode.EncapVXLAN, 0x1234, 0},
		// ... Geneve 8 + one option 8 + the frame 74.
		{"geneve", synth.Wrap{Tunnel: synth.TunnelGeneve}, decode.Config{}, 132, 74, decode.EncapGeneve, 0x5678, 0},
		// ... Geneve 16 + the IP packet 60; analysed as 60 + 14.
		{"geneve ip", synth.Wrap{Tunnel: synth.TunnelGeneveIP}, decode.Config{}, 118, 74, decode.EncapGeneve, 0x5678, 0},
		// 14 + 20 + GRE 4 + the IP packet 60.
		{"gre ip", synth.Wrap{Tunnel: synth.TunnelGREIP}, decode.Config{}, 98, 74, decode.EncapGREIP, 0, 0},
		// 14 + 20 + GRE with sequence 8 + ERSPAN III 12 + 60; session 7.
		{"erspan3 frame type 2", synth.Wrap{Tunnel: synth.TunnelERSPAN3IP}, decode.Config{}, 114, 74, decode.EncapERSPAN3, 7, 0},
		// ... + ERSPAN III 12 + the Ethernet frame 74 (frame type 0).
		{"erspan3 frame type 0", synth.Wrap{ERSPAN: 3}, decode.Config{}, 128, 74, decode.EncapERSPAN3, 7, 0},
		// The frame with two labels, 8 bytes more; bottom label 200.
		{"mpls", synth.Wrap{Tunnel: synth.TunnelMPLS}, decode.Config{}, 82, 82, decode.EncapMPLS, 200, 2},
		// synth mirrors first, then tunnels: ERSPAN II inside VXLAN, two
		// levels; the innermost (ERSPAN II, session 7) is the one named.
		// 14 + 20 + 8 + 8 + (14 + 20 + GRE 8 + ERSPAN II 8 + 74) = 174.
		{"erspan2 vxlan", synth.Wrap{ERSPAN: 2, Tunnel: synth.TunnelVXLAN}, decode.Config{}, 174, 74, decode.EncapERSPAN2, 7, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := mustFrame(t, sendOnly(), tc.w)
			var p decode.Packet
			decode.NewDecoder(tc.cfg).Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p)
			commonRoCE(t, &p, 0x04, 77)
			if len(frame) != tc.recLen || p.FrameLen != tc.frameLen {
				t.Errorf("record %d bytes, frame %d; want %d, %d", len(frame), p.FrameLen, tc.recLen, tc.frameLen)
			}
			if p.Encap != tc.encap || p.TunnelID != tc.tunnelID || p.MPLSLabels != tc.mplsDepth {
				t.Errorf("encap %v id %d labels %d; want %v %d %d", p.Encap, p.TunnelID, p.MPLSLabels, tc.encap, tc.tunnelID, tc.mplsDepth)
			}
			if p.PayloadLen != 16 || p.Stop != decode.StopNone {
				t.Errorf("payload %d stop %v", p.PayloadLen, p.Stop)
			}
			tree := string(decode.AppendTree(nil, pcapio.LinkTypeEthernet, &p, 100e9))
			if !strings.Contains(tree, tc.encap.String()) {
				t.Errorf("tree does not name %v:\n%s", tc.encap, tree)
			}
			if json := string(p.AppendJSON(nil, "f", "")); !strings.Contains(json, `"encap":"`+tc.encap.String()+`"`) {
				t.Errorf("JSON lacks encap %v: %s", tc.encap, json)
			}
			if a := testing.AllocsPerRun(100, func() {
				decode.NewDecoder(tc.cfg).Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p)
			}); a != 1 { // the Decoder itself; decoding allocates nothing
				t.Errorf("%v allocations, want 1 (the Decoder)", a)
			}
		})
	}
}

// TestERSPAN3FrameTypes: ERSPAN III frame type 0 is Ethernet, 2 IP; any
// other stops, the frame is other, described by its outer headers, and -V
// says why. (tshark 4.0 names frame type 2 but shows its IP packet as
// Data.)
func TestERSPAN3FrameTypes(t *testing.T) {
	base := mustFrame(t, sendOnly(), synth.Wrap{Tunnel: synth.TunnelERSPAN3IP})
	// ERSPAN III header at 14 + 20 + 8 = 42; FT is bits 6-2 of its byte 10.
	const ftByte = 42 + 10
	if ft := base[ftByte] >> 2 & 0x1F; ft != 2 {
		t.Fatalf("built frame type %d", ft)
	}
	d := decode.NewDecoder(decode.Config{})
	for _, ft := range []uint8{1, 3, 7, 31} {
		f := bytes.Clone(base)
		f[ftByte] = f[ftByte]&^0x7C | ft<<2
		var p decode.Packet
		d.Decode(f, pcapio.LinkTypeEthernet, len(f), &p)
		if p.Kind != decode.KindOther || p.Stop != decode.StopERSPANFrameType || p.StopArg != ft || p.Encap != decode.EncapNone {
			t.Errorf("FT %d: kind %v stop %v/%d encap %v", ft, p.Kind, p.Stop, p.StopArg, p.Encap)
		}
		if p.SrcIP != synth.Host(250).IP || p.IPProto != 47 || p.Malformed {
			t.Errorf("FT %d: outer headers lost: %v proto %d malformed %v", ft, p.SrcIP, p.IPProto, p.Malformed)
		}
		tree := string(decode.AppendTree(nil, pcapio.LinkTypeEthernet, &p, 100e9))
		want := "[Not decoded further: ERSPAN III frame type not decoded (rocetrace reads 0, Ethernet, and 2, IP) (" + itoa(int(ft)) + ")]"
		if !strings.Contains(tree, want) {
			t.Errorf("FT %d: tree lacks %q:\n%s", ft, want, tree)
		}
	}
	// Frame type 0 with an IP packet inside: read as Ethernet, the MACs are
	// the IP header's first 12 bytes, nothing RoCE (the old bug, reversed).
	f := bytes.Clone(base)
	f[ftByte] &^= 0x7C
	var p decode.Packet
	d.Decode(f, pcapio.LinkTypeEthernet, len(f), &p)
	if p.Kind == decode.KindRoCE {
		t.Error("frame type 0 over an IP packet decoded as RoCE")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOverlayStops: headers recognised but not followed.
func TestOverlayStops(t *testing.T) {
	d := decode.NewDecoder(decode.Config{})
	// MPLS: labels at 14 and 18, the IP header at 22; a first nibble of 0
	// (a pseudowire control word) stops.
	mpls := mustFrame(t, sendOnly(), synth.Wrap{Tunnel: synth.TunnelMPLS})
	mpls[22] = 0x00
	// Geneve: outer 14 + 20 + UDP 8 = 42 is its first byte; version 1.
	gen := mustFrame(t, sendOnly(), synth.Wrap{Tunnel: synth.TunnelGeneve})
	gen[42] |= 0x40
	// Geneve carrying protocol 0x88CC (LLDP).
	proto := mustFrame(t, sendOnly(), synth.Wrap{Tunnel: synth.TunnelGeneve})
	binary.BigEndian.PutUint16(proto[44:], 0x88CC)
	for _, tc := range []struct {
		name  string
		frame []byte
		stop  decode.Stop
		arg   uint8
	}{
		{"mpls payload", mpls, decode.StopMPLSPayload, 0},
		{"geneve version", gen, decode.StopGeneveVersion, 1},
		{"geneve protocol", proto, decode.StopGeneveProto, 0},
	} {
		var p decode.Packet
		d.Decode(tc.frame, pcapio.LinkTypeEthernet, len(tc.frame), &p)
		if p.Kind != decode.KindOther || p.Stop != tc.stop || p.StopArg != tc.arg {
			t.Errorf("%s: kind %v stop %v/%d, want other %v/%d", tc.name, p.Kind, p.Stop, p.StopArg, tc.stop, tc.arg)
		}
	}
	// VXLAN on a port the decoder was not told: plain UDP.
	f := mustFrame(t, sendOnly(), synth.Wrap{Tunnel: synth.TunnelVXLAN, TunnelPort: 8472})
	var p decode.Packet
	d.Decode(f, pcapio.LinkTypeEthernet, len(f), &p)
	if p.Kind != decode.KindOther || p.DstPort != 8472 || p.Encap != decode.EncapNone {
		t.Errorf("VXLAN on 8472 without --vxlan-port: kind %v port %d encap %v", p.Kind, p.DstPort, p.Encap)
	}
}

// TestRawIPLinkTypes: the IP packet alone, under each raw-IP link type,
// decodes as the Ethernet frame did, without MACs, its frame length the
// IP packet's + 14.
func TestRawIPLinkTypes(t *testing.T) {
	v4 := mustFrame(t, sendOnly(), synth.Wrap{})[14:] // 60 bytes
	r6 := sendOnly()
	r6.Src, r6.Dst = h6A, h6B
	v6 := mustFrame(t, r6, synth.Wrap{})[14:] // 40 + 8 + 12 + 16 + 4 = 80 bytes
	d := decode.NewDecoder(decode.Config{})
	for _, tc := range []struct {
		link     pcapio.LinkType
		ip       []byte
		frameLen int
	}{
		{pcapio.LinkTypeRaw, v4, 74}, {pcapio.LinkTypeRaw, v6, 94},
		{pcapio.LinkTypeRawDLT12, v4, 74}, {pcapio.LinkTypeRawDLT14, v6, 94},
		{pcapio.LinkTypeIPv4, v4, 74}, {pcapio.LinkTypeIPv6, v6, 94},
	} {
		var p decode.Packet
		d.Decode(tc.ip, tc.link, len(tc.ip), &p)
		commonRoCE(t, &p, 0x04, 77)
		if p.FrameLen != tc.frameLen || p.HasMAC || p.LinkType != tc.link {
			t.Errorf("link %d: frame %d (want %d), MAC %v", tc.link, p.FrameLen, tc.frameLen, p.HasMAC)
		}
	}
	// LINKTYPE_IPV4 holding an IPv6 packet: its version contradicts it.
	var p decode.Packet
	d.Decode(v6, pcapio.LinkTypeIPv4, len(v6), &p)
	if !p.Malformed || p.Kind != decode.KindOther {
		t.Errorf("IPv6 under LINKTYPE_IPV4: malformed %v kind %v", p.Malformed, p.Kind)
	}
}

// TestRoCEv1: a RoCEv1 WRITE Only (GRH, BTH, RETH, 64 payload bytes,
// ICRC): GRH PayLen = 12 + 16 + 64 + 4 = 96; GIDs as addresses, TClass as
// DSCP/ECN, no UDP, and the ICRC computed here byte by byte.
func TestRoCEv1(t *testing.T) {
	r := &synth.RoCE{Src: h6A, Dst: h6B, DSCP: 26, ECN: 3, TTL: 9,
		BTH:  decode.BTHFields{Opcode: decode.Opcode(0x0A), PKey: 0xFFFF, DestQP: 0x11, PSN: 100, FECN: true},
		RETH: decode.RETHFields{VA: 0x1000, RKey: 0x42, DMALen: 64}, Payload: 64}
	frame, err := r.FrameV1(synth.Wrap{})
	if err != nil {
		t.Fatal(err)
	}
	// 14 + GRH 40 + 96.
	if len(frame) != 150 || binary.BigEndian.Uint16(frame[12:]) != 0x8915 || binary.BigEndian.Uint16(frame[18:]) != 96 {
		t.Fatalf("frame of %d bytes, EtherType %#x, PayLen %d", len(frame), binary.BigEndian.Uint16(frame[12:]), binary.BigEndian.Uint16(frame[18:]))
	}
	// The ICRC by hand: FF x 8, the GRH with TClass/FlowLabel/HopLmt ones
	// (bytes 0 low nibble, 1-3, 7), the BTH with byte 4 ones, the rest.
	pkt := frame[14:]
	var in []byte
	in = append(in, bytes.Repeat([]byte{0xFF}, 8)...)
	grh := bytes.Clone(pkt[:40])
	grh[0] |= 0x0F
	grh[1], grh[2], grh[3], grh[7] = 0xFF, 0xFF, 0xFF, 0xFF
	bth := bytes.Clone(pkt[40:52])
	bth[4] = 0xFF
	in = append(append(append(in, grh...), bth...), pkt[52:len(pkt)-4]...)
	want := crc32.ChecksumIEEE(in)
	if got := binary.LittleEndian.Uint32(pkt[len(pkt)-4:]); got != want {
		t.Fatalf("stored ICRC %#x, computed by hand %#x", got, want)
	}
	d := decode.NewDecoder(decode.Config{})
	var p decode.Packet
	d.Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p)
	if p.Kind != decode.KindRoCE || !p.IsRoCEv1() || p.HasUDP || p.Malformed {
		t.Fatalf("kind %v v1 %v udp %v malformed %v (%s)", p.Kind, p.IsRoCEv1(), p.HasUDP, p.Malformed, p.Problem)
	}
	if p.SrcIP != netip.MustParseAddr("fd00::1") || p.DstIP != netip.MustParseAddr("fd00::2") ||
		p.DSCP != 26 || p.ECN != 3 || p.TTL != 9 || p.IPVersion != 6 {
		t.Errorf("GRH fields: %v -> %v dscp %d ecn %d ttl %d", p.SrcIP, p.DstIP, p.DSCP, p.ECN, p.TTL)
	}
	if p.BTH.DestQP != 0x11 || p.BTH.PSN != 100 || !p.BTH.FECN || p.RETH.DMALen != 64 || p.PayloadLen != 64 {
		t.Errorf("BTH %+v RETH %+v payload %d", p.BTH, p.RETH, p.PayloadLen)
	}
	if p.ICRCStatus != decode.ICRCOK || p.ICRC != want || p.FrameLen != 150 {
		t.Errorf("icrc %v %#x frame %d", p.ICRCStatus, p.ICRC, p.FrameLen)
	}
	js := string(p.AppendJSON(nil, "f", ""))
	for _, s := range []string{`"src_ip":"fd00::1"`, `"roce_version":1`, `"udp_sport":null`, `"icrc_status":"ok"`} {
		if !strings.Contains(js, s) {
			t.Errorf("JSON lacks %s: %s", s, js)
		}
	}
	if s := string(p.AppendSummary(nil, 0, 100e9)); !strings.Contains(s, "[RoCEv1]") || !strings.Contains(s, "fd00::1") {
		t.Errorf("summary %q", s)
	}
	if tree := string(decode.AppendTree(nil, pcapio.LinkTypeEthernet, &p, 100e9)); !strings.Contains(tree, "Global Route Header (RoCEv1), Source GID: fd00::1") {
		t.Errorf("tree:\n%s", tree)
	}
	// A flipped ICRC bit is bad; a PayLen beyond the frame malformed; a
	// capture cut inside the payload unchecked.
	bad := bytes.Clone(frame)
	bad[len(bad)-1] ^= 0x80
	d.Decode(bad, pcapio.LinkTypeEthernet, len(bad), &p)
	if p.ICRCStatus != decode.ICRCBad {
		t.Errorf("flipped ICRC: %v", p.ICRCStatus)
	}
	long := bytes.Clone(frame)
	binary.BigEndian.PutUint16(long[18:], 97)
	d.Decode(long, pcapio.LinkTypeEthernet, len(long), &p)
	if !p.Malformed || p.Kind != decode.KindOther {
		t.Errorf("PayLen 97 of 96: malformed %v kind %v", p.Malformed, p.Kind)
	}
	d.Decode(frame[:100], pcapio.LinkTypeEthernet, len(frame), &p)
	if p.Kind != decode.KindRoCE || p.ICRCStatus != decode.ICRCUnchecked || !p.Truncated || p.PayloadLen != 64 {
		t.Errorf("cut at 100: kind %v icrc %v truncated %v payload %d", p.Kind, p.ICRCStatus, p.Truncated, p.PayloadLen)
	}
	if a := testing.AllocsPerRun(100, func() { d.Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p) }); a != 0 {
		t.Errorf("%v allocations per RoCEv1 frame", a)
	}
}
