package colenc

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The dictionary of an integer column chunk (Column.IntDict): values by
// index in chunkState.ivals, index+1 by value in chunkState.islot.

// dictIndexes stores in dst the dictionary indexes of v, adding the values
// not yet in the chunk's dictionary, and returns them with the largest
// (0 if none). It marks the entries that v refers to, for usedRange. If
// the dictionary would outgrow IntDictMax or a value is out of its domain,
// the values added for v are taken out again and ok is false: the chunk
// falls back.
//
// A run of one value (a page of a constant column: VLAN, TTL, P_Key, ...,
// or its first rows) is looked up once; if it is the whole page, dst is
// returned empty and top is the index of every value (appendConstIndexes).
func (st *chunkState) dictIndexes(dst, v []int32) (idx []int32, top int32, ok bool) {
	if st.islot == nil {
		st.islot = new([IntDictDomain]uint16)
	}
	if len(v) == 0 {
		return dst[:0], 0, true
	}
	n0 := len(st.ivals)
	x0 := v[0]
	i := runLen(v)
	s0, ok := st.dictSlot(x0)
	if !ok {
		return st.undoDict(dst, n0)
	}
	st.used[s0-1] = 1
	if i == len(v) {
		return dst[:0], int32(s0) - 1, true
	}
	dst = slices.Grow(dst[:0], len(v))[:len(v)]
	for j := range dst[:i] {
		dst[j] = int32(s0) - 1
	}
	// The rest: values are looked up masked to the domain, and checked
	// against it once, after the loop (a value out of it makes the chunk
	// fall back, whatever its lookup gave).
	slot, used := st.islot, &st.used
	rest, out := v[i:], dst[i:]
	out = out[:len(rest)]
	var all uint32
	for j := 0; j < len(rest); j++ {
		k, a := knownIndexes(slot, used, rest[j:], out[j:])
		j, all = j+k, all|a
		if j == len(rest) {
			break
		}
		s, ok := st.dictSlot(rest[j])
		if !ok {
			return st.undoDict(dst, n0)
		}
		used[(s-1)&(IntDictMax-1)] = 1
		out[j] = int32(s) - 1
	}
	if all >= IntDictDomain {
		return st.undoDict(dst, n0)
	}
	return dst, st.topUsed(), true
}

// knownIndexes stores in out (at least as long as v) the dictionary
// indexes of the values that v starts with that are in the dictionary
// (slot) and marks them in used, up to the first value that is not, and
// returns their number, k, and the values it looked up ORed. The
// values are looked up masked to the domain: the caller checks the OR
// against it. A leaf function: its state stays in registers; four values
// a step while all four are known.
func knownIndexes(slot *[IntDictDomain]uint16, used *[IntDictMax]byte, v, out []int32) (k int, all uint32) {
	out = out[:len(v)]
	const m = IntDictDomain - 1
	for len(v)-k >= 4 {
		w, o := v[k:k+4:k+4], out[k:k+4:k+4]
		a, b, c, d := uint32(w[0]), uint32(w[1]), uint32(w[2]), uint32(w[3])
		sa, sb, sc, sd := slot[a&m], slot[b&m], slot[c&m], slot[d&m]
		if sa == 0 || sb == 0 || sc == 0 || sd == 0 {
			break
		}
		all |= a | b | c | d
		used[(sa-1)&(IntDictMax-1)] = 1
		used[(sb-1)&(IntDictMax-1)] = 1
		used[(sc-1)&(IntDictMax-1)] = 1
		used[(sd-1)&(IntDictMax-1)] = 1
		o[0], o[1], o[2], o[3] = int32(sa)-1, int32(sb)-1, int32(sc)-1, int32(sd)-1
		k += 4
	}
	for ; k < len(v); k++ {
		u := uint32(v[k])
		all |= u
		s := slot[u&(IntDictDomain-1)]
		if s == 0 {
			return k, all
		}
		used[(s-1)&(IntDictMax-1)] = 1
		out[k] = int32(s) - 1
	}
	return len(v), all
}

// runLen returns the length of the run of v[0] that v (not empty) starts
// with.
func runLen(v []int32) int {
	x0, r := v[0], v
	for len(r) >= 4 && r[0] == x0 && r[1] == x0 && r[2] == x0 && r[3] == x0 {
		r = r[4:]
	}
	for len(r) > 0 && r[0] == x0 {
		r = r[1:]
	}
	return len(v) - len(r)
}

// IntDictMax is a power of two: dictIndexes masks indexes with it.
const _ uint = -(IntDictMax & (IntDictMax - 1))

// appendConstIndexes appends to dst the RLE/bit-packed hybrid encoding
// of n (> 0) dictionary indexes that are all x, at bit width bits.Len(x):
// the bytes parquet-go's rle encoder writes for them (runs of the largest
// multiple of 8, then of the rest; one run of all at width 0).
func appendConstIndexes(dst []byte, n int, x int32) []byte {
	w := bits.Len32(uint32(x))
	run := func(dst []byte, count int) []byte {
		dst = binary.AppendUvarint(dst, uint64(count)<<1)
		for b := 0; b < (w+7)/8; b++ {
			dst = append(dst, byte(x>>(8*b)))
		}
		return dst
	}
	if w == 0 {
		return binary.AppendUvarint(dst, uint64(n)<<1)
	}
	if n >= 8 {
		dst = run(dst, n&^7)
	}
	if n&7 != 0 {
		dst = run(dst, n&7)
	}
	return dst
}

// dictSlot returns the index+1 of x in the chunk's dictionary, adding it
// if it is not there yet; ok is false if x is out of the domain or the
// dictionary is full.
func (st *chunkState) dictSlot(x int32) (s uint16, ok bool) {
	u := uint32(x)
	if u >= IntDictDomain {
		return 0, false
	}
	if s = st.islot[u]; s != 0 {
		return s, true
	}
	if len(st.ivals) == IntDictMax {
		return 0, false
	}
	st.ivals = append(st.ivals, x)
	s = uint16(len(st.ivals))
	st.islot[u] = s
	return s, true
}

// topUsed returns the largest index marked in st.used (0 if none).
func (st *chunkState) topUsed() int32 {
	for i := len(st.ivals) - 1; i > 0; i-- {
		if st.used[i] != 0 {
			return int32(i)
		}
	}
	return 0
}

// usedRange returns the smallest and largest dictionary values marked in
// st.used by dictIndexes (at least one), compared as unsigned numbers when
// unsigned, and clears the marks.
func (st *chunkState) usedRange(unsigned bool) (lo, hi int32) {
	var flip int32
	if unsigned {
		flip = -1 << 31
	}
	lo, hi = 1<<31-1, -1<<31
	n := len(st.ivals)
	used := st.used[:(n+7)&^7]
	for i := 0; i < len(used); i += 8 {
		if binary.LittleEndian.Uint64(used[i:]) == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if used[j] != 0 {
				used[j] = 0
				x := st.ivals[j] ^ flip
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	return lo ^ flip, hi ^ flip
}

// undoDict takes the dictionary values from index n0 on out again, and
// clears the marks of dictIndexes.
func (st *chunkState) undoDict(dst []int32, n0 int) ([]int32, int32, bool) {
	for _, x := range st.ivals[n0:] {
		st.islot[uint32(x)] = 0
	}
	st.ivals = st.ivals[:n0]
	clear(st.used[:])
	return dst, 0, false
}

// resetDict empties an integer dictionary for the next row group.
func (st *chunkState) resetDict() {
	st.undoDict(nil, 0)
	st.fellBack = false
}

// stat32 returns a copy of the PLAIN encoding of x in the chunk's arena.
func (st *chunkState) stat32(x int32) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(x))
	return st.stat(b[:])
}
