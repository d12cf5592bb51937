package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// TestFlowVLANAndPorts: the VLAN tag of a flow's first non-CNP frame (of
// its first CNP while it has only CNPs), the flag when later frames differ,
// and the UDP source ports (first, count, more than maxPorts).
func TestFlowVLANAndPorts(t *testing.T) {
	tag := func(p *decode.Packet, vid uint16, pcp uint8) *decode.Packet {
		p.VLANCount, p.VLANID, p.VLANPCP = 1, vid, pcp
		return p
	}
	untag := func(p *decode.Packet) *decode.Packet {
		p.VLANCount, p.VLANID, p.VLANPCP = 0, 0, 0
		return p
	}
	port := func(p *decode.Packet, sp uint16) *decode.Packet { p.SrcPort = sp; return p }
	manyPorts := func() []*decode.Packet {
		var ps []*decode.Packet
		for i := range 10 { // 10 distinct ports: 8 remembered, then "more"
			ps = append(ps, port(wr(int64(i+1), 7, uint32(i)), uint16(5000+i)))
		}
		return ps
	}
	cases := []struct {
		name      string
		frames    []*decode.Packet
		flow      func(*Table) *Flow
		want      VLAN
		port      uint16
		hasPort   bool
		nPorts    int
		morePorts bool
	}{
		{"one tagged frame", []*decode.Packet{tag(wr(1, 7, 0), 100, 3)}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, ID: 100, PCP: 3}, 49152, true, 1, false},
		{"same tag twice", []*decode.Packet{tag(wr(1, 7, 0), 100, 3), tag(wr(2, 7, 1), 100, 3)}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, ID: 100, PCP: 3}, 49152, true, 1, false},
		{"other VLAN id later", []*decode.Packet{tag(wr(1, 7, 0), 100, 3), tag(wr(2, 7, 1), 101, 3)}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, ID: 100, PCP: 3, Mixed: true}, 49152, true, 1, false},
		{"other PCP later", []*decode.Packet{tag(wr(1, 7, 0), 100, 3), tag(wr(2, 7, 1), 100, 0)}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, ID: 100, PCP: 3, Mixed: true}, 49152, true, 1, false},
		{"priority tag then untagged", []*decode.Packet{tag(wr(1, 7, 0), 0, 0), untag(wr(2, 7, 1))}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, Mixed: true}, 49152, true, 1, false},
		{"untagged", []*decode.Packet{untag(wr(1, 7, 0)), untag(wr(2, 7, 1))}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{}, 49152, true, 1, false},
		{"two source ports", []*decode.Packet{port(wr(1, 7, 0), 7000), port(wr(2, 7, 1), 7001), port(wr(3, 7, 2), 7000)}, func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, PCP: 3}, 7000, true, 2, false},
		{"more ports than remembered", manyPorts(), func(tb *Table) *Flow { return flowAB(tb, 7) },
			VLAN{Tagged: true, PCP: 3}, 5000, true, maxPorts, true},
		// A CNP-only flow takes its first CNP's tag; a CNP with another
		// tag is noted as mixed. CNPs have no remembered source port.
		{"CNPs only", []*decode.Packet{tag(cnp(1, 9), 200, 6), tag(cnp(2, 9), 200, 5)}, func(tb *Table) *Flow { return flowBA(tb, 9) },
			VLAN{Tagged: true, ID: 200, PCP: 6, Mixed: true}, 0, false, 0, false},
		// The first non-CNP frame replaces a CNP's tag (and its flag),
		// and later CNPs are not compared with it.
		{"CNP then data", []*decode.Packet{tag(cnp(1, 9), 200, 6), tag(cnp(2, 9), 201, 6),
			tag(resp(3, 9, decode.OpAcknowledge, 0, 0), 300, 3), tag(cnp(4, 9), 200, 6)}, func(tb *Table) *Flow { return flowBA(tb, 9) },
			VLAN{Tagged: true, ID: 300, PCP: 3}, 49152, true, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.flow(run(t, Config{}, tc.frames...))
			if got := f.VLAN(); got != tc.want {
				t.Errorf("VLAN() = %+v, want %+v", got, tc.want)
			}
			p, ok := f.FirstSrcPort()
			if p != tc.port || ok != tc.hasPort {
				t.Errorf("FirstSrcPort() = %d, %t, want %d, %t", p, ok, tc.port, tc.hasPort)
			}
			if n, more := f.NumSrcPorts(); n != tc.nPorts || more != tc.morePorts {
				t.Errorf("NumSrcPorts() = %d, %t, want %d, %t", n, more, tc.nPorts, tc.morePorts)
			}
		})
	}
}
