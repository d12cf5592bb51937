package flows

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// TestHostGroupCollision checks that pairing and the CNP fallback keep, in
// a host group (keyed by a 64-bit hash of the address pair), only the
// flows of their own address pair: a hash collision, forced here by moving
// the flow C->D into A->B's group, must not change the result.
func TestHostGroupCollision(t *testing.T) {
	ipC, ipD := netip.MustParseAddr("10.0.0.3"), netip.MustParseAddr("10.0.0.4")
	op := decode.Opcode(decode.OpWriteOnly)
	tests := []struct {
		name      string
		last      *decode.Packet // the frame B->A observed after the collision
		wantPeer  bool           // A->B is paired with B->A
		wantCNPTo bool           // the CNP's target is A->B
	}{
		{"ack pairs with its own pair's flow", ack(300, 0x33, 100), true, false},
		{"cnp falls back to its own pair's flow", cnp(300, 0x11), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable(Config{})
			ab := tb.ObserveFlow(req(100, ipA, ipB, 0x11, op, 100))
			cd := tb.ObserveFlow(req(200, ipC, ipD, 0x22, op, 100))
			// The collision: C->D's group is A->B's.
			gAB := tb.hosts[hostPair{ipA, ipB}.hash()]
			gAB.flows = append(gAB.flows, cd)
			delete(tb.hosts, hostPair{ipC, ipD}.hash())
			ba := tb.ObserveFlow(tc.last)
			if got := ab.Peer() == ba && ba != nil; got != tc.wantPeer {
				t.Errorf("A->B paired with B->A: %v, want %v", got, tc.wantPeer)
			}
			if cd.Peer() != nil {
				t.Errorf("C->D paired with %s", cd.Peer().ID())
			}
			var target *Flow
			for _, e := range tb.Events() {
				if e.Kind == EventCNP {
					target = e.Target
				}
			}
			if got := target == ab; got != tc.wantCNPTo {
				t.Errorf("CNP target is A->B: %v (target %v), want %v", got, target, tc.wantCNPTo)
			}
		})
	}
}
