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
	var hdr [60]byte
	return computeICRC(ip, udpOff, &hdr)
}

// computeICRC is ComputeICRC with a caller-provided scratch buffer for the
// masked header copies, so that the decoder's hot path does not allocate
// (a stack buffer would escape through crc32.Update).
func computeICRC(ip []byte, udpOff int, hdr *[60]byte) (uint32, bool) {
	if len(ip) < 1 || udpOff < 0 || len(ip) < udpOff+8+BTHLen+ICRCLen {
		return 0, false
	}
	crc := icrcSeed
	switch ip[0] >> 4 {
	case 4:
		if udpOff < 20 || udpOff > 60 {
			return 0, false
		}
		n := copy(hdr[:udpOff], ip[:udpOff])
		hdr[1] = 0xFF                 // TOS
		hdr[8] = 0xFF                 // TTL
		hdr[10], hdr[11] = 0xFF, 0xFF // header checksum
		crc = crc32.Update(crc, crc32.IEEETable, hdr[:n])
	case 6:
		if udpOff < 40 {
			return 0, false
		}
		copy(hdr[:40], ip[:40])
		hdr[0] |= 0x0F // traffic class (low nibble of byte 0, high nibble of byte 1)
		hdr[1] = 0xFF  // traffic class low nibble + flow label high nibble
		hdr[2], hdr[3] = 0xFF, 0xFF
		hdr[7] = 0xFF // hop limit
		crc = crc32.Update(crc, crc32.IEEETable, hdr[:40])
		// IPv6 extension headers, if any, are invariant.
		crc = crc32.Update(crc, crc32.IEEETable, ip[40:udpOff])
	default:
		return 0, false
	}
	copy(hdr[:8+BTHLen], ip[udpOff:udpOff+8+BTHLen])
	hdr[6], hdr[7] = 0xFF, 0xFF // UDP checksum
	hdr[8+4] = 0xFF             // BTH FECN/BECN/reserved byte
	crc = crc32.Update(crc, crc32.IEEETable, hdr[:8+BTHLen])
	crc = crc32.Update(crc, crc32.IEEETable, ip[udpOff+8+BTHLen:len(ip)-ICRCLen])
	return crc, true
}

// StoredICRC returns the ICRC stored in the last 4 bytes of b (little-endian).
func StoredICRC(b []byte) uint32 { return binary.LittleEndian.Uint32(b[len(b)-ICRCLen:]) }
