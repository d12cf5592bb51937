package filter

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// TestLookup: every field name has a getter of its type, whose values are
// those a filter compares.
func TestLookup(t *testing.T) {
	for _, n := range Fields() {
		g, ok := Lookup(n)
		if !ok || g.Type() != FieldType(n) || g.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, g.Type(), ok)
		}
	}
	if _, ok := Lookup("ip.sr"); ok {
		t.Error(`Lookup("ip.sr") found a field`)
	}
	// A BTH packet 10.0.0.1 -> 10.0.0.2, QP 0x11, PSN 1003, AckReq.
	p := &decode.Packet{HasBTH: true, IPVersion: 4, SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		BTH: decode.BTHFields{DestQP: 0x11, PSN: 1003, AckReq: true}}
	fr := &Frame{Flow: "f"}
	tests := []struct {
		name string
		i    int
		want any // nil: absent
	}{
		{"psn", 0, uint64(1003)},
		{"psn", 1, nil},
		{"infiniband.bth.destqp", 0, uint64(0x11)},
		{"ip.addr", 0, netip.MustParseAddr("10.0.0.1")},
		{"ip.addr", 1, netip.MustParseAddr("10.0.0.2")},
		{"ip.addr", 2, nil},
		{"ipv6.src", 0, nil},
		{"ackreq", 0, true},
		{"flow", 0, "f"},
		{"reth_va", 0, nil},
	}
	for _, tc := range tests {
		g, _ := Lookup(tc.name)
		var got any
		switch g.Type() {
		case TypeInt:
			if v, ok := g.Int(p, fr, tc.i); ok {
				got = v
			}
		case TypeIP:
			if v, ok := g.IP(p, fr, tc.i); ok {
				got = v
			}
		case TypeBool:
			if v, ok := g.Bool(p, fr); ok {
				got = v
			}
		case TypeString:
			if v, ok := g.String(p, fr); ok {
				got = v
			}
		}
		if got != tc.want {
			t.Errorf("%s[%d] = %v, want %v", tc.name, tc.i, got, tc.want)
		}
	}
	// The wrong type's method reports no value.
	g, _ := Lookup("psn")
	if _, ok := g.IP(p, fr, 0); ok {
		t.Error("psn has an IP value")
	}
}
