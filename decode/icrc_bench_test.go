package decode

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// icrcReference is the ICRC as the spec writes it: CRC-32 over 8 bytes of
// 0xFF and the IP packet with the variant fields set to ones, ICRC excluded.
func icrcReference(ip []byte, udpOff int) uint32 {
	b := append([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, ip[:len(ip)-ICRCLen]...)
	h := b[8:]
	if ip[0]>>4 == 4 {
		h[1], h[8], h[10], h[11] = 0xFF, 0xFF, 0xFF, 0xFF
	} else {
		h[0] |= 0x0F
		h[1], h[2], h[3], h[7] = 0xFF, 0xFF, 0xFF, 0xFF
	}
	h[udpOff+6], h[udpOff+7], h[udpOff+8+4] = 0xFF, 0xFF, 0xFF
	return crc32.ChecksumIEEE(b)
}

// The block-assembling ICRC equals the reference for every header layout
// and payload length around the 16- and 64-byte boundaries.
func TestComputeICRCMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s icrcScratch
	for _, v6 := range []bool{false, true} {
		for _, extra := range []int{0, 4, 8, 40, 200} { // IPv4 options or IPv6 extension headers
			if !v6 && extra > 40 {
				continue
			}
			for payload := 0; payload < 300; payload++ {
				udpOff := 20 + extra
				if v6 {
					udpOff = 40 + extra
				}
				ip := make([]byte, udpOff+8+BTHLen+payload+ICRCLen)
				for i := range ip {
					ip[i] = byte(rng.Uint32())
				}
				ip[0] = 0x45
				if v6 {
					ip[0] = 0x60 | ip[0]&0x0F
				}
				want := icrcReference(ip, udpOff)
				if got, ok := computeICRC(ip, udpOff, &s); !ok || got != want {
					t.Fatalf("v6=%v extra=%d payload=%d: got %#x %v, want %#x", v6, extra, payload, got, ok, want)
				}
			}
		}
	}
}

func BenchmarkICRC(b *testing.B) {
	for _, n := range []int{4, 1024 + 16, 4096} {
		ip := make([]byte, 20+8+BTHLen+n+ICRCLen)
		ip[0] = 0x45
		var s icrcScratch
		b.Run(string(rune('0'+len(ip)/1000))+"k", func(b *testing.B) {
			b.SetBytes(int64(len(ip)))
			for b.Loop() {
				computeICRC(ip, 20, &s)
			}
		})
	}
}
