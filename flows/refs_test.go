package flows

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// A Resolver gives one reference per key, in first-seen order, 0 to frames
// of no flow; the hash it returns is FlowHash's whenever it gives no
// reference; and ObserveFlowRef finds the flows ObserveFlow finds, through
// the index growing, a second Resolver, and a Clone.
func TestResolver(t *testing.T) {
	ip6A, ip6B := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	ud := func(src uint32, deth bool) *decode.Packet {
		p := req(1, ipA, ipB, 0x1, decode.OpcodeUDSendOnly, 7)
		p.DETH.SrcQP = src
		if !deth {
			p.Ext &^= decode.ExtDETH
		}
		return p
	}
	malformed := wr(1, 0x11, 5)
	malformed.Malformed = true
	var frames []*decode.Packet
	for q := range uint32(300) { // grows the Resolver's index twice, and the table's
		frames = append(frames, wr(1, 0x100+q, 5), ack(1, 0x100+q, 5))
	}
	frames = append(frames,
		req(1, ip6A, ip6B, 0x22, decode.Opcode(0x04), 9), req(1, ip6B, ip6A, 0x22, decode.Opcode(0x04), 9),
		req(1, ipA, ipB, 0x22, decode.Opcode(0x04), 9), // same QP, IPv4: another flow
		ud(0x55, true), ud(0x66, true), ud(0x55, false),
		cnp(1, 0x11), malformed, pfcFrame(1, macA, 1, [8]uint16{1}))
	frames = append(frames, frames...) // every key seen again

	want := NewTable(Config{})
	tb := NewTable(Config{})
	for round := range 2 {
		res := tb.NewResolver()
		refs := map[Key]uint32{}
		for i, p := range frames {
			h, ref := res.Resolve(p)
			k, isFlow := KeyOf(p)
			switch {
			case !isFlow && (ref != 0 || h != 0):
				t.Fatalf("frame %d of no flow: Resolve = %#x, %d", i, h, ref)
			case isFlow && ref == 0:
				t.Fatalf("frame %d: no reference", i)
			case isFlow && refs[k] == 0 && ref != uint32(len(refs)+1):
				t.Fatalf("frame %d, new key: reference %d, want %d", i, ref, len(refs)+1)
			case isFlow && refs[k] != 0 && ref != refs[k]:
				t.Fatalf("frame %d: reference %d, the key had %d", i, ref, refs[k])
			}
			if isFlow {
				refs[k] = ref
			}
			wf := want.ObserveFlow(p)
			if round == 1 && i == len(frames)/2 {
				tb = tb.Clone() // its references are empty: looked up by key
				wf = tb.FlowOf(p)
			}
			f := tb.ObserveFlowRef(p, h, ref)
			if (f == nil) != (wf == nil) || f != nil && f.Key != wf.Key {
				t.Fatalf("frame %d: ObserveFlowRef = %v, ObserveFlow = %v", i, f, wf)
			}
		}
	}
	if len(tb.Flows()) != len(want.Flows()) {
		t.Errorf("%d flows, ObserveFlow made %d", len(tb.Flows()), len(want.Flows()))
	}
}

// Past maxRefs keys, a Resolver gives no reference but FlowHash, to any
// frame, and the table finds the flow by key.
func TestResolverFull(t *testing.T) {
	tb := NewTable(Config{})
	res := tb.NewResolver()
	for q := range uint32(maxRefs) {
		if _, ref := res.Resolve(wr(1, 0x10000+q, 1)); ref != q+1 {
			t.Fatalf("key %d: reference %d", q, ref)
		}
	}
	p := wr(1, 0x11, 5)
	h, ref := res.Resolve(p)
	if ref != 0 || h != FlowHash(p) {
		t.Fatalf("Resolve past maxRefs = %#x, %d; want %#x, 0", h, ref, FlowHash(p))
	}
	known := wr(1, 0x10000, 1) // had reference 1: none any more
	if h, ref := res.Resolve(known); ref != 0 || h != FlowHash(known) {
		t.Fatalf("Resolve of a known key once full = %#x, %d; want %#x, 0", h, ref, FlowHash(known))
	}
	if f := tb.ObserveFlowRef(p, h, ref); f == nil || f != tb.FlowOf(p) {
		t.Errorf("ObserveFlowRef without a reference = %v", f)
	}
}

// addrWords reads the 128-bit value of a netip.Addr (the Resolver's hash).
func TestAddrWords(t *testing.T) {
	for _, c := range []struct {
		addr   string
		hi, lo uint64
	}{
		{"0011:2233:4455:6677:8899:aabb:ccdd:eeff", 0x0011223344556677, 0x8899aabbccddeeff},
		{"10.1.2.3", 0, 0x0000ffff0a010203},
	} {
		a := netip.MustParseAddr(c.addr)
		if hi, lo := addrWords(&a); hi != c.hi || lo != c.lo {
			t.Errorf("addrWords(%s) = %#x, %#x; want %#x, %#x", c.addr, hi, lo, c.hi, c.lo)
		}
	}
}
