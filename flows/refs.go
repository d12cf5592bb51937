package flows

import (
	"net/netip"
	"unsafe"

	"github.com/rocetrace/rocetrace/decode"
)

// maxRefs bounds a Resolver: once a key comes past it, no frame gets a
// reference any more (the table finds the flows by key, as without a
// Resolver). It keeps the
// Resolver's index to at most 4 MiB (64 bytes a slot, at most half full)
// on captures of many flows, where each frame's flow state is a cache miss
// anyway.
const maxRefs = 1 << 15

// refShift: a key's first slot in the Resolver's index is refHash's bits
// from refShift up (the well-mixed high bits of a product; the index has at
// most 2·maxRefs slots, 16 bits).
const refShift = 40

// Resolver numbers the flows of the frames a pipeline decodes, on the
// decoding goroutine, so that the table's goroutine finds a frame's flow by
// its number (Table.ObserveFlowRef: one load from an array) instead of
// probing its index and comparing the key: the flow table's goroutine is
// the slower of the two on mirror captures, and the key compare loads a
// line of the Flow that nothing else on that path needs. References are 1,
// 2, ... in first-seen order of the keys; 0 is none. A Resolver has its own
// copy of the keys, and is used from one goroutine (not the table's); make
// it with Table.NewResolver.
type Resolver struct {
	// slots is an open-addressing index (linear probing; len a power of
	// two, at most half full) that holds the keys themselves: a frame's
	// lookup loads one cache line, not a slot and then its key (two
	// dependent misses: the producer streams the capture and the packets
	// through its caches between two frames of a flow).
	slots []refSlot
	n     int  // keys filed (the latest reference)
	full  bool // a key came past maxRefs: no more references (slots is dropped)
}

// refSlot is a key as the Resolver compares it (the addresses, and the rest
// in one word: refMeta) and its reference (0: an empty slot). 64 bytes.
type refSlot struct {
	meta     uint64
	src, dst netip.Addr
	ref      uint32
}

// refMeta packs a key's parts other than the addresses (keyParts).
func refMeta(dstQPN, srcQPN uint32, ud, hasSrcQPN bool) uint64 {
	m := uint64(dstQPN) | uint64(srcQPN)<<24
	if ud {
		m |= 1 << 48
	}
	if hasSrcQPN {
		m |= 1 << 49
	}
	return m
}

// refHash is the Resolver's hash of a key (multiplicative: the index takes
// its bits from refShift up), over the addresses' 128-bit values as
// net/netip holds them (addrWords): cheaper than hashParts, which goes
// through As4 or As16 and which the Resolver computes only for the frames
// it gives no reference. Keys compare with ==, so the hash is only ever a
// hint.
func refHash(src, dst *netip.Addr, meta uint64) uint64 {
	sh, sl := addrWords(src)
	dh, dl := addrWords(dst)
	x := meta*0x9E3779B97F4A7C15 ^ dl*0xC2B2AE3D27D4EB4F ^ sl*0x94D049BB133111EB ^ dh ^ sh<<1
	return x * 0xBF58476D1CE4E5B9
}

// addrWords returns the high and low 64 bits of a's 128-bit value, which a
// netip.Addr holds first (TestAddrWords checks it; were it to change, the
// hash would only be worse, never wrong).
func addrWords(a *netip.Addr) (hi, lo uint64) {
	w := (*[2]uint64)(unsafe.Pointer(a))
	return w[0], w[1]
}

// NewResolver returns a Resolver whose references ObserveFlowRef takes
// from now on; the references of an earlier Resolver are forgotten. Call it
// on the table's goroutine, before the Resolver's goroutine starts.
func (t *Table) NewResolver() *Resolver {
	clear(t.refs)
	t.refs = t.refs[:0]
	return &Resolver{slots: make([]refSlot, 64)}
}

// Resolve returns p's flow reference, the same for every frame of the same
// key (0: a frame of no flow, or any frame once a key came past maxRefs),
// and for a frame of a flow but no reference FlowHash(p), else 0
// (ObserveFlowRef wants the hash only when it has no reference).
func (r *Resolver) Resolve(p *decode.Packet) (h uint64, ref uint32) {
	dstQPN, srcQPN, ud, hasSrcQPN, ok := keyParts(p)
	if !ok {
		return 0, 0
	}
	if r.full {
		return hashParts(&p.SrcIP, &p.DstIP, dstQPN, srcQPN), 0
	}
	meta := refMeta(dstQPN, srcQPN, ud, hasSrcQPN)
	rh := refHash(&p.SrcIP, &p.DstIP, meta)
	if s := &r.slots[rh>>refShift&uint64(len(r.slots)-1)]; s.meta == meta && s.ref != 0 && s.src == p.SrcIP && s.dst == p.DstIP {
		return 0, s.ref
	}
	if ref = r.resolveSlow(p, rh, meta); ref != 0 {
		return 0, ref
	}
	return hashParts(&p.SrcIP, &p.DstIP, dstQPN, srcQPN), 0
}

// resolveSlow is Resolve past the key's first slot: the probe goes on, and
// a key not found is added (while there is room).
func (r *Resolver) resolveSlow(p *decode.Packet, rh, meta uint64) uint32 {
	mask := uint64(len(r.slots) - 1)
	i := rh >> refShift & mask
	for ; r.slots[i].ref != 0; i = (i + 1) & mask {
		if s := &r.slots[i]; s.meta == meta && s.src == p.SrcIP && s.dst == p.DstIP {
			return s.ref
		}
	}
	if r.n >= maxRefs {
		// A capture of this many flows misses the caches on each frame's
		// flow state anyway; probing an index of this size for every new
		// key would add a miss or two a frame (measured: +10% CPU on a
		// capture of 1M one-packet flows). From here on every frame goes
		// without a reference (the table finds the flows by key).
		r.full, r.slots = true, nil
		return 0
	}
	r.n++
	r.slots[i] = refSlot{meta: meta, src: p.SrcIP, dst: p.DstIP, ref: uint32(r.n)}
	if 2*r.n > len(r.slots) {
		r.grow()
	}
	return uint32(r.n)
}

// grow doubles the index and files every key again.
func (r *Resolver) grow() {
	old := r.slots
	r.slots = make([]refSlot, 2*len(old))
	mask := uint64(len(r.slots) - 1)
	for j := range old {
		s := &old[j]
		if s.ref == 0 {
			continue
		}
		i := refHash(&s.src, &s.dst, s.meta) >> refShift & mask
		for r.slots[i].ref != 0 {
			i = (i + 1) & mask
		}
		r.slots[i] = *s
	}
}

// ObserveFlowRef is ObserveFlowHash for a frame whose Resolver (the
// table's latest, NewResolver) gave h and ref: a known reference finds the
// flow without a lookup; 0 is no reference (the flow is looked up by key).
func (t *Table) ObserveFlowRef(p *decode.Packet, h uint64, ref uint32) *Flow {
	if ref == 0 || ref >= uint32(len(t.refs)) || t.refs[ref] == nil || p.Malformed {
		f := t.ObserveFlowHash(p, h)
		if f != nil && ref != 0 {
			t.setRef(ref, f)
		}
		return f
	}
	f := t.refs[ref]
	t.frameEvents, t.frameStart = 0, t.events.len()
	t.observeFlow(f, p)
	return f
}

// setRef records that reference ref is flow f.
func (t *Table) setRef(ref uint32, f *Flow) {
	for len(t.refs) <= int(ref) {
		t.refs = append(t.refs, nil) // references come in order: amortised growth
	}
	t.refs[ref] = f
}
