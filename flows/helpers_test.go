package flows

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

var (
	ipA  = netip.MustParseAddr("10.0.0.1")
	ipB  = netip.MustParseAddr("10.0.0.2")
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x0a}
	macB = [6]byte{0x02, 0, 0, 0, 0, 0x0b}
)

// base returns a RoCE frame with BTH fields set: DSCP 26, ECT(0), PCP 3.
func base(ts int64, src, dst netip.Addr, qp uint32, op decode.Opcode, psn uint32) *decode.Packet {
	return &decode.Packet{
		TsNs: ts, Kind: decode.KindRoCE, FrameLen: 100,
		SrcIP: src, DstIP: dst, IPVersion: 4, DSCP: 26, ECN: 2,
		VLANCount: 1, VLANPCP: 3,
		HasUDP: true, SrcPort: 49152, DstPort: 4791,
		HasBTH: true, BTH: decode.BTHFields{Opcode: op, DestQP: qp, PSN: psn},
		HasPayloadLen: true, ICRCStatus: decode.ICRCOK,
	}
}

// req returns a request frame with a payload of 64 bytes.
func req(ts int64, src, dst netip.Addr, qp uint32, op decode.Opcode, psn uint32) *decode.Packet {
	p := base(ts, src, dst, qp, op, psn)
	p.PayloadLen = 64
	p.FrameLen = 130 // any fixed wire length: the byte sums in the tests use 130 per request
	p.Ext = op.ExtHeaders()
	return p
}

// wr is an RC RDMA WRITE Only from A to B's QP qp.
func wr(ts int64, qp uint32, psn uint32) *decode.Packet {
	return req(ts, ipA, ipB, qp, decode.Opcode(decode.OpWriteOnly), psn)
}

// read is an RC RDMA READ Request with DMA length l.
func read(ts int64, qp uint32, psn uint32, l uint32) *decode.Packet {
	p := req(ts, ipA, ipB, qp, decode.Opcode(decode.OpReadRequest), psn)
	p.PayloadLen = 0
	p.RETH.DMALen = l
	return p
}

// resp is a READ response (B->A to QP qp) of operation op with payload n.
func resp(ts int64, qp uint32, op uint8, psn uint32, n int) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.Opcode(op), psn)
	p.Ext = decode.Opcode(op).ExtHeaders()
	p.PayloadLen = n
	return p
}

// ackS is an Acknowledge B->A with the given syndrome.
func ackS(ts int64, qp uint32, psn uint32, syn decode.Syndrome) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.Opcode(decode.OpAcknowledge), psn)
	p.Ext = decode.ExtAETH
	p.AETH.Syndrome = syn
	return p
}

func ack(ts int64, qp, psn uint32) *decode.Packet { return ackS(ts, qp, psn, 0x1F) }
func nak(ts int64, qp, psn uint32, code uint8) *decode.Packet {
	return ackS(ts, qp, psn, decode.Syndrome(0x60|code))
}
func rnr(ts int64, qp, psn uint32, timer uint8) *decode.Packet {
	return ackS(ts, qp, psn, decode.Syndrome(0x20|timer))
}

// cnp is a CNP B->A to QP qp (the reaction point's QP), DSCP 48 / PCP 6.
func cnp(ts int64, qp uint32) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.OpcodeCNP, 0)
	p.Kind = decode.KindCNP
	p.BTH.BECN = true
	p.Ext = decode.ExtCNP
	p.DSCP, p.ECN, p.VLANPCP = 48, 0, 6
	p.PayloadLen = 0
	return p
}

// ce marks a frame Congestion Experienced.
func ce(p *decode.Packet) *decode.Packet { p.ECN = 3; return p }

func pfcFrame(ts int64, mac [6]byte, enable uint16, quanta [8]uint16) *decode.Packet {
	return &decode.Packet{TsNs: ts, Kind: decode.KindPFC, SrcMAC: mac, HasMAC: true, FrameLen: 64,
		MACControlFields: decode.MACControlFields{PFCEnable: enable, PFCQuanta: quanta}}
}

func pauseFrame(ts int64, mac [6]byte, q uint16) *decode.Packet {
	return &decode.Packet{TsNs: ts, Kind: decode.KindPause, SrcMAC: mac, HasMAC: true, FrameLen: 64, MACControlFields: decode.MACControlFields{PauseQuanta: q}}
}

// run observes the packets into a new table and finishes it.
func run(t *testing.T, cfg Config, ps ...*decode.Packet) *Table {
	t.Helper()
	tb := NewTable(cfg)
	for _, p := range ps {
		tb.Observe(p)
	}
	tb.Finish()
	return tb
}

func flowAB(tb *Table, qp uint32) *Flow {
	return tb.Flow(Key{Src: ipA, Dst: ipB, DstQPN: qp})
}

func flowBA(tb *Table, qp uint32) *Flow {
	return tb.Flow(Key{Src: ipB, Dst: ipA, DstQPN: qp})
}

// ev is a compact event for comparisons.
type ev struct {
	Kind     string
	Ts       int64
	Flow     string
	PSN      uint32
	Expected uint32
	N        int64 // missing / packets / frames
	Extra    int64 // after_nak_ns / timer_ns / ecn_to_cnp_ns / duration_ns; -1 = null
	Target   string
}

func compact(tb *Table) []ev {
	var out []ev
	for _, e := range tb.Events() {
		c := ev{Kind: e.Kind.String(), Ts: e.TsNs, PSN: uint32(e.PSN), Extra: -1}
		if e.Flow != nil {
			c.Flow = e.Flow.ID()
		}
		if e.Target != nil {
			c.Target = e.Target.ID()
		}
		switch e.Kind {
		case EventPSNGap:
			c.Expected, c.N = uint32(e.ExpectedPSN()), e.Missing()
		case EventPSNConflict:
			c.Expected, c.N = uint32(e.ReadPSN()), int64(e.ReadSpan())
		case EventRetransmission:
			c.N = e.Packets()
			if e.HasAfterNAK() {
				c.Extra = e.AfterNAKNs()
			}
		case EventNAK:
			c.N = int64(e.Code())
		case EventRNRNAK:
			c.N, c.Extra = int64(e.Code()), e.TimerNs()
		case EventCNP:
			if e.HasECNToCNP() {
				c.Extra = e.ECNToCNPNs()
			}
		case EventPause:
			c.N, c.Extra, c.PSN = e.Frames(), e.DurationNs(), uint32(int32(e.Priority()))
		}
		out = append(out, c)
	}
	return out
}

func checkEvents(t *testing.T, tb *Table, want []ev) {
	t.Helper()
	got := compact(tb)
	if len(got) != len(want) {
		t.Errorf("got %d events, want %d", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w ev
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("event %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
