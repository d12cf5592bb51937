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

// trace records where the innermost headers of a record start while a
// Decoder decodes it (TreeLines): offsets from the record's first byte,
// -1 when absent. A header of an outer level resets those after it.
type trace struct {
	base         int // cap of the record's data: offset = base - cap(b)
	eth, l3, udp int
}

func (tr *trace) at(b []byte) int { return tr.base - cap(b) }

// ethernet notes an Ethernet header at b.
func (tr *trace) ethernet(b []byte) { tr.eth, tr.l3, tr.udp = tr.at(b), -1, -1 }

// network notes the header after the EtherType (IP, GRH, MAC Control) at b.
func (tr *trace) network(b []byte) { tr.l3, tr.udp = tr.at(b), -1 }

// layout is where a decoded frame's headers are, from a trace (offsets;
// -1 or a length 0: absent).
type layout struct {
	encap, encapLen int // the outer headers of an encapsulated frame
	eth, ethLen     int // the analysed frame's link header (Ethernet and its tags, or the cooked header)
	l3, l3Len       int // IP header (with IPv6 extension headers), GRH or MAC Control
	udp, bth, icrc  int
}

// TreeLines decodes rec as DecodeRecord does into p and returns its header
// tree (the lines AppendTree writes) with the bytes of each line. It is for
// showing one frame: it allocates, and the decoder notes where each header
// starts only while it runs (the fast path checks one nil pointer per
// header level).
func (d *Decoder) TreeLines(rec *pcapio.Record, p *Packet, linkBps int64) []TreeLine {
	tr := trace{base: cap(rec.Data), eth: -1, l3: -1, udp: -1}
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

// makeLayout places the headers the trace found.
func makeLayout(tr *trace, rec *pcapio.Record, p *Packet) layout {
	data := rec.Data
	l := layout{encap: -1, eth: tr.eth, l3: tr.l3, udp: tr.udp, bth: -1, icrc: -1}
	switch {
	case tr.eth >= 0:
		l.ethLen = 14 + 4*int(p.VLANCount)
	case rec.LinkType == pcapio.LinkTypeLinuxSLL:
		l.eth, l.ethLen = 0, 16
	case rec.LinkType == pcapio.LinkTypeLinuxSLL2:
		l.eth, l.ethLen = 0, 20
	}
	inner := l.l3
	if l.eth > 0 {
		inner = l.eth
	}
	switch {
	case p.Encap == EncapMPLS && l.eth >= 0:
		l.encap, l.encapLen = l.eth+l.ethLen, l.l3-l.eth-l.ethLen
	case p.Encap != EncapNone && inner > 0:
		l.encap, l.encapLen = 0, inner
	}
	switch {
	case l.l3 < 0:
	case p.IsRoCEv1():
		l.l3Len, l.bth = GRHLen, l.l3+GRHLen
	case p.IPVersion == 4 && l.l3 < len(data):
		l.l3Len = int(data[l.l3]&0x0F) * 4
	case p.IPVersion == 6 && l.udp > l.l3:
		l.l3Len = l.udp - l.l3
	case p.IPVersion == 6:
		l.l3Len = 40
	}
	if p.HasUDP && l.udp >= 0 {
		l.bth = l.udp + 8
		if p.ICRCStatus == ICRCOK || p.ICRCStatus == ICRCBad {
			l.icrc = l.udp + int(p.UDPLen) - ICRCLen
		}
	} else if p.IsRoCEv1() && (p.ICRCStatus == ICRCOK || p.ICRCStatus == ICRCBad) && l.bth >= 0 && p.HasPayloadLen {
		l.icrc = l.bth + BTHLen + p.BTH.Opcode.ExtHeaders().ExtLen() + p.PayloadLen + int(p.BTH.Pad)
	}
	return l
}
