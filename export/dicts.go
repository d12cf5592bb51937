package export

import (
	"net/netip"
	"slices"
	"unsafe"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// The dictionaries of packets.parquet's string columns, by row group: each
// value's index is found from what the row already has (an enum code, a
// binary address, a flow) without hashing or formatting a string for a
// value already seen.

// enumDict is the dictionary of a string column whose values are the names
// of an 8-bit enum: the code is the key, an array lookup.
type enumDict struct {
	slot [256]int32 // index+1; 0: not in the dictionary yet
	vals []string
}

func (d *enumDict) index(code uint8, names *[256]string) int32 {
	if s := d.slot[code]; s != 0 {
		return s - 1
	}
	d.vals = append(d.vals, names[code])
	d.slot[code] = int32(len(d.vals))
	return int32(len(d.vals) - 1)
}

func (d *enumDict) reset() { d.slot, d.vals = [256]int32{}, nil }

// lastDict is the dictionary of the file column: the name is nearly always
// the previous one, compared by pointer first.
type lastDict struct {
	last  string
	lastI int32
	m     map[string]int32
	vals  []string
}

func (d *lastDict) index(s string) int32 {
	if len(s) == len(d.last) && (unsafe.StringData(s) == unsafe.StringData(d.last) || s == d.last) && len(d.vals) > 0 {
		return d.lastI
	}
	i, ok := d.m[s]
	if !ok {
		i = int32(len(d.vals))
		d.vals = append(d.vals, s)
		d.m[s] = i
	}
	d.last, d.lastI = s, i
	return i
}

func (d *lastDict) reset() {
	d.last, d.lastI, d.vals = "", 0, nil
	if d.m == nil {
		d.m = make(map[string]int32)
	}
	clear(d.m)
}

// maxInterned bounds the address texts kept for the whole file.
const maxInterned = 1 << 16

// Direct-mapped caches in front of the address dictionaries' maps: an
// entry is valid when its gen is the dictionary's (a new row group bumps
// gen), and a miss goes to the map and takes the slot.
const cacheBits = 10

func cacheSlot(x uint64) uint64 { return (x * 0x9E3779B97F4A7C15) >> (64 - cacheBits) }

// macDict is the dictionary of a MAC address column, keyed by the address.
type macDict struct {
	cache [1 << cacheBits]struct {
		key uint64
		idx int32
		gen uint32
	}
	gen   uint32
	m     map[[6]byte]int32
	vals  []string
	texts map[[6]byte]string
	buf   []byte
}

func (d *macDict) index(mac [6]byte) int32 {
	key := uint64(mac[0]) | uint64(mac[1])<<8 | uint64(mac[2])<<16 | uint64(mac[3])<<24 | uint64(mac[4])<<32 | uint64(mac[5])<<40
	e := &d.cache[cacheSlot(key)]
	if e.gen == d.gen && e.key == key {
		return e.idx
	}
	i, ok := d.m[mac]
	if !ok {
		i = int32(len(d.vals))
		d.vals = append(d.vals, d.text(mac))
		d.m[mac] = i
	}
	e.key, e.idx, e.gen = key, i, d.gen
	return i
}

// text returns the text of mac, formatted once per file (up to
// maxInterned addresses), not once per row group.
func (d *macDict) text(mac [6]byte) string {
	if s, ok := d.texts[mac]; ok {
		return s
	}
	d.buf = decode.AppendMAC(d.buf[:0], mac)
	s := string(d.buf)
	if d.texts == nil {
		d.texts = make(map[[6]byte]string)
	}
	if len(d.texts) < maxInterned {
		d.texts[mac] = s
	}
	return s
}

func (d *macDict) reset() {
	d.vals = nil
	d.gen++
	if d.m == nil {
		d.m = make(map[[6]byte]int32)
	}
	clear(d.m)
}

// addrDict is the dictionary of an IP address column, keyed by the
// address; the text of an address is formatted once per row group.
type addrDict struct {
	cache [1 << cacheBits]struct {
		key netip.Addr
		idx int32
		gen uint32
	}
	gen   uint32
	m     map[netip.Addr]int32
	vals  []string
	texts map[netip.Addr]string // formatted once per file (up to maxInterned)
}

func (d *addrDict) index(a netip.Addr) int32 {
	b := a.As16()
	lo := uint64(b[8]) | uint64(b[9])<<8 | uint64(b[10])<<16 | uint64(b[11])<<24 | uint64(b[12])<<32 | uint64(b[13])<<40 | uint64(b[14])<<48 | uint64(b[15])<<56
	hi := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	e := &d.cache[cacheSlot(lo^hi*31)]
	if e.gen == d.gen && e.key == a {
		return e.idx
	}
	i, ok := d.m[a]
	if !ok {
		s, ok := d.texts[a]
		if !ok {
			s = a.String()
			if d.texts == nil {
				d.texts = make(map[netip.Addr]string)
			}
			if len(d.texts) < maxInterned {
				d.texts[a] = s
			}
		}
		i = int32(len(d.vals))
		d.vals = append(d.vals, s)
		d.m[a] = i
	}
	e.key, e.idx, e.gen = a, i, d.gen
	return i
}

func (d *addrDict) reset() {
	d.vals = nil
	d.gen++
	if d.m == nil {
		d.m = make(map[netip.Addr]int32)
	}
	clear(d.m)
}

// flowDict is the dictionary of the flow column, keyed by the flow's
// first-seen index (Export.Packet: an array lookup) or by its id (add).
type flowDict struct {
	slot []flowSlot // by flows.Flow.Index
	gen  uint32
	byID map[string]int32
	vals []string
}

// flowSlot is what a flow's previous row looked up: its flow dictionary
// index and, for each address column, the address and its index. A
// flow's frames nearly always carry the same addresses, so a row of a
// known flow costs comparisons, not hashing.
type flowSlot struct {
	idx              int32
	gen              uint32
	srcIP, dstIP     netip.Addr
	srcMAC, dstMAC   [6]byte
	iSrcIP, iDstIP   int32 // -1: not looked up yet
	iSrcMAC, iDstMAC int32
}

// slotOf returns the flowSlot of f for the current row group, or nil.
func (d *flowDict) slotOf(f *flows.Flow) *flowSlot {
	n := f.Index()
	if n < 0 {
		return nil
	}
	if n >= len(d.slot) {
		m := max(n+1, 2*len(d.slot))
		d.slot = slices.Grow(d.slot, m-len(d.slot))[:m]
	}
	s := &d.slot[n]
	if s.gen != d.gen {
		*s = flowSlot{idx: d.index(f.ID()), gen: d.gen, iSrcIP: -1, iDstIP: -1, iSrcMAC: -1, iDstMAC: -1}
	}
	return s
}

func (d *flowDict) index(id string) int32 {
	if i, ok := d.byID[id]; ok {
		return i
	}
	i := int32(len(d.vals))
	d.vals = append(d.vals, id)
	d.byID[id] = i
	return i
}

func (d *flowDict) reset() {
	d.vals = nil
	d.gen++
	if d.byID == nil {
		d.byID = make(map[string]int32)
	}
	clear(d.byID)
}

// Names of the enum codes, computed once so that unknown values (whose
// String allocates) cost nothing per packet.
var (
	kindNames          = enumNames(func(i int) string { return decode.Kind(i).String() })
	icrcNames          = enumNames(func(i int) string { return decode.ICRCStatus(i).String() })
	encapNames         = enumNames(func(i int) string { return decode.Encap(i).String() })
	transportCodeNames = enumNames(func(i int) string { return decode.Transport(i).String() })
)

func enumNames(name func(int) string) (a [256]string) {
	for i := range a {
		a[i] = name(i)
	}
	return a
}
