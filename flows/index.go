package flows

import (
	"net/netip"

	"github.com/rocetrace/rocetrace/decode"
)

// flowIndex finds flows by key. It is an open-addressing hash table
// (linear probing, at most half full) over a cheap hash of the key's
// fixed-size fields: a Go map keyed by the 64-byte Key costs as much as the
// rest of Observe, since it hashes and compares every byte. Flows are never
// removed. Its layout depends only on the keys and the order they were
// added in (growing re-adds them in that order), so a Clone, which adds the
// flows in first-seen order, builds the same index as the table it copies.
//
// Each slot keeps 32 bits of its flow's hash next to the pointer, so that a
// probe past other flows compares those bits and does not load the other
// flows' keys (each a cache miss in a table of thousands of flows).
type flowIndex struct {
	tags  []uint32 // hash bits of the flow in each slot (valid where slots[i] != nil)
	slots []*Flow  // len is a power of two, as len(tags)
	all   []*Flow  // flows in the order they were added
}

// newFlowIndex returns an index with room for n flows.
func newFlowIndex(n int) flowIndex {
	size := 64
	for size < 2*n {
		size *= 2
	}
	return flowIndex{tags: make([]uint32, size), slots: make([]*Flow, size)}
}

// hashKey mixes the destination QP, the UD source QP and both addresses.
func hashKey(k *Key) uint64 { return hashParts(&k.Src, &k.Dst, k.DstQPN, k.SrcQPN) }

func hashParts(src, dst *netip.Addr, dstQPN, srcQPN uint32) uint64 {
	return mixParts(addrBits(src), addrBits(dst), dstQPN, srcQPN)
}

// mixParts is hashParts of the addresses' addrBits.
func mixParts(src, dst uint64, dstQPN, srcQPN uint32) uint64 {
	h := uint64(dstQPN) | uint64(srcQPN)<<32
	h ^= src * 0x9E3779B97F4A7C15
	h ^= dst * 0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>31
}

// keyParts returns the parts of KeyOf(p) other than the addresses, which
// stay in p, and whether p belongs to a flow; KeyOf is built on it. The hot
// paths hash and compare these and p's addresses in place, as scalars, and
// build a Key only for a new flow: a Key (or any small struct) built on the
// stack and copied costs store-forwarding stalls, since the compiler copies
// it with 16-byte loads that the CPU cannot serve from the narrow stores
// that built it. Those stalls cost as much as the rest of a lookup.
func keyParts(p *decode.Packet) (dstQPN, srcQPN uint32, ud, hasSrcQPN, ok bool) {
	if !p.HasBTH || !p.IsRoCE() || p.Malformed {
		return 0, 0, false, false, false
	}
	dstQPN = p.BTH.DestQP & psnMask
	if p.BTH.Opcode.Transport() == decode.TransportUD {
		ud = true
		if p.Ext&decode.ExtDETH != 0 {
			srcQPN = p.DETH.SrcQP & psnMask
			hasSrcQPN = true
		}
	}
	return dstQPN, srcQPN, ud, hasSrcQPN, true
}

// isPacketKey reports whether k is the key of p, whose other parts are given.
func isPacketKey(k *Key, p *decode.Packet, dstQPN, srcQPN uint32, ud, hasSrcQPN bool) bool {
	return k.DstQPN == dstQPN && k.Src == p.SrcIP && k.Dst == p.DstIP &&
		k.SrcQPN == srcQPN && k.UD == ud && k.HasSrcQPN == hasSrcQPN
}

// sameKey is a == b, with the most selective fields first (the generated
// struct equality calls memeqbody for the whole key).
func sameKey(a, b *Key) bool {
	return a.DstQPN == b.DstQPN && a.Src == b.Src && a.Dst == b.Dst &&
		a.SrcQPN == b.SrcQPN && a.UD == b.UD && a.HasSrcQPN == b.HasSrcQPN
}

// FlowHash returns the hash the flow table files the flow of p under, or
// 0 for a frame of no flow. Table.ObserveFlowHash takes it: a pipeline
// computes it on the goroutine that decodes, and the one that runs the
// table saves the work (hashing both addresses costs as much as the rest
// of a lookup).
func FlowHash(p *decode.Packet) uint64 {
	dstQPN, srcQPN, _, _, ok := keyParts(p)
	if !ok {
		return 0
	}
	if !addrLayoutOK {
		return hashParts(&p.SrcIP, &p.DstIP, dstQPN, srcQPN)
	}
	// hashParts written out of helpers that inline by themselves: one
	// call a frame, whatever the profile (PGO) says of the call sites.
	return mixParts(addrWordBits(&p.SrcIP), addrWordBits(&p.DstIP), dstQPN, srcQPN)
}

// getPacket returns the flow of p, whose key parts (keyParts) are given,
// or nil. h is FlowHash(p), or 0 to compute it here.
func (x *flowIndex) getPacket(p *decode.Packet, h uint64, dstQPN, srcQPN uint32, ud, hasSrcQPN bool) *Flow {
	if h == 0 {
		h = hashParts(&p.SrcIP, &p.DstIP, dstQPN, srcQPN)
	}
	return x.getHashed(p, h, dstQPN, srcQPN, ud, hasSrcQPN)
}

// getHashed is getPacket for h = FlowHash(p), not 0: the probe alone,
// with no hashing (and none of its spills) on the path of a pipeline,
// which hashes on the producer.
func (x *flowIndex) getHashed(p *decode.Packet, h uint64, dstQPN, srcQPN uint32, ud, hasSrcQPN bool) *Flow {
	tag := uint32(h >> 32)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		f := x.slots[i]
		if f == nil || x.tags[i] == tag && isPacketKey(&f.Key, p, dstQPN, srcQPN, ud, hasSrcQPN) {
			return f
		}
	}
}

// get returns the flow with key k, or nil.
func (x *flowIndex) get(k *Key) *Flow {
	h := hashKey(k)
	tag := uint32(h >> 32)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		f := x.slots[i]
		if f == nil || x.tags[i] == tag && sameKey(&f.Key, k) {
			return f
		}
	}
}

// len returns the number of flows added.
func (x *flowIndex) len() int { return len(x.all) }

// add adds f, whose key is not in the index yet.
func (x *flowIndex) add(f *Flow) {
	if 2*(len(x.all)+1) > len(x.slots) {
		n := 2 * len(x.slots)
		x.tags, x.slots = make([]uint32, n), make([]*Flow, n)
		for _, g := range x.all {
			x.put(g)
		}
	}
	x.put(f)
	x.all = append(x.all, f)
}

func (x *flowIndex) put(f *Flow) {
	h := hashKey(&f.Key)
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != nil {
		i = (i + 1) & mask
	}
	x.tags[i], x.slots[i] = uint32(h>>32), f
}
