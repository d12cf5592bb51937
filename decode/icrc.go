package decode

import (
	"encoding/binary"
	"hash/crc32"
)

// icrcSeed is the CRC-32 state after the 8 bytes of 0xFF that stand in for
// the InfiniBand LRH.
var icrcSeed = crc32.Update(0, crc32.IEEETable, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})

// ComputeICRC returns the RoCEv2 invariant CRC of an IP packet that carries
// UDP/BTH. ip must start at the IP header and end at the last byte of the ICRC
// field (the UDP datagram's end); the ICRC covers everything before those
// last 4 bytes, with the variant fields masked to ones (IPv4 TOS, TTL and
// checksum; IPv6 traffic class, flow label and hop limit; UDP checksum; BTH
// byte 4). udpOff is the offset of the UDP header within ip. It returns false
// when ip is too short to hold the headers it names.
//
// The result is compared with the 4 trailing bytes read little-endian.
func ComputeICRC(ip []byte, udpOff int) (uint32, bool) {
	var s icrcScratch
	return computeICRC(ip, udpOff, &s)
}

// icrcScratchLen is the size of the buffer computeICRC assembles the masked
// headers in: enough for IPv4 with options or IPv6 without extension
// headers, a few payload bytes and the zero padding.
const icrcScratchLen = 192

type icrcScratch [icrcScratchLen]byte

// computeICRC is ComputeICRC with a caller-provided scratch buffer for the
// masked header copies, so that the decoder's hot path does not allocate
// (a stack buffer would escape through crc32.Update).
//
// Speed: hash/crc32 uses carry-less multiplication (PCLMULQDQ) only for the
// multiple-of-16 part of an update of 64 bytes or more, and byte-wise tables
// for the rest. So the masked headers and the first few payload bytes are
// assembled into one block whose length, and that of the payload left after
// it, are multiples of 16; the block is padded in front with zeros. Leading
// zeros are free here: the 8 bytes of 0xFF that stand for the LRH start from
// the inverted initial state, so after the first 4 of them the CRC register
// is 0, and a register of 0 stays 0 over zero bytes. Hence
// ICRC = Update(0, FF×8 ‖ D) = Update(0xFFFFFFFF, 0…0 ‖ FF×4 ‖ D).
func computeICRC(ip []byte, udpOff int, s *icrcScratch) (uint32, bool) {
	if len(ip) < 1 || udpOff < 0 || len(ip) < udpOff+8+BTHLen+ICRCLen {
		return 0, false
	}
	v := ip[0] >> 4
	switch v {
	case 4:
		if udpOff < 20 || udpOff > 60 {
			return 0, false
		}
	case 6:
		if udpOff < 40 {
			return 0, false
		}
	default:
		return 0, false
	}
	hdrEnd := udpOff + 8 + BTHLen // IP header (+ options or extension headers), UDP, BTH
	restLen := len(ip) - ICRCLen - hdrEnd
	k := restLen & 15 // payload bytes moved into the block
	if restLen-k < 64 {
		k = restLen // short: all of it
	}
	m := hdrEnd + k // the packet's bytes in the block
	n := max(64, (4+m+15)&^15)
	if n > len(s) {
		return computeICRCSplit(ip, udpOff, s), true // long IPv6 extension headers
	}
	start := n - 4 - m
	// start < 32: hdrEnd >= 40, so n = 64 leaves at most 20 bytes in front
	// and a rounded-up n at most 15. Zeroing 32 bytes whatever start is
	// costs two stores, where clear(s[:start]) costs a call.
	*(*[32]byte)(s[:]) = [32]byte{}
	binary.LittleEndian.PutUint32(s[start:], 0xFFFFFFFF)
	h := s[start+4 : n]
	copy(h, ip[:m]) // the headers and the payload bytes of the block: one copy
	if v == 4 {
		h[1] = 0xFF               // TOS
		h[8] = 0xFF               // TTL
		h[10], h[11] = 0xFF, 0xFF // header checksum
	} else {
		h[0] |= 0x0F // traffic class (low nibble of byte 0, high nibble of byte 1)
		h[1] = 0xFF  // traffic class low nibble + flow label high nibble
		h[2], h[3] = 0xFF, 0xFF
		h[7] = 0xFF // hop limit
		// IPv6 extension headers, if any, are invariant.
	}
	h[udpOff+6], h[udpOff+7] = 0xFF, 0xFF // UDP checksum
	h[udpOff+8+4] = 0xFF                  // BTH FECN/BECN/reserved byte
	crc := crc32.Update(0xFFFFFFFF, crc32.IEEETable, s[:n])
	if k < restLen {
		crc = crc32.Update(crc, crc32.IEEETable, ip[m:len(ip)-ICRCLen])
	}
	return crc, true
}

// computeICRCSplit computes the ICRC piece by piece (masked IP header,
// extension headers in place, masked UDP/BTH, payload in place), for
// headers too long for the scratch block. ip and udpOff are valid (see
// computeICRC) and ip holds IPv6.
func computeICRCSplit(ip []byte, udpOff int, s *icrcScratch) uint32 {
	hdr := s[:40]
	copy(hdr, ip[:40])
	hdr[0] |= 0x0F
	hdr[1] = 0xFF
	hdr[2], hdr[3] = 0xFF, 0xFF
	hdr[7] = 0xFF
	crc := crc32.Update(icrcSeed, crc32.IEEETable, hdr)
	crc = crc32.Update(crc, crc32.IEEETable, ip[40:udpOff])
	ub := s[:8+BTHLen]
	copy(ub, ip[udpOff:udpOff+8+BTHLen])
	ub[6], ub[7] = 0xFF, 0xFF
	ub[8+4] = 0xFF
	crc = crc32.Update(crc, crc32.IEEETable, ub)
	return crc32.Update(crc, crc32.IEEETable, ip[udpOff+8+BTHLen:len(ip)-ICRCLen])
}

// StoredICRC returns the ICRC stored in the last 4 bytes of b (little-endian).
func StoredICRC(b []byte) uint32 { return binary.LittleEndian.Uint32(b[len(b)-ICRCLen:]) }
