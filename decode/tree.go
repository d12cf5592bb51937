package decode

import (
	"fmt"
	"strconv"

	"github.com/rocetrace/rocetrace/pcapio"
)

// treeWriter appends an indented header tree.
type treeWriter struct{ b []byte }

func (t *treeWriter) head(format string, a ...any) {
	t.b = fmt.Appendf(t.b, format, a...)
	t.b = append(t.b, '\n')
}

func (t *treeWriter) line(format string, a ...any) {
	t.b = append(t.b, "    "...)
	t.head(format, a...)
}

// AppendTree appends the full header tree of a decoded frame, one header
// per block, in the style of tshark -V: the frame, link layer, VLAN tags,
// IP, UDP, BTH and each extended header, ICRC, or the MAC Control frame.
// link is the link type the packet was decoded from.
func AppendTree(b []byte, link pcapio.LinkType, p *Packet, linkBps int64) []byte {
	t := treeWriter{b: b}
	t.head("Frame %d: %d bytes on wire, %d bytes captured (offset %d)", p.Frame, p.Len, p.CapLen, p.Offset)
	t.line("Timestamp: %s ns", strconv.FormatInt(p.TsNs, 10))
	t.line("Link type: %s", link)
	t.line("Kind: %s", p.Kind)
	if p.Truncated {
		t.line("[Truncated: %d of %d bytes captured]", p.CapLen, p.Len)
	}
	if p.Malformed {
		t.line("[Malformed: %s]", p.Problem)
	}
	appendEncapTree(&t, p)
	if p.HasMAC {
		t.head("Ethernet II, Src: %s, Dst: %s", AppendMAC(nil, p.SrcMAC), AppendMAC(nil, p.DstMAC))
		if p.VLANCount > 0 {
			t.line("802.1Q tags: %d (outermost PCP %d, VID %d)", p.VLANCount, p.VLANPCP, p.VLANID)
		}
		if p.EtherType != 0 {
			t.line("Type: 0x%04x", p.EtherType)
		}
	}
	switch p.Kind {
	case KindPFC:
		t.head("MAC Control: Priority Flow Control (opcode 0x0101)")
		t.line("Class-enable vector: 0x%04x", p.PFCEnable)
		for i, q := range p.PFCQuanta {
			en := "disabled"
			if p.PFCEnable&(1<<i) != 0 {
				en = "enabled"
			}
			t.line("Priority %d (%s): %d quanta = %s", i, en, q, appendQuantaTime(nil, q, linkBps))
		}
	case KindPause:
		t.head("MAC Control: PAUSE (opcode 0x0001)")
		t.line("Pause time: %d quanta = %s", p.PauseQuanta, appendQuantaTime(nil, p.PauseQuanta, linkBps))
	case KindOther, KindRoCE, KindCNP:
	}
	switch {
	case p.IsRoCEv1():
		t.head("InfiniBand Global Route Header (RoCEv1), Source GID: %s, Destination GID: %s", p.SrcIP, p.DstIP)
	case p.IPVersion == 4:
		t.head("Internet Protocol Version 4, Src: %s, Dst: %s", p.SrcIP, p.DstIP)
	case p.IPVersion == 6:
		t.head("Internet Protocol Version 6, Src: %s, Dst: %s", p.SrcIP, p.DstIP)
	}
	if p.IPVersion != 0 {
		t.line("DSCP: %d, ECN: %d (%s)", p.DSCP, p.ECN, ecnName(p.ECN))
		t.line("TTL/Hop limit: %d, Protocol: %d", p.TTL, p.IPProto)
	}
	if p.Stop != StopNone {
		t.line("[Not decoded further: %s (%d)]", p.Stop, p.StopArg)
	}
	if p.HasUDP {
		t.head("User Datagram Protocol, Src Port: %d, Dst Port: %d", p.SrcPort, p.DstPort)
		t.line("Length: %d", p.UDPLen)
	}
	if p.BTHCut {
		t.head("Base Transport Header: [cut short by the capture]")
	}
	if p.HasBTH {
		appendBTHTree(&t, p)
	}
	return t.b
}

func appendBTHTree(t *treeWriter, p *Packet) {
	h := &p.BTH
	t.head("Base Transport Header")
	t.line("Opcode: %d (0x%02x) %s", uint8(h.Opcode), uint8(h.Opcode), h.Opcode)
	t.line("Solicited Event: %t, MigReq: %t, Pad Count: %d, Header Version: %d", h.SE, h.MigReq, h.Pad, h.TVer)
	t.line("Partition Key: 0x%04x (%d)", h.PKey, h.PKey)
	t.line("FECN: %t, BECN: %t", h.FECN, h.BECN)
	t.line("Destination Queue Pair: 0x%06x (%d)", h.DestQP, h.DestQP)
	t.line("Acknowledge Request: %t", h.AckReq)
	t.line("Packet Sequence Number: %d", h.PSN)
	if p.Ext&ExtXRCETH != 0 {
		t.head("XRC Extended Transport Header")
		t.line("XRC SRQ: 0x%06x", p.XRCSRQ)
	}
	if p.Ext&ExtDETH != 0 {
		t.head("Datagram Extended Transport Header")
		t.line("Queue Key: 0x%08x, Source Queue Pair: 0x%06x (%d)", p.DETH.QKey, p.DETH.SrcQP, p.DETH.SrcQP)
	}
	if p.Ext&ExtRETH != 0 {
		t.head("RDMA Extended Transport Header")
		t.line("Virtual Address: 0x%016x, Remote Key: 0x%08x, DMA Length: %d", p.RETH.VA, p.RETH.RKey, p.RETH.DMALen)
	}
	if p.Ext&ExtAETH != 0 {
		s := p.AETH.Syndrome
		t.head("ACK Extended Transport Header")
		t.line("Syndrome: 0x%02x (%s)", uint8(s), DescribeSyndrome(s))
		t.line("Message Sequence Number: %d", p.AETH.MSN)
	}
	if p.Ext&ExtAtomicETH != 0 {
		a := &p.AtomicETH
		t.head("Atomic Extended Transport Header")
		t.line("Virtual Address: 0x%016x, Remote Key: 0x%08x", a.VA, a.RKey)
		t.line("Swap/Add: 0x%016x, Compare: 0x%016x", a.SwapAdd, a.Compare)
	}
	if p.Ext&ExtAtomicAckETH != 0 {
		t.head("Atomic ACK Extended Transport Header")
		t.line("Original Remote Data: 0x%016x", p.AtomicAckOrig)
	}
	if p.Ext&ExtImmDt != 0 {
		t.head("Immediate Data: 0x%08x", p.Imm)
	}
	if p.Ext&ExtIETH != 0 {
		t.head("Invalidate Extended Transport Header: R_Key 0x%08x", p.IETHRKey)
	}
	if p.Ext&ExtCNP != 0 {
		t.head("Congestion Notification Packet: 16 reserved bytes")
	}
	if want := h.Opcode.ExtHeaders(); want&^p.Ext != 0 {
		t.head("[Extended headers cut short by the capture]")
	}
	if p.HasPayloadLen {
		t.head("Payload: %d bytes, pad %d", p.PayloadLen, h.Pad)
	}
	switch p.CM.Attr {
	case CMAttrREQ:
		t.line("CM ConnectRequest: Local Comm ID 0x%08x, Local QPN 0x%06x", p.CM.LocalCommID, p.CM.LocalQPN)
	case CMAttrREP:
		t.line("CM ConnectReply: Local Comm ID 0x%08x, Remote Comm ID 0x%08x, Local QPN 0x%06x",
			p.CM.LocalCommID, p.CM.RemoteCommID, p.CM.LocalQPN)
	}
	switch p.ICRCStatus {
	case ICRCOK:
		t.head("Invariant CRC: 0x%08x [correct]", p.ICRC)
	case ICRCBad:
		t.head("Invariant CRC: 0x%08x [incorrect]", p.ICRC)
	case ICRCUnchecked:
		t.head("Invariant CRC: [not captured, unchecked]")
	case ICRCMalformed:
		t.head("Invariant CRC: [not checked: the frame is malformed]")
	}
}

// DescribeSyndrome explains an AETH syndrome: "ACK, credits 31",
// "RNR NAK, timer 14 (1.28 ms)" or "NAK PSN_SEQUENCE_ERROR".
func DescribeSyndrome(s Syndrome) string {
	switch s.Kind() {
	case SyndromeACK:
		if s.Value() == 31 {
			return "ACK, no end-to-end credits"
		}
		return "ACK, credits " + strconv.Itoa(int(s.Value()))
	case SyndromeRNRNAK:
		return fmt.Sprintf("RNR NAK, timer %d (%s ms)", s.Value(),
			strconv.FormatFloat(float64(RNRTimerNs(s.Value()))/1e6, 'f', -1, 64))
	case SyndromeNAK:
		return "NAK " + NAKCodeName(s.Value())
	case SyndromeReserved:
	}
	return "reserved"
}

func ecnName(e uint8) string {
	switch e {
	case 1:
		return "ECT(1)"
	case 2:
		return "ECT(0)"
	case 3:
		return "CE"
	}
	return "Not-ECT"
}
