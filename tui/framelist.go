package tui

import "encoding/binary"

// FrameList is a list of ascending Index positions (a flow's frames, the
// PFC frames), delta-encoded: blocks of listBlock bytes, each a head (its
// first position and the number of positions before the block, two
// little-endian uint32) then the gaps to the block's next positions as
// uvarints; a gap that does not fit in what is left of the block starts
// the next one (the rest is padding). The frames of a flow among a
// thousand others are a few thousand positions apart: two bytes each,
// against four as []uint32. At and Search find the block by a binary
// search of the heads and decode at most a block: O(log n).
//
// The loader appends (add) to its own FrameList and publishes copies
// (view): a copy shares the bytes it has, which the loader never writes
// again; its appends go past them, or to a new array.
type FrameList struct {
	data []byte
	n    uint32 // positions
	last uint32 // the last position (add's gap base)
}

const (
	listBlock = 128 // bytes per block
	listHead  = 8   // the block head's bytes
)

// FrameListOf returns the list of positions (ascending), for tests and
// callers holding a slice.
func FrameListOf(positions []uint32) FrameList {
	var l FrameList
	for _, p := range positions {
		l.add(p)
	}
	return l.view()
}

// add appends position pos (at least the last one). Gaps under 2^14 (two
// bytes) are written inline.
func (l *FrameList) add(pos uint32) {
	used := len(l.data) % listBlock
	gap := pos - l.last
	switch {
	case l.n == 0 || used == 0:
		l.addBlock(pos, used)
	case gap < 1<<7 && used+1 <= listBlock:
		l.data = append(l.data, byte(gap))
	case gap < 1<<14 && used+2 <= listBlock:
		l.data = append(l.data, byte(gap)|0x80, byte(gap>>7))
	case used+uvarintLen(uint64(gap)) <= listBlock:
		l.data = binary.AppendUvarint(l.data, uint64(gap))
	default:
		l.addBlock(pos, used)
	}
	l.n++
	l.last = pos
}

// addBlock pads the last block (used bytes of it so far) and starts the
// next with pos.
func (l *FrameList) addBlock(pos uint32, used int) {
	if used != 0 {
		l.data = append(l.data, make([]byte, listBlock-used)...)
	}
	l.data = binary.LittleEndian.AppendUint32(l.data, pos)
	l.data = binary.LittleEndian.AppendUint32(l.data, l.n)
}

// uvarintLen returns the bytes binary.AppendUvarint takes for x.
func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// view returns an immutable copy of the list so far.
func (l *FrameList) view() FrameList {
	return FrameList{data: l.data[:len(l.data):len(l.data)], n: l.n, last: l.last}
}

// prefix returns the list of its first n positions (n <= Len).
func (l FrameList) prefix(n int) FrameList {
	if n >= int(l.n) {
		return l
	}
	if n == 0 {
		return FrameList{}
	}
	// The block of position n-1 ends the data; its entries past n-1 are
	// not read (before(k+1) of the last block is n).
	lo, hi := 0, l.blocks()
	for lo < hi {
		m := (lo + hi) / 2
		if int(l.before(m)) <= n-1 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	end := min(len(l.data), lo*listBlock)
	return FrameList{data: l.data[:end:end], n: uint32(n), last: l.At(n - 1)}
}

// Len returns the number of positions.
func (l FrameList) Len() int { return int(l.n) }

// blocks returns the number of blocks.
func (l FrameList) blocks() int { return (len(l.data) + listBlock - 1) / listBlock }

// first returns block k's first position.
func (l FrameList) first(k int) uint32 {
	return binary.LittleEndian.Uint32(l.data[k*listBlock:])
}

// before returns the number of positions before block k.
func (l FrameList) before(k int) uint32 {
	if k >= l.blocks() {
		return l.n
	}
	return binary.LittleEndian.Uint32(l.data[k*listBlock+4:])
}

// At returns position i (0 <= i < Len).
func (l FrameList) At(i int) uint32 {
	lo, hi := 0, l.blocks() // first block with before > i
	for lo < hi {
		m := (lo + hi) / 2
		if int(l.before(m)) <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	k := lo - 1
	pos := l.first(k)
	p := k*listBlock + listHead
	for range i - int(l.before(k)) {
		d, n := binary.Uvarint(l.data[p:])
		p += n
		pos += uint32(d)
	}
	return pos
}

// Search returns the index of the first position >= pos (Len when none).
func (l FrameList) Search(pos uint32) int {
	lo, hi := 0, l.blocks() // first block whose first position > pos
	for lo < hi {
		m := (lo + hi) / 2
		if l.first(m) <= pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	k := lo - 1
	j, end := int(l.before(k)), int(l.before(k+1))
	v := l.first(k)
	p := k*listBlock + listHead
	for v < pos {
		j++
		if j >= end {
			return j
		}
		d, n := binary.Uvarint(l.data[p:])
		p += n
		v += uint32(d)
	}
	return j
}

// Positions returns the positions as a slice (4 bytes each: for tests and
// short lists).
func (l FrameList) Positions() []uint32 {
	out := make([]uint32, 0, l.n)
	for k := range l.blocks() {
		pos := l.first(k)
		out = append(out, pos)
		p := k*listBlock + listHead
		for range int(l.before(k+1)-l.before(k)) - 1 {
			d, n := binary.Uvarint(l.data[p:])
			p += n
			pos += uint32(d)
			out = append(out, pos)
		}
	}
	return out
}
