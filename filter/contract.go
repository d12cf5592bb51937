package filter

import "github.com/rocetrace/rocetrace/decode"

// contractFields returns the packet fields of the contract, each present
// exactly when packets --json gives it a non-null value (decode.AppendJSON).
func contractFields() map[string]field {
	u := func(ok func(p *decode.Packet) bool, v func(p *decode.Packet) uint64) field {
		return intF(func(p *decode.Packet) (uint64, bool) { return v(p), ok(p) })
	}
	always := func(*decode.Packet) bool { return true }
	vlan := func(p *decode.Packet) bool { return p.VLANCount > 0 }
	ipv := func(p *decode.Packet) bool { return p.IPVersion != 0 }
	udp := func(p *decode.Packet) bool { return p.HasUDP }
	bth := hasBTH
	has := func(e decode.Ext) func(p *decode.Packet) bool {
		return func(p *decode.Packet) bool { return p.Ext&e != 0 }
	}
	bthBool := func(v func(b *decode.BTHFields) bool) field {
		return boolF(func(p *decode.Packet) (bool, bool) { return v(&p.BTH), p.HasBTH })
	}
	bthStr := func(v func(o decode.Opcode) string) field {
		return strF(func(p *decode.Packet) (string, bool) {
			if !p.HasBTH {
				return "", false
			}
			return v(p.BTH.Opcode), true
		})
	}
	m := map[string]field{
		"frame":   u(always, func(p *decode.Packet) uint64 { return p.Frame }),
		"ts_ns":   u(always, func(p *decode.Packet) uint64 { return uint64(p.TsNs) }),
		"len":     u(always, func(p *decode.Packet) uint64 { return uint64(p.Len) }),
		"caplen":  u(always, func(p *decode.Packet) uint64 { return uint64(p.CapLen) }),
		"kind":    strF(func(p *decode.Packet) (string, bool) { return p.Kind.String(), true }),
		"src_mac": macF(func(p *decode.Packet, i int) ([6]byte, bool) { return p.SrcMAC, i == 0 && p.HasMAC }),
		"dst_mac": macF(func(p *decode.Packet, i int) ([6]byte, bool) {
			return p.DstMAC, i == 0 && p.HasMAC && p.DstMAC != [6]byte{}
		}),
		"vlan_id":     u(vlan, func(p *decode.Packet) uint64 { return uint64(p.VLANID) }),
		"vlan_pcp":    u(vlan, func(p *decode.Packet) uint64 { return uint64(p.VLANPCP) }),
		"src_ip":      ipF(0, true),
		"dst_ip":      ipF(0, false),
		"dscp":        u(ipv, func(p *decode.Packet) uint64 { return uint64(p.DSCP) }),
		"ecn":         u(ipv, func(p *decode.Packet) uint64 { return uint64(p.ECN) }),
		"ttl":         u(ipv, func(p *decode.Packet) uint64 { return uint64(p.TTL) }),
		"udp_sport":   u(udp, func(p *decode.Packet) uint64 { return uint64(p.SrcPort) }),
		"udp_dport":   u(udp, func(p *decode.Packet) uint64 { return uint64(p.DstPort) }),
		"opcode":      u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.Opcode) }),
		"opcode_name": bthStr(decode.Opcode.String),
		"transport":   bthStr(func(o decode.Opcode) string { return o.Transport().String() }),
		"se":          bthBool(func(b *decode.BTHFields) bool { return b.SE }),
		"migreq":      bthBool(func(b *decode.BTHFields) bool { return b.MigReq }),
		"pad":         u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.Pad) }),
		"tver":        u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.TVer) }),
		"pkey":        u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.PKey) }),
		"fecn":        bthBool(func(b *decode.BTHFields) bool { return b.FECN }),
		"becn":        bthBool(func(b *decode.BTHFields) bool { return b.BECN }),
		"dst_qpn":     u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.DestQP) }),
		"ackreq":      bthBool(func(b *decode.BTHFields) bool { return b.AckReq }),
		"psn":         u(bth, func(p *decode.Packet) uint64 { return uint64(p.BTH.PSN) }),

		"reth_va":         u(has(decode.ExtRETH), func(p *decode.Packet) uint64 { return p.RETH.VA }),
		"reth_rkey":       u(has(decode.ExtRETH), func(p *decode.Packet) uint64 { return uint64(p.RETH.RKey) }),
		"reth_len":        u(has(decode.ExtRETH), func(p *decode.Packet) uint64 { return uint64(p.RETH.DMALen) }),
		"aeth_syndrome":   u(has(decode.ExtAETH), func(p *decode.Packet) uint64 { return uint64(p.AETH.Syndrome) }),
		"aeth_msn":        u(has(decode.ExtAETH), func(p *decode.Packet) uint64 { return uint64(p.AETH.MSN) }),
		"deth_qkey":       u(has(decode.ExtDETH), func(p *decode.Packet) uint64 { return uint64(p.DETH.QKey) }),
		"deth_src_qpn":    u(has(decode.ExtDETH), func(p *decode.Packet) uint64 { return uint64(p.DETH.SrcQP) }),
		"imm":             u(has(decode.ExtImmDt), func(p *decode.Packet) uint64 { return uint64(p.Imm) }),
		"ieth_rkey":       u(has(decode.ExtIETH), func(p *decode.Packet) uint64 { return uint64(p.IETHRKey) }),
		"xrc_srq":         u(has(decode.ExtXRCETH), func(p *decode.Packet) uint64 { return uint64(p.XRCSRQ) }),
		"atomic_va":       u(has(decode.ExtAtomicETH), func(p *decode.Packet) uint64 { return p.AtomicETH.VA }),
		"atomic_rkey":     u(has(decode.ExtAtomicETH), func(p *decode.Packet) uint64 { return uint64(p.AtomicETH.RKey) }),
		"atomic_swap_add": u(has(decode.ExtAtomicETH), func(p *decode.Packet) uint64 { return p.AtomicETH.SwapAdd }),
		"atomic_compare":  u(has(decode.ExtAtomicETH), func(p *decode.Packet) uint64 { return p.AtomicETH.Compare }),
		"atomic_ack_orig": u(has(decode.ExtAtomicAckETH), func(p *decode.Packet) uint64 { return p.AtomicAckOrig }),
		"payload_len": u(func(p *decode.Packet) bool { return p.HasBTH && p.HasPayloadLen },
			func(p *decode.Packet) uint64 { return uint64(p.PayloadLen) }),
		"icrc": u(func(p *decode.Packet) bool { return p.HasBTH && p.ICRCStatus.Checked() },
			func(p *decode.Packet) uint64 { return uint64(p.ICRC) }),
		"icrc_status": strF(func(p *decode.Packet) (string, bool) { return p.ICRCStatus.String(), p.HasBTH }),
		"pfc_enable": u(func(p *decode.Packet) bool { return p.Kind == decode.KindPFC },
			func(p *decode.Packet) uint64 { return uint64(p.PFCEnable) }),
		"pfc_quanta": {typ: TypeInt, read: true, i: func(p *decode.Packet, _ *Frame, i int) (uint64, bool) {
			if p.Kind != decode.KindPFC || i >= len(p.PFCQuanta) {
				return 0, false
			}
			return uint64(p.PFCQuanta[i]), true
		}},
		"pause_quanta": u(func(p *decode.Packet) bool { return p.Kind == decode.KindPause },
			func(p *decode.Packet) uint64 { return uint64(p.PauseQuanta) }),

		// From the frame context: the capture's name, the flow, the events.
		"file":   {typ: TypeString, read: true, s: func(_ *decode.Packet, fr *Frame) (string, bool) { return fr.File, true }},
		"flow":   {typ: TypeString, read: true, s: func(_ *decode.Packet, fr *Frame) (string, bool) { return fr.Flow, fr.Flow != "" }},
		"events": {typ: TypeEvents},
	}
	return m
}
