package colenc

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"
)

// pageStat is what the column index and the chunk statistics need of a page.
type pageStat struct {
	offset   int64 // in the chunk
	size     int32 // header included
	firstRow int64 // in the row group
	nulls    int64
	min, max []byte // PLAIN-encoded; nil for a page of nulls only
	uncomp   int64  // uncompressed size, header included
	values   int64  // num_values
	enc      format.Encoding
}

// stat returns a copy of b in the chunk's arena. Within a row group the
// arena is only appended to, so earlier copies stay valid; it is reused
// once the group's page index is encoded.
func (st *chunkState) stat(b []byte) []byte {
	n := len(st.arena)
	st.arena = append(st.arena, b...)
	return st.arena[n:len(st.arena):len(st.arena)]
}

// dictMinMax returns the smallest and largest strings that idx refers to
// (dictRange).
func dictMinMax(st *chunkState, idx []int32, dict []string) (lo, hi string, err error) {
	lo, hi, _, err = dictRange(st, idx, dict)
	return lo, hi, err
}

// dictRange returns the smallest and largest strings that idx refers to,
// by comparing their ranks in the dictionary's string order, kept up to
// date in st as the dictionary grows, and the largest index.
func dictRange(st *chunkState, idx []int32, dict []string) (lo, hi string, maxIdx int32, err error) {
	if len(dict) == 1 {
		// Every index is 0 (the index encoder checks it, at bit width
		// 0): nothing to compare (the file column, mostly).
		return dict[0], dict[0], 0, nil
	}
	if added := len(dict) - len(st.rank); added > 0 && 4*added >= len(idx) {
		// Many new entries for the page (a table of many flows: the first
		// pages of a row group, every page of rates.parquet's short
		// groups): ranking them costs a sort, log2(entries) string
		// comparisons each, more than comparing the page's values once.
		// They are ranked later, with the next page that adds few.
		return directRange(idx, dict)
	}
	if len(dict) > len(st.rank) {
		st.addToOrder(dict)
	}
	rank := st.rank[:len(dict)]
	if len(dict) <= 4*len(idx) {
		return st.seenRange(idx, dict)
	}
	// Four independent chains; an index out of range shows as the
	// largest unsigned index.
	var top uint32
	lo0, hi0 := int32(len(rank)), int32(-1)
	lo1, hi1, lo2, hi2, lo3, hi3 := lo0, hi0, lo0, hi0, lo0, hi0
	v := idx
	for len(v) >= 4 {
		a, b, c, d := uint32(v[0]), uint32(v[1]), uint32(v[2]), uint32(v[3])
		top = max(top, a, b, c, d)
		if top >= uint32(len(rank)) {
			break
		}
		ra, rb, rc, rd := rank[a], rank[b], rank[c], rank[d]
		lo0, hi0 = min(lo0, ra), max(hi0, ra)
		lo1, hi1 = min(lo1, rb), max(hi1, rb)
		lo2, hi2 = min(lo2, rc), max(hi2, rc)
		lo3, hi3 = min(lo3, rd), max(hi3, rd)
		v = v[4:]
	}
	for _, x := range v {
		top = max(top, uint32(x))
		if top >= uint32(len(rank)) {
			break
		}
		r := rank[x]
		lo0, hi0 = min(lo0, r), max(hi0, r)
	}
	if top >= uint32(len(rank)) {
		return "", "", 0, fmt.Errorf("dictionary index %d out of %d", int32(top), len(dict))
	}
	rlo, rhi := min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)
	return dict[st.order[rlo]], dict[st.order[rhi]], int32(top), nil
}

// directRange is dictRange by comparing the strings of idx (not empty),
// a run of one index compared once.
func directRange(idx []int32, dict []string) (lo, hi string, top int32, err error) {
	n := uint32(len(dict))
	prev, top := int32(-1), int32(-1)
	for _, x := range idx {
		if x == prev {
			continue
		}
		if uint32(x) >= n {
			return "", "", 0, fmt.Errorf("dictionary index %d out of %d", x, n)
		}
		s := dict[x]
		if prev < 0 || s < lo {
			lo = s
		}
		if prev < 0 || s > hi {
			hi = s
		}
		prev, top = x, max(top, x)
	}
	return lo, hi, top, nil
}

// seenMax bounds the dictionaries whose entries seenRange marks in a
// table of constant size (chunkState.seenTab): indexes masked to it need
// no bounds check.
const seenMax = 1 << 16

// seenRange is dictRange for a dictionary not much larger than the page:
// each index marks its entry (a store, no dependency between values), and
// the ranks of the marked entries are compared once each. The indexes are
// checked against the dictionary once, after marking: an index out of it
// has marked an entry past the dictionary's end.
func (st *chunkState) seenRange(idx []int32, dict []string) (lo, hi string, top int32, err error) {
	n := len(dict)
	if n > seenMax {
		return st.seenRangeLarge(idx, dict)
	}
	if st.seenTab == nil {
		st.seenTab = new([seenMax]byte)
	}
	seen := st.seenTab
	var all uint32 // the indexes ORed: at least the largest
	v := idx
	for len(v) >= 4 {
		a, b, c, d := uint32(v[0]), uint32(v[1]), uint32(v[2]), uint32(v[3])
		all |= a | b | c | d
		seen[a&(seenMax-1)] = 1
		seen[b&(seenMax-1)] = 1
		seen[c&(seenMax-1)] = 1
		seen[d&(seenMax-1)] = 1
		v = v[4:]
	}
	for _, x := range v {
		all |= uint32(x)
		seen[uint32(x)&(seenMax-1)] = 1
	}
	if all >= uint32(n) {
		// Some index may be out of the dictionary: then it marked an
		// entry in [n, all] (or anywhere, masked, if all >= seenMax).
		end := min(int(all)+1, seenMax)
		if all >= seenMax || !allZero(seen[n:end]) {
			clear(seen[:end])
			return "", "", 0, fmt.Errorf("dictionary index out of %d", n)
		}
	}
	return st.rankRange(seen[:], dict)
}

// allZero reports whether b is all zeros.
func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// seenRangeLarge is seenRange for a dictionary of more than seenMax
// entries, each index checked as it marks.
func (st *chunkState) seenRangeLarge(idx []int32, dict []string) (lo, hi string, top int32, err error) {
	n := len(dict)
	padded := (n + 7) &^ 7
	if len(st.seen) < padded {
		st.seen = make([]byte, 2*padded) // zeros; entries are cleared as they are read
	}
	seen := st.seen[:n]
	for _, x := range idx {
		u := uint32(x)
		if u >= uint32(len(seen)) {
			clear(seen)
			return "", "", 0, fmt.Errorf("dictionary index %d out of %d", x, n)
		}
		seen[u] = 1
	}
	return st.rankRange(st.seen, dict)
}

// rankRange returns the smallest and largest strings of the entries of
// dict marked in seen (at least one; none past len(dict)), and the
// largest marked index, and clears the marks. len(seen) is at least
// len(dict) rounded up to a multiple of 8.
func (st *chunkState) rankRange(seen []byte, dict []string) (lo, hi string, top int32, err error) {
	n := len(dict)
	padded := (n + 7) &^ 7
	rank := st.rank[:n]
	rlo, rhi := int32(n), int32(-1)
	top = -1
	words := seen[:padded]
	for i := 0; i < padded; i += 8 {
		if binary.LittleEndian.Uint64(words[i:]) == 0 {
			continue
		}
		for j := i; j < i+8 && j < n; j++ {
			if words[j] != 0 {
				words[j] = 0
				r := rank[j]
				rlo, rhi = min(rlo, r), max(rhi, r)
				top = int32(j)
			}
		}
	}
	return dict[st.order[rlo]], dict[st.order[rhi]], top, nil
}

// addToOrder adds the entries of dict after those already ranked to the
// string order: sorted (sortAdded), then merged with the order so far.
func (st *chunkState) addToOrder(dict []string) {
	byString := func(a, b int32) int { return strings.Compare(dict[a], dict[b]) }
	st.sortAdded(dict, len(st.rank))
	added := st.added
	merged := st.merge[:0]
	a, b := st.order, added
	for len(a) > 0 && len(b) > 0 {
		if byString(b[0], a[0]) < 0 {
			merged = append(merged, b[0])
			b = b[1:]
		} else {
			merged = append(merged, a[0])
			a = a[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	st.order, st.merge, st.added = merged, st.order[:0], added
	st.rank = slices.Grow(st.rank[:0], len(dict))[:len(dict)]
	for r, i := range st.order {
		st.rank[i] = int32(r)
	}
}

// sortAdded sets st.added to the indexes of dict from first on, in string
// order. The entries of a dictionary (addresses, flow ids) share long
// prefixes ("10.0.2.", "02:01:00:00:"): they are sorted a few bytes at a
// time past the prefix they share, as numbers (sortBytes), not by
// comparing their strings from the start each time.
func (st *chunkState) sortAdded(dict []string, first int) {
	n := len(dict) - first
	added := slices.Grow(st.added[:0], n)[:n]
	for j := range added {
		added[j] = int32(first + j)
	}
	st.packed = slices.Grow(st.packed[:0], n)[:n]
	st.merge = slices.Grow(st.merge[:0], n)[:n]
	sortBytes(added, dict, 0, st.packed, st.merge)
	st.added = added
}

// keyBytes is how many bytes of the strings sortBytes compares at a time:
// with a position in the run below them in a uint64.
const (
	keyBytes = 5
	posBits  = 64 - 8*keyBytes
)

// sortBytes sorts idx by their strings in dict, which are equal up to
// offset p: by the keyBytes bytes past the prefix that they share from p
// on (big-endian and zero-padded: a string that ends inside them is a
// prefix of any other with the same bytes there, so it is the smaller),
// then each run of equal bytes by the next ones. A run with a string that
// ends before the next bytes, or too long for posBits, is sorted by
// comparing the strings. packed and tmp are scratch of idx's length.
func sortBytes(idx []int32, dict []string, p int, packed []uint64, tmp []int32) {
	if len(idx) < 2 {
		return
	}
	if len(idx) >= 1<<posBits {
		slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(dict[a][p:], dict[b][p:]) })
		return
	}
	s0 := dict[idx[0]]
	n := len(s0)
	for _, i := range idx[1:] {
		n = p + commonPrefix(s0[p:n], dict[i][p:])
	}
	p = n
	packed = packed[:len(idx)]
	for j, i := range idx {
		packed[j] = prefixKey(dict[i][p:])<<posBits | uint64(j)
	}
	slices.Sort(packed)
	tmp = tmp[:len(idx)]
	for j, k := range packed {
		tmp[j] = idx[k&(1<<posBits-1)]
	}
	copy(idx, tmp)
	for j := 0; j < len(idx); {
		e := j + 1
		for e < len(idx) && packed[e]>>posBits == packed[j]>>posBits {
			e++
		}
		if run := idx[j:e]; len(run) > 1 {
			if shortest(run, dict) < p+keyBytes {
				slices.SortFunc(run, func(a, b int32) int { return strings.Compare(dict[a][p:], dict[b][p:]) })
			} else {
				sortBytes(run, dict, p+keyBytes, packed[j:e], tmp[j:e])
			}
		}
		j = e
	}
}

// prefixKey returns the first keyBytes bytes of s (fewer padded with
// zeros) as a big-endian number.
func prefixKey(s string) uint64 {
	var b [8]byte
	copy(b[8-keyBytes:], s[:min(len(s), keyBytes)])
	return binary.BigEndian.Uint64(b[:])
}

// shortest returns the length of the shortest string of idx.
func shortest(idx []int32, dict []string) int {
	n := len(dict[idx[0]])
	for _, i := range idx[1:] {
		n = min(n, len(dict[i]))
	}
	return n
}

// commonPrefix returns the length of the prefix a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(a[i:]), 8)) == binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(b[i:]), 8)) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// minMax32 returns the min and max of v (not empty), compared as unsigned
// numbers when unsigned.
func minMax32(v []int32, unsigned bool) (lo, hi int32) {
	var flip int32
	if unsigned {
		flip = -1 << 31 // flipping the sign bit maps unsigned order onto signed order
	}
	lo, hi = minMaxFlipped(v, flip)
	return lo ^ flip, hi ^ flip
}

// minMax64 is minMax32 for int64.
func minMax64(v []int64, unsigned bool) (lo, hi int64) {
	var flip int64
	if unsigned {
		flip = -1 << 63
	}
	lo, hi = minMaxFlipped(v, flip)
	return lo ^ flip, hi ^ flip
}

// minMaxFlipped returns the signed min and max of the values of v xor
// flip, with four independent chains of comparisons.
func minMaxFlipped[T int32 | int64](v []T, flip T) (lo, hi T) {
	lo0, hi0 := v[0]^flip, v[0]^flip
	lo1, hi1, lo2, hi2, lo3, hi3 := lo0, hi0, lo0, hi0, lo0, hi0
	for len(v) >= 4 {
		a, b, c, d := v[0]^flip, v[1]^flip, v[2]^flip, v[3]^flip
		lo0, hi0 = min(lo0, a), max(hi0, a)
		lo1, hi1 = min(lo1, b), max(hi1, b)
		lo2, hi2 = min(lo2, c), max(hi2, c)
		lo3, hi3 = min(lo3, d), max(hi3, d)
		v = v[4:]
	}
	for _, x := range v {
		x ^= flip
		lo0, hi0 = min(lo0, x), max(hi0, x)
	}
	return min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)
}

// compareStat compares two PLAIN-encoded statistics values of a column.
func compareStat(spec *colSpec, a, b []byte) int {
	switch spec.typ {
	case tInt32:
		x, y := binary.LittleEndian.Uint32(a), binary.LittleEndian.Uint32(b)
		if spec.unsigned {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(int32(x), int32(y))
	case tInt64:
		x, y := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
		if spec.unsigned {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(int64(x), int64(y))
	case tBool, tDict:
	}
	return bytes.Compare(a, b)
}

// CompareStat compares two PLAIN-encoded statistics values of leaf column
// i, in the order of the footer's min and max.
func (l *Layout) CompareStat(i int, a, b []byte) int { return compareStat(&l.cols[i], a, b) }
