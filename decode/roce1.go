package decode

import (
	"encoding/binary"
	"hash/crc32"
	"net/netip"
)

// RoCEv1 (IBA Annex A16): EtherType 0x8915, then the InfiniBand GRH (40
// bytes, laid out as an IPv6 header: IPVer 6, TClass, FlowLabel, PayLen,
// NxtHdr 0x1B, HopLmt, SGID, DGID), then the BTH and what follows it as in
// RoCEv2, up to the ICRC. The GIDs are the packet's addresses (SrcIP,
// DstIP, IPv6; flows are keyed by them as by RoCEv2's IP addresses), the
// TClass gives DSCP and ECN, HopLmt the TTL, IPVersion is 6, and there is
// no UDP header (HasUDP false, no ports). PayLen counts the bytes after the
// GRH up to and including the ICRC.
//
// The ICRC is that of IBA §7.8.1 with the LRH absent: CRC-32 over 8 bytes
// of 0xFF standing in for the LRH, the GRH with TClass, FlowLabel and
// HopLmt set to ones, the BTH with byte 4 (FECN, BECN, reserved) set to
// ones, and everything after it up to the ICRC; stored little-endian, as
// in RoCEv2.

// RoCEv1 constants.
const (
	etherTypeRoCEv1 = 0x8915
	// GRHLen is the length of the InfiniBand global route header.
	GRHLen = 40
	// grhNextBTH is the GRH NxtHdr value of an IBA transport header.
	grhNextBTH = 0x1B
)

// EtherTypeRoCEv1 is the EtherType of RoCEv1 (Packet.EtherType of a RoCEv1
// frame).
const EtherTypeRoCEv1 = etherTypeRoCEv1

// IsRoCEv1 reports whether the frame is RoCEv1 (a GRH and BTH directly on
// Ethernet).
func (p *Packet) IsRoCEv1() bool { return p.EtherType == etherTypeRoCEv1 && p.IPVersion == 6 }

// roceV1 decodes a GRH and the BTH after it; wire is the bytes on the wire
// from the GRH on.
func (d *Decoder) roceV1(b []byte, wire int, p *Packet) {
	if len(b) < GRHLen {
		return
	}
	if b[0]>>4 != 6 {
		malformed(p, "GRH with an IPVer other than 6")
		return
	}
	total := GRHLen + int(binary.BigEndian.Uint16(b[4:6]))
	if total > wire {
		malformed(p, "GRH payload length beyond the frame")
		return
	}
	tc := b[0]<<4 | b[1]>>4
	p.IPVersion = 6
	p.DSCP, p.ECN = tc>>2, tc&3
	p.TTL = b[7]
	p.IPProto = b[6]
	p.SrcIP = netip.AddrFrom16([16]byte(b[8:24]))
	p.DstIP = netip.AddrFrom16([16]byte(b[24:40]))
	if b[6] != grhNextBTH {
		return
	}
	if total < GRHLen+BTHLen+ICRCLen {
		malformed(p, "GRH payload length too short for BTH and ICRC")
		return
	}
	if len(b) < GRHLen+BTHLen {
		p.BTHCut = true
		return
	}
	if len(b) > total {
		b = b[:total]
	}
	readBTH(&p.BTH, b[GRHLen:GRHLen+BTHLen])
	p.HasBTH = true
	p.Kind = KindRoCE
	if p.BTH.Opcode == OpcodeCNP {
		p.Kind = KindCNP
	}
	want, extLen := opcodeExt[p.BTH.Opcode], int(opcodeExtLen[p.BTH.Opcode])
	payload := total - GRHLen - BTHLen - extLen - int(p.BTH.Pad) - ICRCLen
	if payload < 0 {
		malformed(p, "GRH payload length too short for the opcode's headers")
		p.ICRCStatus = ICRCMalformed
	} else {
		p.PayloadLen = payload
		p.HasPayloadLen = true
	}
	rest := p.extHeaders(b[GRHLen+BTHLen:], want)
	if p.Ext&ExtDETH != 0 && p.BTH.DestQP == 1 && rest != nil {
		p.cm(rest)
	}
	if len(b) >= total && payload >= 0 {
		p.ICRC = StoredICRC(b)
		if computeICRCv1(b, &d.scratch) == p.ICRC {
			p.ICRCStatus = ICRCOK
		} else {
			p.ICRCStatus = ICRCBad
		}
	}
}

// readBTH reads the 12 bytes of a BTH into f (all of f is set).
func readBTH(f *BTHFields, bth []byte) {
	*f = BTHFields{
		Opcode: Opcode(bth[0]),
		SE:     bth[1]&0x80 != 0,
		MigReq: bth[1]&0x40 != 0,
		Pad:    bth[1] >> 4 & 3,
		TVer:   bth[1] & 0x0F,
		PKey:   binary.BigEndian.Uint16(bth[2:4]),
		FECN:   bth[4]&0x80 != 0,
		BECN:   bth[4]&0x40 != 0,
		DestQP: uint32(bth[5])<<16 | uint32(bth[6])<<8 | uint32(bth[7]),
		AckReq: bth[8]&0x80 != 0,
		PSN:    uint32(bth[9])<<16 | uint32(bth[10])<<8 | uint32(bth[11]),
	}
}

// ComputeICRCv1 returns the RoCEv1 invariant CRC of a GRH-led packet: pkt
// starts at the GRH and ends at the last byte of the ICRC field. It returns
// false when pkt is too short for the GRH, BTH and ICRC.
func ComputeICRCv1(pkt []byte) (uint32, bool) {
	if len(pkt) < GRHLen+BTHLen+ICRCLen {
		return 0, false
	}
	var s icrcScratch
	return computeICRCv1(pkt, &s), true
}

// computeICRCv1 is ComputeICRCv1 on a packet known to be long enough, with
// s as scratch space for the masked headers.
func computeICRCv1(pkt []byte, s *icrcScratch) uint32 {
	h := s[:GRHLen+BTHLen]
	copy(h, pkt)
	h[0] |= 0x0F // TClass (high nibble) ...
	h[1] = 0xFF  // ... TClass (low nibble) and FlowLabel
	h[2], h[3] = 0xFF, 0xFF
	h[7] = 0xFF        // HopLmt
	h[GRHLen+4] = 0xFF // BTH FECN, BECN, reserved
	crc := crc32.Update(icrcSeed, crc32.IEEETable, h)
	return crc32.Update(crc, crc32.IEEETable, pkt[GRHLen+BTHLen:len(pkt)-ICRCLen])
}
