package decode

import (
	"strconv"
)

// QuantaNs returns the duration of q PFC/PAUSE quanta (512 bit times each)
// at linkBps bits per second, in nanoseconds, truncated to an integer.
func QuantaNs(q uint16, linkBps int64) int64 {
	if linkBps <= 0 {
		return 0
	}
	return int64(q) * 512 * 1_000_000_000 / linkBps
}

// appendQuantaTime appends q quanta as a time at linkBps, e.g. "335.544µs".
func appendQuantaTime(b []byte, q uint16, linkBps int64) []byte {
	if linkBps <= 0 {
		return b
	}
	// q*512e9 fits an int64 (< 3.4e16): exact nanoseconds times 1000
	// would not, so divide as floats for display only.
	us := float64(int64(q)*512*1_000_000_000) / float64(linkBps) / 1e3
	b = strconv.AppendFloat(b, us, 'f', 3, 64)
	return append(b, "µs"...)
}

// AppendSummary appends a one-line, tshark-style summary of p (without a
// newline): frame number, time relative to relToNs in seconds, source ->
// destination, and what the frame is. linkBps converts PFC quanta to time.
func (p *Packet) AppendSummary(b []byte, relToNs int64, linkBps int64) []byte {
	fr := strconv.AppendUint(nil, p.Frame, 10)
	for i := len(fr); i < 6; i++ {
		b = append(b, ' ')
	}
	b = append(b, fr...)
	b = append(b, ' ')
	b = appendSeconds(b, p.TsNs-relToNs)
	b = append(b, ' ')
	switch {
	case p.IPVersion != 0:
		b = p.SrcIP.AppendTo(b)
		b = append(b, " → "...)
		b = p.DstIP.AppendTo(b)
	case p.HasMAC:
		b = AppendMAC(b, p.SrcMAC)
		b = append(b, " → "...)
		b = AppendMAC(b, p.DstMAC)
	default:
		b = append(b, '?')
	}
	b = append(b, ' ')
	switch p.Kind {
	case KindRoCE, KindCNP:
		b = p.appendRoCE(b)
	case KindPFC:
		b = append(b, "PFC"...)
		any := false
		for i, q := range p.PFCQuanta {
			if p.PFCEnable&(1<<i) == 0 {
				continue
			}
			any = true
			b = append(b, " P"...)
			b = strconv.AppendInt(b, int64(i), 10)
			if q == 0 {
				b = append(b, "=XON"...)
				continue
			}
			b = append(b, '=')
			b = strconv.AppendUint(b, uint64(q), 10)
			b = append(b, "q/"...)
			b = appendQuantaTime(b, q, linkBps)
		}
		if !any {
			b = append(b, " (no class enabled)"...)
		}
	case KindPause:
		b = append(b, "PAUSE "...)
		if p.PauseQuanta == 0 {
			b = append(b, "XON"...)
		} else {
			b = strconv.AppendUint(b, uint64(p.PauseQuanta), 10)
			b = append(b, "q/"...)
			b = appendQuantaTime(b, p.PauseQuanta, linkBps)
		}
	case KindOther:
		b = p.appendOther(b)
	}
	if p.Encap != EncapNone {
		b = append(b, " ["...)
		b = append(b, p.Encap.String()...)
		b = append(b, ']')
	}
	if p.IsRoCEv1() {
		b = append(b, " [RoCEv1]"...)
	}
	if p.Truncated {
		b = append(b, " [cut "...)
		b = strconv.AppendInt(b, int64(p.CapLen), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(p.Len), 10)
		b = append(b, ']')
	}
	if p.Malformed {
		b = append(b, " [Malformed: "...)
		b = append(b, p.Problem...)
		b = append(b, ']')
	}
	return b
}

func (p *Packet) appendRoCE(b []byte) []byte {
	b = append(b, p.BTH.Opcode.String()...)
	b = append(b, " QP=0x"...)
	b = appendHex(b, uint64(p.BTH.DestQP), 6)
	b = append(b, " PSN="...)
	b = strconv.AppendUint(b, uint64(p.BTH.PSN), 10)
	if p.Ext&ExtDETH != 0 {
		b = append(b, " SrcQP=0x"...)
		b = appendHex(b, uint64(p.DETH.SrcQP), 6)
	}
	if p.Ext&ExtRETH != 0 {
		b = append(b, " len="...)
		b = strconv.AppendUint(b, uint64(p.RETH.DMALen), 10)
	}
	if p.BTH.AckReq {
		b = append(b, " AckReq"...)
	}
	if p.Ext&ExtAETH != 0 {
		s := p.AETH.Syndrome
		switch s.Kind() {
		case SyndromeACK:
			b = append(b, " ACK MSN="...)
			b = strconv.AppendUint(b, uint64(p.AETH.MSN), 10)
		case SyndromeNAK:
			b = append(b, " NAK "...)
			b = append(b, NAKCodeName(s.Value())...)
		case SyndromeRNRNAK:
			b = append(b, " RNR_NAK timer="...)
			b = strconv.AppendUint(b, uint64(s.Value()), 10)
			b = append(b, " ("...)
			b = strconv.AppendFloat(b, float64(RNRTimerNs(s.Value()))/1e6, 'f', 2, 64)
			b = append(b, " ms)"...)
		case SyndromeReserved:
			b = append(b, " AETH reserved syndrome"...)
		}
	}
	if p.ECN == 3 {
		b = append(b, " ECN=CE"...)
	}
	if p.BTH.FECN {
		b = append(b, " FECN"...)
	}
	if p.BTH.BECN {
		b = append(b, " BECN"...)
	}
	switch p.ICRCStatus {
	case ICRCBad:
		b = append(b, " [ICRC bad]"...)
	case ICRCUnchecked:
		b = append(b, " [ICRC unchecked]"...)
	case ICRCMalformed:
		b = append(b, " [ICRC malformed]"...)
	case ICRCOK:
	}
	return b
}

func (p *Packet) appendOther(b []byte) []byte {
	switch {
	case p.HasUDP && p.DstPort != 0:
		b = append(b, "UDP "...)
		b = strconv.AppendUint(b, uint64(p.SrcPort), 10)
		b = append(b, " → "...)
		b = strconv.AppendUint(b, uint64(p.DstPort), 10)
		if p.BTHCut {
			b = append(b, " (BTH cut short)"...)
		}
	case p.IPVersion != 0:
		b = append(b, "IP proto "...)
		b = strconv.AppendUint(b, uint64(p.IPProto), 10)
	case p.EtherType != 0:
		b = append(b, "EtherType 0x"...)
		b = appendHex(b, uint64(p.EtherType), 4)
	default:
		b = append(b, "not decoded"...)
	}
	return b
}

// appendSeconds appends ns as seconds with 9 decimals.
func appendSeconds(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1_000_000_000, 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, ns%1_000_000_000, 10)
	for i := len(frac); i < 9; i++ {
		b = append(b, '0')
	}
	return append(b, frac...)
}

// appendHex appends v in lower-case hex, zero-padded to width digits.
func appendHex(b []byte, v uint64, width int) []byte {
	h := strconv.AppendUint(nil, v, 16)
	for i := len(h); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, h...)
}
