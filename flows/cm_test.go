package flows

import (
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// cmMsg is a UD SEND to QP1 carrying a CM REQ or REP.
func cmMsg(ts int64, fromA bool, cm decode.CMFields) *decode.Packet {
	src, dst := ipA, ipB
	if !fromA {
		src, dst = ipB, ipA
	}
	p := req(ts, src, dst, 1, decode.OpcodeUDSendOnly, 0)
	p.Ext = decode.ExtDETH
	p.DETH = decode.DETHFields{QKey: 0x80010000, SrcQP: 1}
	p.CM = cm
	return p
}

// TestCMPairing: A's QP 0x3d asks (REQ, comm ID 7) and B's QP 0x3b replies
// (REP, remote comm ID 7). With no ACK traffic to match PSNs on, only the
// CM exchange can pair A->B qp0x3b with B->A qp0x3d; an unrelated REP (comm
// ID 8) and a flow that merely shares the hosts stay unpaired.
func TestCMPairing(t *testing.T) {
	tb := run(t, Config{},
		cmMsg(1, true, decode.CMFields{Attr: decode.CMAttrREQ, LocalCommID: 7, LocalQPN: 0x3d}),
		cmMsg(2, false, decode.CMFields{Attr: decode.CMAttrREP, LocalCommID: 99, RemoteCommID: 8, LocalQPN: 0x50}),
		cmMsg(3, false, decode.CMFields{Attr: decode.CMAttrREP, LocalCommID: 99, RemoteCommID: 7, LocalQPN: 0x3b}),
		// Requests one way only (no ACKs): a SEND each way, far-apart PSNs.
		wr(10, 0x3b, 1000),
		req(11, ipB, ipA, 0x3d, decode.Opcode(decode.OpSendOnly), 5000),
		wr(12, 0x50, 77),
	)
	ab, ba := flowAB(tb, 0x3b), flowBA(tb, 0x3d)
	if ab.Peer() != ba || ba.Peer() != ab {
		t.Fatalf("CM pairing: A->B qp0x3b peer %v, B->A qp0x3d peer %v", ab.Peer(), ba.Peer())
	}
	if other := flowAB(tb, 0x50); other.Peer() != nil {
		t.Errorf("flow named by an unanswered REP got peer %v", other.Peer().ID())
	}
}

// TestCMPairingFlowsFirst: the data flows already exist when the REP comes.
func TestCMPairingFlowsFirst(t *testing.T) {
	tb := run(t, Config{},
		wr(1, 0x3b, 1000),
		req(2, ipB, ipA, 0x3d, decode.Opcode(decode.OpSendOnly), 5000),
		cmMsg(3, true, decode.CMFields{Attr: decode.CMAttrREQ, LocalCommID: 7, LocalQPN: 0x3d}),
		cmMsg(4, false, decode.CMFields{Attr: decode.CMAttrREP, LocalCommID: 99, RemoteCommID: 7, LocalQPN: 0x3b}),
	)
	if ab, ba := flowAB(tb, 0x3b), flowBA(tb, 0x3d); ab.Peer() != ba {
		t.Fatalf("peer %v, want %v", ab.Peer(), ba)
	}
}
