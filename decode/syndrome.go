package decode

import "strconv"

// Syndrome is the 8-bit AETH syndrome: bits 6-5 select ACK, RNR NAK or NAK,
// bits 4-0 carry the credit count, RNR timer code or NAK code.
type Syndrome uint8

// SyndromeKind is the kind selected by bits 6-5 of a Syndrome.
type SyndromeKind uint8

// Syndrome kinds.
const (
	SyndromeACK      SyndromeKind = 0
	SyndromeRNRNAK   SyndromeKind = 1
	SyndromeReserved SyndromeKind = 2
	SyndromeNAK      SyndromeKind = 3
)

// NAK codes (bits 4-0 of a NAK syndrome).
const (
	NAKCodePSNSequenceError       uint8 = 0
	NAKCodeInvalidRequest         uint8 = 1
	NAKCodeRemoteAccessError      uint8 = 2
	NAKCodeRemoteOperationalError uint8 = 3
	NAKCodeInvalidRDRequest       uint8 = 4
)

// Kind returns the syndrome's kind (bits 6-5).
func (s Syndrome) Kind() SyndromeKind { return SyndromeKind(s >> 5 & 3) }

// Value returns bits 4-0: credits, RNR timer code or NAK code.
func (s Syndrome) Value() uint8 { return uint8(s) & 0x1F }

// String names the kind: "ACK", "RNR_NAK", "NAK" or "RESERVED".
func (k SyndromeKind) String() string {
	switch k {
	case SyndromeACK:
		return "ACK"
	case SyndromeRNRNAK:
		return "RNR_NAK"
	case SyndromeNAK:
		return "NAK"
	case SyndromeReserved:
		return "RESERVED"
	}
	return "RESERVED"
}

// NAKCodeName returns the contract name of a NAK code, e.g.
// "PSN_SEQUENCE_ERROR"; unassigned codes are "RESERVED_n".
func NAKCodeName(code uint8) string {
	switch code {
	case NAKCodePSNSequenceError:
		return "PSN_SEQUENCE_ERROR"
	case NAKCodeInvalidRequest:
		return "INVALID_REQUEST"
	case NAKCodeRemoteAccessError:
		return "REMOTE_ACCESS_ERROR"
	case NAKCodeRemoteOperationalError:
		return "REMOTE_OPERATIONAL_ERROR"
	case NAKCodeInvalidRDRequest:
		return "INVALID_RD_REQUEST"
	}
	return "RESERVED_" + strconv.Itoa(int(code))
}

// rnrTimerNs holds the RNR NAK timer values in nanoseconds, by 5-bit code
// (IBA Vol. 1 table 45). Code 0 is the longest, 655.36 ms.
var rnrTimerNs = [32]int64{
	655_360_000, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 120_000,
	160_000, 240_000, 320_000, 480_000, 640_000, 960_000, 1_280_000, 1_920_000,
	2_560_000, 3_840_000, 5_120_000, 7_680_000, 10_240_000, 15_360_000, 20_480_000, 30_720_000,
	40_960_000, 61_440_000, 81_920_000, 122_880_000, 163_840_000, 245_760_000, 327_680_000, 491_520_000,
}

// RNRTimerNs returns the minimum RNR NAK delay, in nanoseconds, that a 5-bit
// RNR timer code stands for.
func RNRTimerNs(code uint8) int64 { return rnrTimerNs[code&0x1F] }
