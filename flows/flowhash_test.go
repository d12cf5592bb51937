package flows

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// FlowHash is the hash the index files a flow under: ObserveFlowHash given
// it finds the flow ObserveFlow made for the same key (a different hash
// would probe elsewhere and start a second flow), and it is 0 exactly for
// frames of no flow.
func TestFlowHash(t *testing.T) {
	ip6A, ip6B := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	udp := func(src uint32) *decode.Packet {
		p := req(1, ipA, ipB, 0x1, decode.OpcodeUDSendOnly, 7)
		p.DETH.SrcQP = src
		return p
	}
	malformed := wr(1, 0x11, 5)
	malformed.Malformed = true
	cases := []struct {
		name   string
		p      *decode.Packet
		isFlow bool
	}{
		{"RC WRITE, IPv4", wr(1, 0x11, 5), true},
		{"ACK, the reverse flow", ack(1, 0x11, 5), true},
		{"RC SEND ONLY (0x04), IPv6", req(1, ip6A, ip6B, 0x22, decode.Opcode(0x04), 9), true},
		{"UD SEND, source QP 0x55", udp(0x55), true},
		{"UD SEND, source QP 0x66", udp(0x66), true},
		{"CNP", cnp(1, 0x11), true},
		{"malformed", malformed, false},
		{"PFC", pfcFrame(1, macA, 1, [8]uint16{1}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := FlowHash(c.p)
			if (h != 0) != c.isFlow {
				t.Fatalf("FlowHash = %#x, want a hash: %v", h, c.isFlow)
			}
			if !c.isFlow {
				return
			}
			k, _ := KeyOf(c.p)
			if want := hashKey(&k); h != want {
				t.Errorf("FlowHash = %#x, the index files the key under %#x", h, want)
			}
			tb := NewTable(Config{})
			for range 20 { // other flows in the index
				tb.Observe(wr(1, uint32(0x1000+len(tb.Flows())), 1))
			}
			f := tb.ObserveFlow(c.p)
			if g := tb.ObserveFlowHash(c.p, h); g != f || f == nil {
				t.Errorf("ObserveFlowHash(p, FlowHash(p)) = %v, ObserveFlow = %v", g, f)
			}
			if g := tb.ObserveFlowHash(c.p, 0); g != f {
				t.Errorf("ObserveFlowHash(p, 0) = %v, ObserveFlow = %v", g, f)
			}
			if n := len(tb.Flows()); n != 21 {
				t.Errorf("%d flows, want 21", n)
			}
		})
	}
}

// TestAddrBits checks that addrBits, which reads netip.Addr's words, folds
// every kind of address as addrBitsSafe does through netip's methods, and
// that the layout check passed (else addrBits only calls addrBitsSafe).
func TestAddrBits(t *testing.T) {
	if !addrLayoutOK {
		t.Fatal("netip.Addr is not laid out as addrWords says: addrBits takes the slow way")
	}
	for _, c := range []struct {
		name string
		a    netip.Addr
		want uint64 // 0: only compare with addrBitsSafe
	}{
		{"IPv4", netip.MustParseAddr("192.0.2.1"), 0xC000_0201},
		{"IPv4 0.0.0.0", netip.AddrFrom4([4]byte{}), 0},
		{"IPv4 broadcast", netip.MustParseAddr("255.255.255.255"), 0xFFFF_FFFF},
		{"IPv6", netip.MustParseAddr("2001:db8::1:2:3:4"), 0},
		{"IPv6 ::", netip.IPv6Unspecified(), 0},
		{"IPv4-mapped IPv6", netip.MustParseAddr("::ffff:192.0.2.1"), 0},
		{"IPv6 with a zone", netip.MustParseAddr("fe80::1%eth0"), 0},
		{"zero Addr", netip.Addr{}, 0},
	} {
		got, safe := addrBits(&c.a), addrBitsSafe(&c.a)
		if got != safe || c.want != 0 && got != c.want {
			t.Errorf("%s: addrBits %#x, addrBitsSafe %#x, want %#x", c.name, got, safe, c.want)
		}
	}
	a := netip.MustParseAddr("2001:db8::1:2:3:4")
	b := netip.MustParseAddr("2001:db8::1:2:3:5")
	if addrBits(&a) == addrBits(&b) {
		t.Error("two IPv6 addresses fold to the same bits")
	}
}
