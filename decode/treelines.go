package decode

import "github.com/rocetrace/rocetrace/pcapio"

// TreeLine is one line of a frame's header tree (AppendTree's lines) with
// the bytes of the record it describes, for a viewer that shows a field's
// bytes in the hex dump (the TUI's packets view).
type TreeLine struct {
	Text  string // the line without its indentation
	Field bool   // a field of the header line above it (AppendTree indents it)
	// Off and Len are the bytes of the record the line describes:
	// Data[Off:Off+Len]; Len 0 when none (the frame line, notes). A header
	// line's are the whole header's (the Payload's: payload and pad).
	Off, Len int
}

// trace records where the innermost frame starts while a Decoder decodes
// a record (TreeLines): offsets from the record's first byte, -1 when not
// noted. Only encapsulations note anything (an inner Ethernet frame, an
// inner IP packet, the IP packet after MPLS labels), off the fast path:
// a plain frame's headers follow from its link type and the Packet
// (makeLayout).
type trace struct {
	base    int // cap of the record's data: offset = base - cap(b)
	eth, l3 int
}

func (tr *trace) at(b []byte) int { return tr.base - cap(b) }

// traceEthernet notes an inner Ethernet frame at b.
func (d *Decoder) traceEthernet(b []byte) {
	if d.tr != nil {
		d.tr.eth, d.tr.l3 = d.tr.at(b), -1
	}
}

// traceNetwork notes an inner IP packet (or the one after MPLS labels) at b.
func (d *Decoder) traceNetwork(b []byte) {
	if d.tr != nil {
		d.tr.l3 = d.tr.at(b)
	}
}

// layout is where a decoded frame's headers are, from a trace (offsets;
// -1 or a length 0: absent).
type layout struct {
	encap, encapLen int // the outer headers of an encapsulated frame
	eth, ethLen     int // the analysed frame's link header (Ethernet and its tags, or the cooked header)
	etherType       int // its EtherType (protocol) field
	l3, l3Len       int // IP header (with IPv6 extension headers), GRH or MAC Control
	udp, bth, icrc  int
}

// TreeLines decodes rec as DecodeRecord does into p and returns its header
// tree (the lines AppendTree writes) with the bytes of each line. It is for
// showing one frame: it allocates, and the decoder notes where an
// encapsulated frame starts only while it runs (on the encapsulations'
// paths: a plain frame's decoding does not check for it).
func (d *Decoder) TreeLines(rec *pcapio.Record, p *Packet, linkBps int64) []TreeLine {
	tr := trace{base: cap(rec.Data), eth: -1, l3: -1}
	d.tr = &tr
	d.DecodeRecord(rec, p)
	d.tr = nil
	t := treeWriter{collect: true, lay: makeLayout(&tr, rec, p)}
	appendTree(&t, rec.LinkType, p, linkBps)
	// Clamp the byte ranges to the captured bytes.
	for i := range t.lines {
		l := &t.lines[i]
		if l.Off >= len(rec.Data) || l.Len <= 0 {
			l.Off, l.Len = 0, 0
			continue
		}
		l.Len = min(l.Len, len(rec.Data)-l.Off)
	}
	return t.lines
}

// makeLayout places the headers: the innermost frame the trace noted, or
// the record's own link header, then the IP header, UDP and BTH from the
// Packet and the bytes.
func makeLayout(tr *trace, rec *pcapio.Record, p *Packet) layout {
	data := rec.Data
	l := layout{encap: -1, eth: tr.eth, l3: tr.l3, udp: -1, bth: -1, icrc: -1}
	switch {
	case tr.eth >= 0:
		l.ethLen = 14 + 4*int(p.VLANCount)
	case rec.LinkType == pcapio.LinkTypeEthernet:
		l.eth, l.ethLen = 0, 14+4*int(p.VLANCount)
	case rec.LinkType == pcapio.LinkTypeLinuxSLL:
		l.eth, l.ethLen = 0, 16
	case rec.LinkType == pcapio.LinkTypeLinuxSLL2:
		l.eth, l.ethLen, l.etherType = 0, 20, 0
	}
	if l.ethLen > 0 && rec.LinkType != pcapio.LinkTypeLinuxSLL2 || tr.eth >= 0 {
		l.etherType = l.eth + l.ethLen - 2
	}
	if l.l3 < 0 {
		l.l3 = max(l.eth, 0) + l.ethLen // raw IP: 0
	}
	inner := l.l3
	if tr.eth > 0 {
		inner = tr.eth
	}
	switch {
	case p.Encap == EncapMPLS:
		l.encap, l.encapLen = l.eth+l.ethLen, l.l3-l.eth-l.ethLen
	case p.Encap != EncapNone && inner > 0:
		l.encap, l.encapLen = 0, inner
	}
	switch {
	case p.IsRoCEv1():
		l.l3Len, l.bth = GRHLen, l.l3+GRHLen
	case p.IPVersion == 4 && l.l3 < len(data):
		l.l3Len = int(data[l.l3]&0x0F) * 4
	case p.IPVersion == 6:
		l.l3Len = ipv6HeadersLen(data[min(l.l3, len(data)):])
	}
	if p.HasUDP && l.l3Len > 0 {
		l.udp = l.l3 + l.l3Len
		l.bth = l.udp + 8
		if p.ICRCStatus == ICRCOK || p.ICRCStatus == ICRCBad {
			l.icrc = l.udp + int(p.UDPLen) - ICRCLen
		}
	} else if p.IsRoCEv1() && (p.ICRCStatus == ICRCOK || p.ICRCStatus == ICRCBad) && p.HasPayloadLen {
		l.icrc = l.bth + BTHLen + p.BTH.Opcode.ExtHeaders().ExtLen() + p.PayloadLen + int(p.BTH.Pad)
	}
	return l
}

// ipv6HeadersLen is the length of the IPv6 header at b and the extension
// headers the decoder skips (hop-by-hop, routing, destination options);
// 0 when they are not all captured.
func ipv6HeadersLen(b []byte) int {
	if len(b) < 40 {
		return 0
	}
	next, off := b[6], 40
	for next == 0 || next == 43 || next == 60 {
		if len(b) < off+8 {
			return 0
		}
		next = b[off]
		off += (int(b[off+1]) + 1) * 8
	}
	return off
}
