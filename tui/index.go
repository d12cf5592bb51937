package tui

import (
	"errors"

	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/pcapio"
)

// The packet index. The TUI keeps no packets: for every frame of the
// merged input it keeps one uint64, the frame's file (low 16 bits) and the
// byte offset of its record (high 48 bits), and reads the record again when
// the frame is shown (see Pager). Entries live in fixed chunks of 64 Ki, so
// appending never copies what is there and a published IndexView shares the
// chunks with the loader: the loader only writes entries past the view's
// length, which the view never reads.
//
// Cost per frame: 8 bytes, plus for captures of several files one 8-byte
// frame counter per file every 256 frames (to give each frame its number
// within its file). Each RoCE frame also costs 4 bytes in its flow's frame
// list, each PFC or PAUSE frame 4 bytes in the PFC list: about 12 bytes per
// frame in all, 120 MB for 10 million frames.

const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1

	fileBits = 16
	maxFiles = 1 << fileBits
	// maxOffset bounds the record offsets the index can hold (256 TiB).
	maxOffset = 1<<(64-fileBits) - 1

	checkpointEvery = 256
)

// errTooManyFiles is returned for more input files than the index can name.
var errTooManyFiles = errors.New("too many input files for the packet index (at most 65536)")

// packetIndex is the loader's growing index.
type packetIndex struct {
	chunks [][]uint64
	n      int
	nfiles int
	counts []uint64 // frames read so far, per file
	cps    []uint64 // counts before frame k*checkpointEvery, nfiles values per checkpoint
}

func newPacketIndex(nfiles int) *packetIndex {
	return &packetIndex{nfiles: nfiles, counts: make([]uint64, nfiles)}
}

// add appends the frame whose record is at byte offset off of file.
func (x *packetIndex) add(file int, off int64) {
	if x.n&chunkMask == 0 {
		x.chunks = append(x.chunks, make([]uint64, chunkLen))
	}
	if x.nfiles > 1 && x.n%checkpointEvery == 0 {
		x.cps = append(x.cps, x.counts...)
	}
	o := uint64(off)
	if o > maxOffset {
		o = maxOffset
	}
	x.chunks[x.n>>chunkBits][x.n&chunkMask] = o<<fileBits | uint64(file)
	x.counts[file]++
	x.n++
}

// view returns an immutable view of the frames indexed so far.
func (x *packetIndex) view() IndexView {
	return IndexView{chunks: x.chunks[:len(x.chunks):len(x.chunks)], n: x.n, nfiles: x.nfiles, cps: x.cps[:len(x.cps):len(x.cps)]}
}

// IndexView is an immutable prefix of the packet index: frames 0..Len()-1
// of the merged input, in the order they were analysed.
type IndexView struct {
	chunks [][]uint64
	n      int
	nfiles int
	cps    []uint64
}

// Len returns the number of frames.
func (v IndexView) Len() int { return v.n }

// At returns the file and record offset of frame i (0 <= i < Len): one
// array access, whatever i and Len.
func (v IndexView) At(i int) (file int, off int64) {
	e := v.chunks[i>>chunkBits][i&chunkMask]
	return int(e & (maxFiles - 1)), int64(e >> fileBits)
}

// Frame returns frame i's 1-based number within its file, as pcapio.Record
// gives it: i+1 for a single file; otherwise the file's count at the last
// checkpoint plus the frames of that file since (at most 255 to look at).
func (v IndexView) Frame(i int) uint64 {
	if v.nfiles <= 1 {
		return uint64(i) + 1
	}
	file, _ := v.At(i)
	cp := i / checkpointEvery
	n := v.cps[cp*v.nfiles+file]
	for j := cp * checkpointEvery; j < i; j++ {
		if f, _ := v.At(j); f == file {
			n++
		}
	}
	return n + 1
}

// layoutAt returns the layout in force at offset off of a file.
func layoutAt(points []engine.LayoutPoint, off int64) *pcapio.Layout {
	lo, hi := 0, len(points) // first point with Off > off
	for lo < hi {
		m := (lo + hi) / 2
		if points[m].Off <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	return points[lo-1].Layout
}
