package decode

import "encoding/binary"

// extHeaders decodes the extended headers in want, in wire order, from b,
// stopping at the first one the capture cut short. It returns the bytes
// after the headers (the payload), or nil when one was cut short.
func (p *Packet) extHeaders(b []byte, want Ext) []byte {
	be := binary.BigEndian
	if want&ExtXRCETH != 0 {
		if len(b) < XRCETHLen {
			return nil
		}
		p.XRCSRQ = be.Uint32(b) & 0xFFFFFF
		p.Ext |= ExtXRCETH
		b = b[XRCETHLen:]
	}
	if want&ExtDETH != 0 {
		if len(b) < DETHLen {
			return nil
		}
		p.DETH.QKey, p.DETH.SrcQP = be.Uint32(b), be.Uint32(b[4:])&0xFFFFFF // p is zeroed (see udp)
		p.Ext |= ExtDETH
		b = b[DETHLen:]
	}
	if want&ExtRETH != 0 {
		if len(b) < RETHLen {
			return nil
		}
		p.RETH.VA, p.RETH.RKey, p.RETH.DMALen = be.Uint64(b), be.Uint32(b[8:]), be.Uint32(b[12:])
		p.Ext |= ExtRETH
		b = b[RETHLen:]
	}
	if want&ExtAETH != 0 {
		if len(b) < AETHLen {
			return nil
		}
		p.AETH.Syndrome, p.AETH.MSN = Syndrome(b[0]), be.Uint32(b)&0xFFFFFF
		p.Ext |= ExtAETH
		b = b[AETHLen:]
	}
	if want&ExtAtomicETH != 0 {
		if len(b) < AtomicETHLen {
			return nil
		}
		a := &p.AtomicETH
		a.VA, a.RKey, a.SwapAdd, a.Compare = be.Uint64(b), be.Uint32(b[8:]), be.Uint64(b[12:]), be.Uint64(b[20:])
		p.Ext |= ExtAtomicETH
		b = b[AtomicETHLen:]
	}
	if want&ExtAtomicAckETH != 0 {
		if len(b) < AtomicAckETHLen {
			return nil
		}
		p.AtomicAckOrig = be.Uint64(b)
		p.Ext |= ExtAtomicAckETH
		b = b[AtomicAckETHLen:]
	}
	if want&ExtImmDt != 0 {
		if len(b) < ImmDtLen {
			return nil
		}
		p.Imm = be.Uint32(b)
		p.Ext |= ExtImmDt
		b = b[ImmDtLen:]
	}
	if want&ExtIETH != 0 {
		if len(b) < IETHLen {
			return nil
		}
		p.IETHRKey = be.Uint32(b)
		p.Ext |= ExtIETH
		b = b[IETHLen:]
	}
	if want&ExtCNP != 0 {
		if len(b) < CNPPadLen {
			return nil
		}
		p.Ext |= ExtCNP
		b = b[CNPPadLen:]
	}
	return b
}

// CM MAD layout: a 24-byte MAD header (base version, management class,
// class version, method, status, class specific, transaction ID, attribute
// ID, reserved, attribute modifier), then the CM message.
const (
	madHeaderLen   = 24
	madClassCM     = 0x07
	cmREQQPNOffset = 32 // LocalCommID 4, reserved 4, ServiceID 8, CA GUID 8, reserved 4, Q_Key 4
	cmREPQPNOffset = 12 // LocalCommID 4, RemoteCommID 4, Q_Key 4
)

// cm reads the QPN-bearing fields of a CM REQ or REP from a QP1 payload.
func (p *Packet) cm(b []byte) {
	if len(b) < madHeaderLen+cmREQQPNOffset+3 || b[1] != madClassCM {
		return
	}
	be := binary.BigEndian
	attr := be.Uint16(b[16:18])
	m := b[madHeaderLen:]
	switch attr {
	case CMAttrREQ:
		p.CM = CMFields{Attr: attr, LocalCommID: be.Uint32(m), LocalQPN: be.Uint32(m[cmREQQPNOffset-1:]) & 0xFFFFFF}
	case CMAttrREP:
		p.CM = CMFields{Attr: attr, LocalCommID: be.Uint32(m), RemoteCommID: be.Uint32(m[4:]),
			LocalQPN: be.Uint32(m[cmREPQPNOffset-1:]) & 0xFFFFFF}
	}
}
