package flows

// PSN is a 24-bit packet sequence number. Arithmetic is serial, modulo 2^24:
// a PSN is "ahead" of another when it is within 2^23 after it.
type PSN uint32

// PSN space constants.
const (
	PSNModulus = 1 << 24         // size of the PSN space
	psnMask    = PSNModulus - 1  // low 24 bits
	psnHalf    = PSNModulus >> 1 // 2^23: the serial-arithmetic horizon
)

// Add returns p+n modulo 2^24; n may be negative.
func (p PSN) Add(n int64) PSN {
	return PSN(uint64(int64(p)+n) & psnMask)
}

// Diff returns the signed serial distance p-q in [-2^23, 2^23): positive
// when p is ahead of q, negative when it is behind, 0 when equal.
func (p PSN) Diff(q PSN) int64 {
	// The 24-bit difference, sign-extended: no branch, and cheap enough
	// for its callers on the hot path to be inlined.
	return int64(int32((uint32(p)-uint32(q))<<8) >> 8)
}

// Ahead reports whether p is ahead of q: 0 < p-q < 2^23 (mod 2^24).
func (p PSN) Ahead(q PSN) bool { return p.Diff(q) > 0 }
