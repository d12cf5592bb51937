package flows

import (
	"net/netip"
	"strconv"

	"github.com/rocetrace/rocetrace/decode"
)

// Key identifies one flow: one direction of RoCE traffic between two IP
// addresses towards one destination QP, plus the DETH source QP for UD.
// It is a fixed-size comparable value, cheap to hash.
type Key struct {
	Src, Dst  netip.Addr
	DstQPN    uint32
	SrcQPN    uint32 // UD only: DETH source QP (valid when HasSrcQPN)
	UD        bool   // the flow carries UD traffic; SrcQPN is part of the key
	HasSrcQPN bool   // SrcQPN is known (UD frame with a whole DETH)
}

// KeyOf returns the flow key of a decoded frame, and false when the frame
// belongs to no flow (no whole BTH, not RoCE/CNP, or malformed).
func KeyOf(p *decode.Packet) (Key, bool) {
	dst, src, ud, hasSrc, ok := keyParts(p) // the rule is there, shared with the lookups
	if !ok {
		return Key{}, false
	}
	return Key{Src: p.SrcIP, Dst: p.DstIP, DstQPN: dst, SrcQPN: src, UD: ud, HasSrcQPN: hasSrc}, true
}

// String returns the flow id used in reports: "SRC>DST:qp0xNNNNNN", with
// IPv6 addresses in brackets ("[fd00::1]>[fd00::2]:qp0x000011") and, for UD,
// "/src0xNNNNNN" appended ("/src?" when the source QP was cut off).
// QPNs are six lower-case hex digits.
func (k Key) String() string {
	b := make([]byte, 0, 64)
	b = appendAddr(b, k.Src)
	b = append(b, '>')
	b = appendAddr(b, k.Dst)
	b = append(b, ":qp0x"...)
	b = appendHex6(b, k.DstQPN)
	if k.UD {
		if k.HasSrcQPN {
			b = append(b, "/src0x"...)
			b = appendHex6(b, k.SrcQPN)
		} else {
			b = append(b, "/src?"...)
		}
	}
	return string(b)
}

func appendAddr(b []byte, a netip.Addr) []byte {
	if !a.IsValid() {
		return append(b, '?')
	}
	if a.Is6() && !a.Is4In6() {
		b = append(b, '[')
		b = a.AppendTo(b)
		return append(b, ']')
	}
	return a.AppendTo(b)
}

func appendHex6(b []byte, v uint32) []byte {
	s := strconv.FormatUint(uint64(v&psnMask)|1<<24, 16) // "1" + six digits
	return append(b, s[1:]...)
}

// hostPair is a directed pair of addresses: the set of flows from Src to Dst.
type hostPair struct {
	Src, Dst netip.Addr
}

// hash returns the key of the pair's group in Table.hosts: a 64-bit hash,
// not the 48-byte pair (a capture of many host pairs pays ~90 bytes a pair
// for the map's slots otherwise). Pairs may collide: a group can hold
// flows of several pairs, and its readers keep the flows of their pair
// (from).
func (hp hostPair) hash() uint64 {
	h := addrBits(&hp.Src)*0x9E3779B97F4A7C15 ^ addrBits(&hp.Dst)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>31
}

// from reports whether flow c goes from Src to Dst.
func (hp hostPair) from(c *Flow) bool { return c.Key.Src == hp.Src && c.Key.Dst == hp.Dst }
