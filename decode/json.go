package decode

import (
	"net/netip"
	"strconv"

	"github.com/rocetrace/rocetrace/internal/jsonstr"
)

// jsonWriter appends one JSON object to a byte slice without reflection.
type jsonWriter struct {
	b     []byte
	first bool
}

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) null(k string) { w.key(k); w.b = append(w.b, "null"...) }

func (w *jsonWriter) uint(k string, v uint64) { w.key(k); w.b = strconv.AppendUint(w.b, v, 10) }

func (w *jsonWriter) int(k string, v int64) { w.key(k); w.b = strconv.AppendInt(w.b, v, 10) }

func (w *jsonWriter) bool(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }

// str appends a string value as encoding/json writes it without HTML
// escaping (jsonstr.Append): invalid UTF-8 becomes \ufffd.
func (w *jsonWriter) str(k, v string) { w.key(k); w.b = jsonstr.Append(w.b, v) }

func (w *jsonWriter) optUint(k string, ok bool, v uint64) {
	if ok {
		w.uint(k, v)
	} else {
		w.null(k)
	}
}

func (w *jsonWriter) optBool(k string, ok bool, v bool) {
	if ok {
		w.bool(k, v)
	} else {
		w.null(k)
	}
}

func (w *jsonWriter) addr(k string, a netip.Addr) {
	if !a.IsValid() {
		w.null(k)
		return
	}
	w.key(k)
	w.b = append(w.b, '"')
	w.b = a.AppendTo(w.b)
	w.b = append(w.b, '"')
}

func (w *jsonWriter) mac(k string, ok bool, m [6]byte) {
	if !ok {
		w.null(k)
		return
	}
	w.key(k)
	w.b = append(w.b, '"')
	w.b = AppendMAC(w.b, m)
	w.b = append(w.b, '"')
}

// AppendMAC appends m as "aa:bb:cc:dd:ee:ff".
func AppendMAC(b []byte, m [6]byte) []byte {
	const hex = "0123456789abcdef"
	for i, x := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[x>>4], hex[x&0xF])
	}
	return b
}

// AppendJSON appends p as one JSON object with the packet field names of
// `packets --json` (docs/interface.md): every field is present, null where
// it does not apply. file is the capture's name and flow the flow id ("" for
// null).
func (p *Packet) AppendJSON(dst []byte, file, flow string) []byte {
	w := jsonWriter{b: append(dst, '{'), first: true}
	w.uint("frame", p.Frame)
	w.str("file", file)
	w.int("ts_ns", p.TsNs)
	w.int("len", int64(p.Len))
	w.int("caplen", int64(p.CapLen))
	w.str("kind", p.Kind.String())
	w.mac("src_mac", p.HasMAC, p.SrcMAC)
	w.mac("dst_mac", p.HasMAC && p.DstMAC != [6]byte{}, p.DstMAC)
	vlan := p.VLANCount > 0
	w.optUint("vlan_id", vlan, uint64(p.VLANID))
	w.optUint("vlan_pcp", vlan, uint64(p.VLANPCP))
	ip := p.IPVersion != 0
	w.addr("src_ip", p.SrcIP)
	w.addr("dst_ip", p.DstIP)
	w.optUint("dscp", ip, uint64(p.DSCP))
	w.optUint("ecn", ip, uint64(p.ECN))
	w.optUint("ttl", ip, uint64(p.TTL))
	w.optUint("udp_sport", p.HasUDP, uint64(p.SrcPort))
	w.optUint("udp_dport", p.HasUDP, uint64(p.DstPort))
	w.bthFields(p)
	w.pfcFields(p)
	w.optUint("pause_quanta", p.Kind == KindPause, uint64(p.PauseQuanta))
	if flow != "" {
		w.str("flow", flow)
	} else {
		w.null("flow")
	}
	// Fields beyond the contract's list.
	w.bool("truncated", p.Truncated)
	w.bool("malformed", p.Malformed)
	if p.Encap != EncapNone {
		w.str("encap", p.Encap.String())
	}
	if p.IsRoCEv1() {
		w.uint("roce_version", 1) // src_ip and dst_ip are the GRH's GIDs
	}
	if p.CM.Attr != 0 {
		w.uint("cm_attr", uint64(p.CM.Attr))
		w.uint("cm_local_comm_id", uint64(p.CM.LocalCommID))
		w.uint("cm_remote_comm_id", uint64(p.CM.RemoteCommID))
		w.uint("cm_local_qpn", uint64(p.CM.LocalQPN))
	}
	return append(w.b, '}')
}

// bthFields appends the fields of the BTH and the extended headers, the
// payload length and the ICRC (null without a BTH).
func (w *jsonWriter) bthFields(p *Packet) {
	b := &p.BTH
	h := p.HasBTH
	w.optUint("opcode", h, uint64(b.Opcode))
	if h {
		w.str("opcode_name", b.Opcode.String())
		w.str("transport", b.Opcode.Transport().String())
	} else {
		w.null("opcode_name")
		w.null("transport")
	}
	w.optBool("se", h, b.SE)
	w.optBool("migreq", h, b.MigReq)
	w.optUint("pad", h, uint64(b.Pad))
	w.optUint("tver", h, uint64(b.TVer))
	w.optUint("pkey", h, uint64(b.PKey))
	w.optBool("fecn", h, b.FECN)
	w.optBool("becn", h, b.BECN)
	w.optUint("dst_qpn", h, uint64(b.DestQP))
	w.optBool("ackreq", h, b.AckReq)
	w.optUint("psn", h, uint64(b.PSN))
	reth := p.Ext&ExtRETH != 0
	w.optUint("reth_va", reth, p.RETH.VA)
	w.optUint("reth_rkey", reth, uint64(p.RETH.RKey))
	w.optUint("reth_len", reth, uint64(p.RETH.DMALen))
	aeth := p.Ext&ExtAETH != 0
	w.optUint("aeth_syndrome", aeth, uint64(p.AETH.Syndrome))
	w.optUint("aeth_msn", aeth, uint64(p.AETH.MSN))
	deth := p.Ext&ExtDETH != 0
	w.optUint("deth_qkey", deth, uint64(p.DETH.QKey))
	w.optUint("deth_src_qpn", deth, uint64(p.DETH.SrcQP))
	w.optUint("imm", p.Ext&ExtImmDt != 0, uint64(p.Imm))
	w.optUint("ieth_rkey", p.Ext&ExtIETH != 0, uint64(p.IETHRKey))
	w.optUint("xrc_srq", p.Ext&ExtXRCETH != 0, uint64(p.XRCSRQ))
	at := p.Ext&ExtAtomicETH != 0
	w.optUint("atomic_va", at, p.AtomicETH.VA)
	w.optUint("atomic_rkey", at, uint64(p.AtomicETH.RKey))
	w.optUint("atomic_swap_add", at, p.AtomicETH.SwapAdd)
	w.optUint("atomic_compare", at, p.AtomicETH.Compare)
	w.optUint("atomic_ack_orig", p.Ext&ExtAtomicAckETH != 0, p.AtomicAckOrig)
	w.optUint("payload_len", h && p.HasPayloadLen, uint64(p.PayloadLen))
	w.optUint("icrc", h && p.ICRCStatus.Checked(), uint64(p.ICRC))
	if h {
		w.str("icrc_status", p.ICRCStatus.String())
	} else {
		w.null("icrc_status")
	}
}

// pfcFields appends the PFC fields (null unless p is a PFC frame).
func (w *jsonWriter) pfcFields(p *Packet) {
	pfc := p.Kind == KindPFC
	w.optUint("pfc_enable", pfc, uint64(p.PFCEnable))
	if pfc {
		w.key("pfc_quanta")
		w.b = append(w.b, '[')
		for i, q := range p.PFCQuanta {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = strconv.AppendUint(w.b, uint64(q), 10)
		}
		w.b = append(w.b, ']')
	} else {
		w.null("pfc_quanta")
	}
}
