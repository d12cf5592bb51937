package flows

import (
	"net/netip"

	"github.com/rocetrace/rocetrace/decode"
)

// cmKey identifies a CM REQ: the requester's address and communication ID.
type cmKey struct {
	src    netip.Addr
	commID uint32
}

// cmReq is what a REQ tells: who asked, whom, and the requester's QP.
type cmReq struct {
	src, dst netip.Addr
	qpn      uint32
}

// observeCM pairs QPs from a captured CM exchange: a REQ names the active
// side's QP, the REP that answers it (RemoteCommID = the REQ's
// LocalCommID) names the passive side's. The two RC flows of the
// connection are then peers, whether they appear before or after.
func (t *Table) observeCM(p *decode.Packet) {
	switch p.CM.Attr {
	case decode.CMAttrREQ:
		if t.cmReqs == nil {
			t.cmReqs = make(map[cmKey]cmReq)
		}
		t.cmReqs[cmKey{p.SrcIP, p.CM.LocalCommID}] = cmReq{p.SrcIP, p.DstIP, p.CM.LocalQPN}
	case decode.CMAttrREP:
		req, ok := t.cmReqs[cmKey{p.DstIP, p.CM.RemoteCommID}]
		if !ok || req.dst != p.SrcIP {
			return
		}
		// Requests from the active side go to the passive QP, and back.
		a := Key{Src: req.src, Dst: req.dst, DstQPN: p.CM.LocalQPN}
		b := Key{Src: req.dst, Dst: req.src, DstQPN: req.qpn}
		if t.cmPairs == nil {
			t.cmPairs = make(map[Key]Key)
		}
		t.cmPairs[a], t.cmPairs[b] = b, a
		t.cmLink(a, b)
	}
}

// cmLink links the flows with keys a and b when both exist and neither
// has a peer yet.
func (t *Table) cmLink(a, b Key) {
	fa, fb := t.flows.get(&a), t.flows.get(&b)
	if fa != nil && fb != nil && !fa.paired() && !fb.paired() {
		link(fa, fb)
	}
}
