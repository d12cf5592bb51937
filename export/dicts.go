package export

import (
	"encoding/binary"
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

// maxInterned bounds the addresses of a column given an id (and their
// texts kept) for the whole file (a variable for the tests).
var maxInterned = 1 << 16

// Direct-mapped caches in front of the address tables' maps: a miss goes
// to the map and takes the slot.
const cacheBits = 10

func cacheSlot(x uint64) uint64 { return (x * 0x9E3779B97F4A7C15) >> (64 - cacheBits) }

// addrDict is the dictionary of an address column (K: a MAC or an IP
// address). Each address of the file gets an id, once, with its text
// (up to maxInterned addresses; past that an address is looked up and
// formatted once per row group, in m); an id's index in the row group's
// dictionary is stamped with the group's gen, so that a new row group
// costs no map operation for an address seen before, and a flow's slot
// (addrSlot) keeps the id of its address across row groups.
type addrDict[K comparable] struct {
	cache [1 << cacheBits]struct {
		key K
		ref int32 // id+1; 0: empty
	}
	hash   func(K) uint64
	format func(K) string
	ids    map[K]int32 // id by address
	texts  []string    // by id
	grp    []idxStamp  // by id
	gen    uint32
	vals   []string
	m      map[K]int32 // the row group's indexes of the addresses past maxInterned
}

// idxStamp is an index in the row group of generation gen.
type idxStamp struct {
	gen uint32
	idx int32
}

// addrSlot is what a flow's previous row found for one address column:
// the address, its id+1 (ref; 0: none) and its index in the row group's
// dictionary (-1: not looked up in this row group).
type addrSlot[K comparable] struct {
	key K
	ref int32
	idx int32
}

func newMACDict() addrDict[[6]byte] {
	return addrDict[[6]byte]{
		hash: func(m [6]byte) uint64 {
			return uint64(m[0]) | uint64(m[1])<<8 | uint64(m[2])<<16 | uint64(m[3])<<24 | uint64(m[4])<<32 | uint64(m[5])<<40
		},
		format: func(m [6]byte) string { return string(decode.AppendMAC(nil, m)) },
	}
}

func newIPDict() addrDict[netip.Addr] {
	return addrDict[netip.Addr]{
		hash: func(a netip.Addr) uint64 {
			b := a.As16()
			return binary.LittleEndian.Uint64(b[8:]) ^ binary.LittleEndian.Uint64(b[:8])*31
		},
		format: netip.Addr.String,
	}
}

// ref returns the id+1 of k, giving it one if it has none and the file
// has fewer than maxInterned; 0 past that.
func (d *addrDict[K]) ref(k K) int32 {
	e := &d.cache[cacheSlot(d.hash(k))]
	if e.ref != 0 && e.key == k {
		return e.ref
	}
	id, ok := d.ids[k]
	if !ok {
		if len(d.texts) >= maxInterned {
			return 0
		}
		if d.ids == nil {
			d.ids = make(map[K]int32)
		}
		id = int32(len(d.texts))
		d.ids[k] = id
		d.texts = append(d.texts, d.format(k))
		d.grp = append(d.grp, idxStamp{})
	}
	e.key, e.ref = k, id+1
	return id + 1
}

// lookup sets s to k's id and index in the row group's dictionary, adding
// k to it if it is not there yet, and returns the index.
func (d *addrDict[K]) lookup(s *addrSlot[K], k K) int32 {
	if s.ref == 0 || s.key != k {
		s.key, s.ref = k, d.ref(k)
	}
	if s.ref == 0 {
		i, ok := d.m[k]
		if !ok {
			i = int32(len(d.vals))
			d.vals = append(d.vals, d.format(k))
			d.m[k] = i
		}
		s.idx = i
		return i
	}
	g := &d.grp[s.ref-1]
	if g.gen != d.gen {
		g.gen, g.idx = d.gen, int32(len(d.vals))
		d.vals = append(d.vals, d.texts[s.ref-1])
	}
	s.idx = g.idx
	return g.idx
}

// reset starts the dictionary of a new row group (gen 1 for the first).
func (d *addrDict[K]) reset() {
	d.vals = nil
	d.gen++
	if d.m == nil {
		d.m = make(map[K]int32)
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
// index and, for each address column, the address, its id and its index.
// A flow's frames nearly always carry the same addresses, so a row of a
// known flow costs comparisons, not hashing, and its first row of a row
// group an array lookup by the address's id.
type flowSlot struct {
	idx            int32
	gen            uint32
	srcIP, dstIP   addrSlot[netip.Addr]
	srcMAC, dstMAC addrSlot[[6]byte]
}

// newGroup marks the slot's indexes as not looked up in the row group of
// generation gen; the addresses and their ids stay.
func (s *flowSlot) newGroup(gen uint32) {
	s.gen = gen
	s.srcIP.idx, s.dstIP.idx, s.srcMAC.idx, s.dstMAC.idx = -1, -1, -1, -1
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
		s.newGroup(d.gen)
		s.idx = d.index(f.ID())
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
