package capture

import (
	"encoding/binary"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// runFilter runs prog on frame in x/net/bpf's VM and returns the number
// of bytes it keeps (0: dropped).
func runFilter(t *testing.T, prog []bpf.Instruction, frame []byte) int {
	t.Helper()
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatalf("NewVM: %v", err)
	}
	n, err := vm.Run(frame)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return min(n, len(frame)) // the kernel keeps at most the frame
}

func roceFrame(t *testing.T, src, dst synth.Endpoint, port uint16, w synth.Wrap) []byte {
	t.Helper()
	r := &synth.RoCE{Src: src, Dst: dst, DstPort: port, ECN: 2,
		BTH:     decode.BTHFields{Opcode: decode.Opcode(decode.OpSendOnly), DestQP: 0x11, PSN: 7, PKey: 0xFFFF},
		Payload: 64}
	b, err := r.Frame(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func serialize(t *testing.T, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

var (
	macA = []byte{2, 0, 0, 0, 0, 1}
	macB = []byte{2, 0, 0, 0, 0, 2}
	ip4A = []byte{10, 0, 0, 1}
	ip4B = []byte{10, 0, 0, 2}
	ip6A = []byte{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	ip6B = []byte{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
)

func udp4(t *testing.T, sport, dport uint16) []byte {
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: ip4A, DstIP: ip4B}
	u := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	_ = u.SetNetworkLayerForChecksum(ip)
	return serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, ip, u, gopacket.Payload(make([]byte, 32)))
}

// gre6 returns an ERSPAN-style GRE frame over IPv6 carrying inner.
func gre6(t *testing.T, proto layers.EthernetType, inner []byte) []byte {
	ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolGRE, SrcIP: ip6A, DstIP: ip6B}
	return serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv6}, ip,
		&layers.GRE{Protocol: proto}, gopacket.Payload(inner))
}

// stripTag removes the outermost VLAN tag, as VLAN acceleration does
// before the kernel runs a socket filter.
func stripTag(b []byte) []byte {
	out := append([]byte(nil), b[:12]...)
	return append(out, b[16:]...)
}

func TestFilterProgram(t *testing.T) {
	h1, h2 := synth.Host(1), synth.Host(2)
	h61, h62 := synth.Host6(1), synth.Host6(2)
	tag := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 10}}}
	qinq := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 3, VID: 10}}, QinQ: true}
	fourTags := synth.Wrap{VLANs: []synth.VLAN{{VID: 1}, {VID: 2}, {VID: 3}, {VID: 4}}}
	fiveTags := synth.Wrap{VLANs: []synth.VLAN{{VID: 1}, {VID: 2}, {VID: 3}, {VID: 4}, {VID: 5}}}
	roce4 := roceFrame(t, h1, h2, 0, synth.Wrap{})

	// IPv4 with options (IHL 6): the UDP header moves by 4 bytes.
	opt := func() []byte {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: ip4A, DstIP: ip4B,
			Options: []layers.IPv4Option{{OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 0}}}
		u := &layers.UDP{SrcPort: 49152, DstPort: 4791}
		_ = u.SetNetworkLayerForChecksum(ip)
		b := serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, ip, u, gopacket.Payload(make([]byte, 40)))
		if b[14]&0x0F != 6 {
			t.Fatalf("IHL %d, want 6", b[14]&0x0F)
		}
		return b
	}()
	frag := func(off uint16) []byte {
		b := append([]byte(nil), roce4...)
		binary.BigEndian.PutUint16(b[14+6:], off)
		return b
	}
	tcp := func() []byte {
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: ip4A, DstIP: ip4B}
		l4 := &layers.TCP{SrcPort: 4791, DstPort: 4791}
		_ = l4.SetNetworkLayerForChecksum(ip)
		return serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4}, ip, l4, gopacket.Payload(make([]byte, 8)))
	}()
	arp := serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP},
		&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: 1, SourceHwAddress: macA, SourceProtAddress: ip4A, DstHwAddress: make([]byte, 6), DstProtAddress: ip4B})
	gre4 := func(proto layers.EthernetType) []byte {
		return serialize(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeIPv4},
			&layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolGRE, SrcIP: ip4A, DstIP: ip4B},
			&layers.GRE{Protocol: proto}, gopacket.Payload(roce4))
	}
	mirrored := func(typ int, vlans []synth.VLAN) []byte {
		return roceFrame(t, h1, h2, 0, synth.Wrap{ERSPAN: typ, MirrorVLAN: vlans, VLANs: tag.VLANs})
	}

	cases := []struct {
		name string
		b    []byte
		keep bool
	}{
		{"RoCE IPv4", roce4, true},
		{"RoCE IPv6", roceFrame(t, h61, h62, 0, synth.Wrap{}), true},
		{"RoCE IPv4 802.1Q", roceFrame(t, h1, h2, 0, tag), true},
		{"RoCE IPv6 802.1Q", roceFrame(t, h61, h62, 0, tag), true},
		{"RoCE IPv4 802.1ad+802.1Q", roceFrame(t, h1, h2, 0, qinq), true},
		{"RoCE IPv4 tag removed by VLAN acceleration", stripTag(roceFrame(t, h1, h2, 0, tag)), true},
		{"RoCE IPv4 four tags", roceFrame(t, h1, h2, 0, fourTags), true},
		{"RoCE IPv4 five tags", roceFrame(t, h1, h2, 0, fiveTags), false},
		{"RoCE IPv4 with IP options", opt, true},
		{"RoCE IPv4 first fragment (MF)", frag(0x2000), true},
		{"IPv4 non-first fragment", frag(0x0010), false},
		{"CNP", func() []byte {
			r := &synth.RoCE{Src: h2, Dst: h1, BTH: decode.BTHFields{Opcode: decode.Opcode(0x81), DestQP: 0x11, PKey: 0xFFFF, BECN: true}}
			b, err := r.Frame(synth.Wrap{})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}(), true},
		{"PFC", synth.PFC([6]byte(macA), 1<<3, [8]uint16{3: 0xFFFF}), true},
		{"PAUSE", synth.Pause([6]byte(macA), 100), true},
		{"ERSPAN I", mirrored(1, nil), true},
		{"ERSPAN II", mirrored(2, nil), true},
		{"ERSPAN III", mirrored(3, nil), true},
		{"ERSPAN III on a tagged mirror VLAN", mirrored(3, []synth.VLAN{{VID: 99}}), true},
		{"GRE TEB over IPv4", gre4(layers.EthernetTypeTransparentEthernetBridging), true},
		{"GRE ERSPAN III over IPv6", gre6(t, layers.EthernetType(0x22EB), roce4), true},
		{"GRE ERSPAN II over IPv6", gre6(t, layers.EthernetTypeERSPAN, roce4), true},
		{"GRE IPv4-in-GRE", gre4(layers.EthernetTypeIPv4), false},
		{"GRE IPv4-in-GRE over IPv6", gre6(t, layers.EthernetTypeIPv4, roce4[14:]), false},
		{"UDP to another port", udp4(t, 4791, 4792), false},
		{"UDP from the RoCE port (source ports are entropy)", udp4(t, 4791, 53), false},
		{"RoCE on another port", roceFrame(t, h1, h2, 4792, synth.Wrap{}), false},
		{"TCP to 4791", tcp, false},
		{"ARP", arp, false},
		{"empty", nil, false},
		{"runt", roce4[:13], false},
		{"IPv4 cut before UDP", roce4[:14+20+1], false},
	}
	prog := FilterProgram(0, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := runFilter(t, prog, c.b)
			if got := n > 0; got != c.keep {
				t.Errorf("filter keeps %d bytes of %d, want keep=%v", n, len(c.b), c.keep)
			}
			if c.keep && n != len(c.b) {
				t.Errorf("filter keeps %d of %d bytes, want the whole frame", n, len(c.b))
			}
		})
	}

	// Every frame of every scenario capture is something rocetrace wants.
	for _, s := range synth.Scenarios() {
		for i, f := range s.Build().Frames {
			if n := runFilter(t, prog, f.Data); n != len(f.Data) {
				t.Errorf("%s frame %d: filter keeps %d of %d bytes", s.Name, i+1, n, len(f.Data))
			}
		}
	}
}

func TestFilterPortAndSnaplen(t *testing.T) {
	b := roceFrame(t, synth.Host(1), synth.Host(2), 4792, synth.Wrap{})
	if n := runFilter(t, FilterProgram(4791, 0), b); n != 0 {
		t.Errorf("port 4791 filter keeps a frame to 4792")
	}
	if n := runFilter(t, FilterProgram(4792, 0), b); n != len(b) {
		t.Errorf("port 4792 filter keeps %d of %d bytes", n, len(b))
	}
	if n := runFilter(t, FilterProgram(4792, 64), b); n != 64 {
		t.Errorf("snaplen 64: keeps %d bytes", n)
	}
	if n := runFilter(t, AcceptAllProgram(0), []byte{1, 2, 3}); n != 3 {
		t.Errorf("accept-all keeps %d of 3 bytes", n)
	}
	if n := runFilter(t, AcceptAllProgram(2), []byte{1, 2, 3}); n != 2 {
		t.Errorf("accept-all snaplen 2 keeps %d bytes", n)
	}
}

// TestFilterTruncated runs the filter on every prefix of a few frames: a
// load past the end drops the frame (as in the kernel), never panics, and a
// prefix that still reaches the deciding field is kept.
func TestFilterTruncated(t *testing.T) {
	prog := FilterProgram(0, 0)
	for _, b := range [][]byte{
		roceFrame(t, synth.Host(1), synth.Host(2), 0, synth.Wrap{VLANs: []synth.VLAN{{VID: 5}}}),
		roceFrame(t, synth.Host6(1), synth.Host6(2), 0, synth.Wrap{ERSPAN: 3}),
	} {
		for n := range len(b) {
			runFilter(t, prog, b[:n])
		}
	}
}

func TestFilterAssembles(t *testing.T) {
	raw, err := assemble(FilterProgram(4791, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > maxInstructions {
		t.Fatalf("%d instructions", len(raw))
	}
	t.Logf("filter: %d instructions", len(raw))
}
