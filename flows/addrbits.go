package flows

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"unsafe"
)

// addrBits folds an address into 64 bits: an IPv4 address is its 32-bit
// value, any other the two halves of its 16 bytes mixed. It reads the
// 128-bit value and the kind straight from netip.Addr's fields (two words
// and a handle that is the same for every IPv4 address), where As4 and
// As16 cost a call, tests and copies through memory: it is on the
// producer's path for every frame (FlowHash). Should netip.Addr's layout
// ever differ from addrWords, addrLayoutOK is false and addrBitsSafe, the
// same function through netip's methods, serves (TestAddrBits checks both
// on every kind of address).
func addrBits(a *netip.Addr) uint64 {
	if !addrLayoutOK {
		return addrBitsSafe(a)
	}
	return addrWordBits(a)
}

// addrWordBits is addrBits where addrLayoutOK holds: no call, so that it
// inlines without a profile's help (FlowHash).
func addrWordBits(a *netip.Addr) uint64 {
	w := (*addrWords)(unsafe.Pointer(a))
	if w.z == addrZ4 {
		return uint64(uint32(w.lo))
	}
	return bits.ReverseBytes64(w.lo) ^ bits.ReverseBytes64(w.hi)*0x94D049BB133111EB
}

// addrBitsSafe is addrBits through netip's methods. IPv4 takes the short
// way: As16 returns its array through memory, copied with wide loads that
// stall on the narrow stores that wrote it.
func addrBitsSafe(a *netip.Addr) uint64 {
	if a.Is4() {
		b := a.As4()
		return uint64(binary.BigEndian.Uint32(b[:]))
	}
	b := a.As16()
	return binary.LittleEndian.Uint64(b[8:]) ^ binary.LittleEndian.Uint64(b[:8])*0x94D049BB133111EB
}

// addrWords is netip.Addr's layout (Go 1.22 on): the address as a 128-bit
// big-endian number in two words, then a handle whose pointer tells IPv4,
// IPv6 and the IPv6 zone apart.
type addrWords struct {
	hi, lo uint64
	z      unsafe.Pointer
}

var (
	addrZ4       = addrZ(netip.AddrFrom4([4]byte{}))
	addrLayoutOK = checkAddrLayout()
)

// addrZ returns the handle word of a (the same for every IPv4 address).
func addrZ(a netip.Addr) unsafe.Pointer { return (*addrWords)(unsafe.Pointer(&a)).z }

// checkAddrLayout reports whether netip.Addr is laid out as addrWords
// says, on addresses of each kind.
func checkAddrLayout() bool {
	if unsafe.Sizeof(netip.Addr{}) != unsafe.Sizeof(addrWords{}) {
		return false
	}
	v4 := netip.AddrFrom4([4]byte{192, 0, 2, 1})
	v6 := netip.AddrFrom16([16]byte{0x20, 1, 0x0d, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	w4, w6 := (*addrWords)(unsafe.Pointer(&v4)), (*addrWords)(unsafe.Pointer(&v6))
	return w4.z == addrZ4 && w4.hi == 0 && w4.lo == 0xFFFF_C000_0201 &&
		w6.z != addrZ4 && w6.hi == 0x2001_0db8_0102_0304 && w6.lo == 0x0506_0708_090a_0b0c
}
