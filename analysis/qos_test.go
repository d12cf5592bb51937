package analysis

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// TestFlowQoSFields: dscp (lowest, dscp_mixed), vlan_id / pcp (first
// non-CNP frame, null untagged), vlan_mixed, src_port / src_ports of the
// report's flows, worked out from the frames by hand.
func TestFlowQoSFields(t *testing.T) {
	n := func(v int) *int { return &v }
	with := func(p *decode.Packet, dscp uint8, tagged bool, vid uint16, pcp uint8, port uint16) *decode.Packet {
		p.DSCP, p.SrcPort = dscp, port
		p.VLANCount, p.VLANID, p.VLANPCP = 0, 0, 0
		if tagged {
			p.VLANCount, p.VLANID, p.VLANPCP = 1, vid, pcp
		}
		return p
	}
	type want struct {
		dscp         int
		dscpMixed    bool
		vlanID, pcp  *int
		vlanMixed    bool
		srcPort      *int
		srcPorts     int
		srcPortsMore bool
	}
	cases := []struct {
		name   string
		frames []*decode.Packet
		want   want
	}{
		{"tagged, one port", []*decode.Packet{with(wr(1, 7, 0), 26, true, 100, 3, 49152), with(wr(2, 7, 1), 26, true, 100, 3, 49152)},
			want{26, false, n(100), n(3), false, n(49152), 1, false}},
		{"untagged, two ports, two DSCPs", []*decode.Packet{with(wr(1, 7, 0), 26, false, 0, 0, 5000), with(wr(2, 7, 1), 10, false, 0, 0, 5001)},
			want{10, true, nil, nil, false, n(5000), 2, false}},
		{"PCP changes", []*decode.Packet{with(wr(1, 7, 0), 26, true, 0, 3, 5000), with(wr(2, 7, 1), 26, true, 0, 0, 5000)},
			want{26, false, n(0), n(3), true, n(5000), 1, false}},
		// A flow of CNPs: their DSCP and tag; no source port.
		{"CNPs only", []*decode.Packet{with(cnp(1, 9), 48, true, 100, 6, 1), with(cnp(2, 9), 48, true, 100, 6, 2)},
			want{48, false, n(100), n(6), false, nil, 0, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, flows.Config{}, Options{}, tc.frames...)
			if len(r.Flows) != 1 {
				t.Fatalf("%d flows, want 1", len(r.Flows))
			}
			f := r.Flows[0]
			got := want{f.DSCP, f.DSCPMixed, f.VLANID, f.PCP, f.VLANMixed, f.SrcPort, f.SrcPorts, f.SrcPortsMore}
			if !eqWant(got.vlanID, tc.want.vlanID) || !eqWant(got.pcp, tc.want.pcp) || !eqWant(got.srcPort, tc.want.srcPort) ||
				got.dscp != tc.want.dscp || got.dscpMixed != tc.want.dscpMixed || got.vlanMixed != tc.want.vlanMixed ||
				got.srcPorts != tc.want.srcPorts || got.srcPortsMore != tc.want.srcPortsMore {
				t.Errorf("got dscp %d mixed %t vlan %v pcp %v mixed %t port %v ports %d more %t, want %+v",
					got.dscp, got.dscpMixed, show(got.vlanID), show(got.pcp), got.vlanMixed, show(got.srcPort), got.srcPorts, got.srcPortsMore, tc.want)
			}
		})
	}
}

func eqWant(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
