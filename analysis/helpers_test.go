package analysis

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

var (
	ipA  = netip.MustParseAddr("10.0.0.1")
	ipB  = netip.MustParseAddr("10.0.0.2")
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x0a}
	macB = [6]byte{0x02, 0, 0, 0, 0, 0x0b}
)

// t0 is the capture's start in these tests: 2024-01-01 00:00:00 UTC.
const t0 int64 = 1_704_067_200_000_000_000

func base(ts int64, src, dst netip.Addr, qp uint32, op decode.Opcode, psn uint32) *decode.Packet {
	return &decode.Packet{
		TsNs: t0 + ts, Kind: decode.KindRoCE, FrameLen: 130, Len: 130, CapLen: 130,
		SrcIP: src, DstIP: dst, IPVersion: 4, DSCP: 26, ECN: 2,
		VLANCount: 1, VLANPCP: 3,
		HasUDP: true, SrcPort: 49152, DstPort: 4791,
		HasBTH: true, BTH: decode.BTHFields{Opcode: op, DestQP: qp, PSN: psn},
		Ext: op.ExtHeaders(), HasPayloadLen: true, ICRCStatus: decode.ICRCOK,
	}
}

// wr: RC RDMA WRITE Only A->B, 64 bytes of payload.
func wr(ts int64, qp, psn uint32) *decode.Packet {
	p := base(ts, ipA, ipB, qp, decode.Opcode(decode.OpWriteOnly), psn)
	p.PayloadLen = 64
	return p
}

func ackS(ts int64, qp, psn uint32, syn decode.Syndrome) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.Opcode(decode.OpAcknowledge), psn)
	p.FrameLen, p.Len, p.CapLen = 62, 62, 62
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

func cnp(ts int64, qp uint32) *decode.Packet {
	p := base(ts, ipB, ipA, qp, decode.OpcodeCNP, 0)
	p.Kind = decode.KindCNP
	p.BTH.BECN = true
	p.DSCP, p.ECN, p.VLANPCP = 48, 0, 6
	p.FrameLen, p.Len, p.CapLen = 78, 78, 78
	return p
}

func ce(p *decode.Packet) *decode.Packet { p.ECN = 3; return p }

func ud(ts int64, srcQP, psn uint32) *decode.Packet {
	p := base(ts, ipA, ipB, 1, decode.OpcodeUDSendOnly, psn)
	p.DETH.SrcQP = srcQP
	p.PayloadLen = 256
	return p
}

func pfcFrame(ts int64, mac [6]byte, prio int, q uint16) *decode.Packet {
	p := &decode.Packet{TsNs: t0 + ts, Kind: decode.KindPFC, SrcMAC: mac, HasMAC: true, FrameLen: 64, Len: 64, CapLen: 64,
		MACControlFields: decode.MACControlFields{PFCEnable: 1 << prio}}
	p.PFCQuanta[prio] = q
	return p
}

func pauseFrame(ts int64, mac [6]byte, q uint16) *decode.Packet {
	return &decode.Packet{TsNs: t0 + ts, Kind: decode.KindPause, SrcMAC: mac, HasMAC: true, FrameLen: 64, Len: 64, CapLen: 64, MACControlFields: decode.MACControlFields{PauseQuanta: q}}
}

// build runs the packets through a Counter and a Table and builds the report.
func build(t *testing.T, cfg flows.Config, opts Options, ps ...*decode.Packet) Report {
	t.Helper()
	tb := flows.NewTable(cfg)
	var c Counter
	for _, p := range ps {
		c.Observe(p)
		tb.Observe(p)
	}
	return Build(tb, c.Summary([]string{"test.pcap"}), opts)
}

func codes(r Report) map[string]int {
	m := map[string]int{}
	for _, f := range r.Findings {
		m[f.Code]++
	}
	return m
}
