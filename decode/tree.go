package decode

import (
	"fmt"
	"strconv"

	"github.com/rocetrace/rocetrace/pcapio"
)

// treeWriter appends an indented header tree and, for TreeLines, collects
// its lines with the bytes each describes (at sets them for the lines that
// follow; lay says where the headers are).
type treeWriter struct {
	b       []byte
	collect bool       // append each line to lines too
	lines   []TreeLine // the lines (collect)
	lay     layout     // where the headers are (collect; zero otherwise)
	off, n  int        // the bytes of the next lines: b[off:off+n]; n 0 none
}

// at sets the bytes the next lines describe: n bytes from off (n <= 0 or
// off < 0: none).
func (t *treeWriter) at(off, n int) {
	if off < 0 || n < 0 {
		off, n = 0, 0
	}
	t.off, t.n = off, n
}

func (t *treeWriter) head(format string, a ...any) { t.add(false, format, a...) }

func (t *treeWriter) line(format string, a ...any) {
	t.b = append(t.b, "    "...)
	t.add(true, format, a...)
}

func (t *treeWriter) add(field bool, format string, a ...any) {
	start := len(t.b)
	t.b = fmt.Appendf(t.b, format, a...)
	if t.collect {
		t.lines = append(t.lines, TreeLine{Text: string(t.b[start:]), Field: field, Off: t.off, Len: t.n})
	}
	t.b = append(t.b, '\n')
}

// AppendTree appends the full header tree of a decoded frame, one header
// per block, in the style of tshark -V: the frame, link layer, VLAN tags,
// IP, UDP, BTH and each extended header, ICRC, or the MAC Control frame.
// link is the link type the packet was decoded from.
func AppendTree(b []byte, link pcapio.LinkType, p *Packet, linkBps int64) []byte {
	t := treeWriter{b: b}
	appendTree(&t, link, p, linkBps)
	return t.b
}

func appendTree(t *treeWriter, link pcapio.LinkType, p *Packet, linkBps int64) {
	l := &t.lay
	t.at(0, 0)
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
	t.at(l.encap, l.encapLen)
	appendEncapTree(t, p)
	appendLinkTree(t, p, linkBps)
	appendIPTree(t, p)
}

// appendLinkTree appends the Ethernet header and a MAC Control frame.
func appendLinkTree(t *treeWriter, p *Packet, linkBps int64) {
	l := &t.lay
	if p.HasMAC {
		t.at(l.eth, l.ethLen)
		t.head("Ethernet II, Src: %s, Dst: %s", AppendMAC(nil, p.SrcMAC), AppendMAC(nil, p.DstMAC))
		if p.VLANCount > 0 {
			t.at(l.eth+12, 4*int(p.VLANCount))
			t.line("802.1Q tags: %d (outermost PCP %d, VID %d)", p.VLANCount, p.VLANPCP, p.VLANID)
		}
		if p.EtherType != 0 {
			t.at(l.etherType, 2)
			t.line("Type: 0x%04x", p.EtherType)
		}
	}
	switch p.Kind {
	case KindPFC:
		t.at(l.l3, macControlPFCLen)
		t.head("MAC Control: Priority Flow Control (opcode 0x0101)")
		t.at(l.l3+2, 2)
		t.line("Class-enable vector: 0x%04x", p.PFCEnable)
		for i, q := range p.PFCQuanta {
			en := "disabled"
			if p.PFCEnable&(1<<i) != 0 {
				en = "enabled"
			}
			t.at(l.l3+4+2*i, 2)
			t.line("Priority %d (%s): %d quanta = %s", i, en, q, appendQuantaTime(nil, q, linkBps))
		}
	case KindPause:
		t.at(l.l3, macControlPauseLen)
		t.head("MAC Control: PAUSE (opcode 0x0001)")
		t.at(l.l3+2, 2)
		t.line("Pause time: %d quanta = %s", p.PauseQuanta, appendQuantaTime(nil, p.PauseQuanta, linkBps))
	case KindOther, KindRoCE, KindCNP:
	}
}

// appendIPTree appends the IP (or GRH), UDP, BTH and later headers.
func appendIPTree(t *treeWriter, p *Packet) {
	l := &t.lay
	t.at(l.l3, l.l3Len)
	switch {
	case p.IsRoCEv1():
		t.head("InfiniBand Global Route Header (RoCEv1), Source GID: %s, Destination GID: %s", p.SrcIP, p.DstIP)
	case p.IPVersion == 4:
		t.head("Internet Protocol Version 4, Src: %s, Dst: %s", p.SrcIP, p.DstIP)
	case p.IPVersion == 6:
		t.head("Internet Protocol Version 6, Src: %s, Dst: %s", p.SrcIP, p.DstIP)
	}
	if p.IPVersion != 0 {
		if p.IPVersion == 4 && !p.IsRoCEv1() {
			t.at(l.l3+1, 1)
		} else {
			t.at(l.l3, 2) // the traffic class straddles the first two bytes
		}
		t.line("DSCP: %d, ECN: %d (%s)", p.DSCP, p.ECN, ecnName(p.ECN))
		if p.IPVersion == 4 && !p.IsRoCEv1() {
			t.at(l.l3+8, 2)
		} else {
			t.at(l.l3+6, 2) // next header, hop limit
		}
		t.line("TTL/Hop limit: %d, Protocol: %d", p.TTL, p.IPProto)
	}
	if p.Stop != StopNone {
		t.at(0, 0)
		t.line("[Not decoded further: %s (%d)]", p.Stop, p.StopArg)
	}
	if p.HasUDP {
		t.at(l.udp, 8)
		t.head("User Datagram Protocol, Src Port: %d, Dst Port: %d", p.SrcPort, p.DstPort)
		t.at(l.udp+4, 2)
		t.line("Length: %d", p.UDPLen)
	}
	if p.BTHCut {
		t.at(l.bth, 0)
		t.head("Base Transport Header: [cut short by the capture]")
	}
	if p.HasBTH {
		appendBTHTree(t, p)
	}
}

func appendBTHTree(t *treeWriter, p *Packet) {
	h := &p.BTH
	b := t.lay.bth
	t.at(b, BTHLen)
	t.head("Base Transport Header")
	t.at(b, 1)
	t.line("Opcode: %d (0x%02x) %s", uint8(h.Opcode), uint8(h.Opcode), h.Opcode)
	t.at(b+1, 1)
	t.line("Solicited Event: %t, MigReq: %t, Pad Count: %d, Header Version: %d", h.SE, h.MigReq, h.Pad, h.TVer)
	t.at(b+2, 2)
	t.line("Partition Key: 0x%04x (%d)", h.PKey, h.PKey)
	t.at(b+4, 1)
	t.line("FECN: %t, BECN: %t", h.FECN, h.BECN)
	t.at(b+5, 3)
	t.line("Destination Queue Pair: 0x%06x (%d)", h.DestQP, h.DestQP)
	t.at(b+8, 1)
	t.line("Acknowledge Request: %t", h.AckReq)
	t.at(b+9, 3)
	t.line("Packet Sequence Number: %d", h.PSN)
	e := b + BTHLen // the next extended header
	ext := func(bit Ext, n int) bool {
		if p.Ext&bit == 0 {
			return false
		}
		t.at(e, n)
		e += n
		return true
	}
	appendExtTree(t, p, ext)
	if want := h.Opcode.ExtHeaders(); want&^p.Ext != 0 {
		t.at(e, 0)
		t.head("[Extended headers cut short by the capture]")
	}
	if p.HasPayloadLen {
		t.at(e, p.PayloadLen+int(h.Pad))
		t.head("Payload: %d bytes, pad %d", p.PayloadLen, h.Pad)
	}
	switch p.CM.Attr {
	case CMAttrREQ:
		t.line("CM ConnectRequest: Local Comm ID 0x%08x, Local QPN 0x%06x", p.CM.LocalCommID, p.CM.LocalQPN)
	case CMAttrREP:
		t.line("CM ConnectReply: Local Comm ID 0x%08x, Remote Comm ID 0x%08x, Local QPN 0x%06x",
			p.CM.LocalCommID, p.CM.RemoteCommID, p.CM.LocalQPN)
	}
	t.at(t.lay.icrc, ICRCLen)
	switch p.ICRCStatus {
	case ICRCOK:
		t.head("Invariant CRC: 0x%08x [correct]", p.ICRC)
	case ICRCBad:
		t.head("Invariant CRC: 0x%08x [incorrect]", p.ICRC)
	case ICRCUnchecked:
		t.at(0, 0)
		t.head("Invariant CRC: [not captured, unchecked]")
	case ICRCMalformed:
		t.at(0, 0)
		t.head("Invariant CRC: [not checked: the frame is malformed]")
	}
}

// appendExtTree appends the extended headers, in wire order; ext(bit, n)
// says whether the header is there and sets its bytes.
func appendExtTree(t *treeWriter, p *Packet, ext func(Ext, int) bool) {
	if ext(ExtXRCETH, XRCETHLen) {
		t.head("XRC Extended Transport Header")
		t.line("XRC SRQ: 0x%06x", p.XRCSRQ)
	}
	if ext(ExtDETH, DETHLen) {
		t.head("Datagram Extended Transport Header")
		t.line("Queue Key: 0x%08x, Source Queue Pair: 0x%06x (%d)", p.DETH.QKey, p.DETH.SrcQP, p.DETH.SrcQP)
	}
	if ext(ExtRETH, RETHLen) {
		t.head("RDMA Extended Transport Header")
		t.line("Virtual Address: 0x%016x, Remote Key: 0x%08x, DMA Length: %d", p.RETH.VA, p.RETH.RKey, p.RETH.DMALen)
	}
	if ext(ExtAETH, AETHLen) {
		s := p.AETH.Syndrome
		t.head("ACK Extended Transport Header")
		t.line("Syndrome: 0x%02x (%s)", uint8(s), DescribeSyndrome(s))
		t.line("Message Sequence Number: %d", p.AETH.MSN)
	}
	if ext(ExtAtomicETH, AtomicETHLen) {
		a := &p.AtomicETH
		t.head("Atomic Extended Transport Header")
		t.line("Virtual Address: 0x%016x, Remote Key: 0x%08x", a.VA, a.RKey)
		t.line("Swap/Add: 0x%016x, Compare: 0x%016x", a.SwapAdd, a.Compare)
	}
	if ext(ExtAtomicAckETH, AtomicAckETHLen) {
		t.head("Atomic ACK Extended Transport Header")
		t.line("Original Remote Data: 0x%016x", p.AtomicAckOrig)
	}
	if ext(ExtImmDt, ImmDtLen) {
		t.head("Immediate Data: 0x%08x", p.Imm)
	}
	if ext(ExtIETH, IETHLen) {
		t.head("Invalidate Extended Transport Header: R_Key 0x%08x", p.IETHRKey)
	}
	if ext(ExtCNP, CNPPadLen) {
		t.head("Congestion Notification Packet: 16 reserved bytes")
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
