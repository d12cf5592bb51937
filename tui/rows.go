package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// mark is how a row is highlighted.
type mark uint8

const (
	markNone       mark = iota
	markProblem         // loss, replay, NAK, bad ICRC, malformed
	markCongestion      // CE marks, CNPs
	markPause           // PFC / PAUSE
)

// PacketRow is one line of a packet table, made from a decoded frame.
type PacketRow struct {
	Frame    uint64
	File     int
	TsNs     int64
	Src, Dst string
	Proto    string
	Len      int
	Info     string
	Flow     string // flow id, "" for frames of no flow
	Mark     mark
	Err      string // the record could not be read again
}

// makeRow describes a decoded frame. Info is decode's tshark-style summary
// without its frame, time and address fields.
func makeRow(p *decode.Packet, linkBps int64) *PacketRow {
	r := &PacketRow{Frame: p.Frame, File: p.File, TsNs: p.TsNs, Len: p.Len}
	switch {
	case p.IPVersion != 0:
		r.Src, r.Dst = p.SrcIP.String(), p.DstIP.String()
	case p.HasMAC:
		r.Src, r.Dst = string(decode.AppendMAC(nil, p.SrcMAC)), string(decode.AppendMAC(nil, p.DstMAC))
	}
	switch p.Kind {
	case decode.KindRoCE:
		r.Proto = "RoCE " + p.BTH.Opcode.Transport().String()
	case decode.KindCNP:
		r.Proto = "CNP"
		r.Mark = markCongestion
	case decode.KindPFC:
		r.Proto = "PFC"
		r.Mark = markPause
	case decode.KindPause:
		r.Proto = "PAUSE"
		r.Mark = markPause
	case decode.KindOther:
		switch {
		case p.HasUDP:
			r.Proto = "UDP"
		case p.IPVersion == 4:
			r.Proto = "IPv4"
		case p.IPVersion == 6:
			r.Proto = "IPv6"
		case p.HasMAC:
			r.Proto = "Ethernet"
		default:
			r.Proto = "?"
		}
	}
	if p.IsRoCE() && p.ECN == 3 {
		r.Mark = markCongestion
	}
	if p.Ext&decode.ExtAETH != 0 {
		switch p.AETH.Syndrome.Kind() {
		case decode.SyndromeNAK, decode.SyndromeRNRNAK:
			r.Mark = markProblem
		case decode.SyndromeACK, decode.SyndromeReserved:
		}
	}
	if p.Malformed || p.ICRCStatus == decode.ICRCBad {
		r.Mark = markProblem
	}
	if k, ok := flows.KeyOf(p); ok {
		r.Flow = k.String()
	}
	r.Info = summaryInfo(string(p.AppendSummary(nil, 0, linkBps)))
	return r
}

// summaryInfo drops the frame number, time and "src → dst" from a summary
// line.
func summaryInfo(s string) string {
	s = strings.TrimLeft(s, " ")
	for range 2 { // frame, time
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return s
		}
		s = s[i+1:]
	}
	if rest, ok := strings.CutPrefix(s, "? "); ok {
		return rest
	}
	if i := strings.Index(s, " → "); i >= 0 {
		s = s[i+len(" → "):]
		if j := strings.IndexByte(s, ' '); j >= 0 {
			return s[j+1:]
		}
		return ""
	}
	return s
}

// PacketDetail is the header tree and hex dump of one frame.
type PacketDetail struct {
	Pos   int // Index position
	Frame uint64
	File  string
	Err   error
	// The header tree's lines with their bytes (decode.TreeLines), after
	// Head ("File: NAME, frame N"), and the record's bytes.
	Head  string
	Lines []decode.TreeLine
	Data  []byte
}

// makeDetail describes a frame read again from its record (cfg: the
// decoder's, for the tree's lines).
func makeDetail(pos int, file string, rec *pcapio.Record, p *decode.Packet, cfg decode.Config, linkBps int64) *PacketDetail {
	d := &PacketDetail{Pos: pos, Frame: p.Frame, File: file}
	d.Head = "File: " + filepath.Base(file) + ", frame " + strconv.FormatUint(p.Frame, 10)
	var again decode.Packet
	d.Lines = decode.NewDecoder(cfg).TreeLines(rec, &again, linkBps)
	d.Data = slices.Clone(rec.Data)
	return d
}
