package tui

import (
	"encoding/binary"
	"errors"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/pcapio"
)

// The packet index. The TUI keeps no packets: for every frame of the
// merged input it keeps where its record is, the frame's file and the byte
// offset of the record, and reads the record again when the frame is shown
// (see Pager). Frames are indexed in blocks of 64: a block's head holds its
// first frame's file and offset (one uint64: file in the low 16 bits,
// offset in the high 48) and where the block's other frames are in a byte
// stream, each as varints. With one input file an entry is the change of
// the offset step: zigzag(step - previous step), where a step is the
// record's offset minus the previous record's; records of one size (a
// snaplen capture's) step by the same amount, so most entries are 0, one
// byte. With several files an entry is the file (uvarint), then the same
// zigzag step from the previous frame of that file in the block, or the
// absolute offset at the file's first frame in the block.
//
// Heads and stream bytes live in fixed chunks, so appending never copies
// what is there and a published IndexView shares the chunks with the
// loader: the loader only writes past what the view has, which the view
// never reads. At(i) decodes at most 63 entries of one block.
//
// Cost per frame: 16 bytes of head per 64 frames (0.25 a frame) plus the
// entry, 1-2 bytes for one file (1.17 on average for bulk-1m-128, 1.40
// for whole frames: ACKs and data differ in size), 2-4 for several;
// plus for captures of several files one 8-byte frame counter per file
// every 256 frames (to give each frame its number within its file).

const (
	blockBits = 6
	blockLen  = 1 << blockBits // frames per block
	blockMask = blockLen - 1

	headChunkBits = 12 // 4096 heads a chunk: 64 KiB, 256 Ki frames
	headChunkLen  = 1 << headChunkBits
	headChunkMask = headChunkLen - 1

	streamFirst = 4 << 10 // the first stream chunk's size; each next one doubles, up to streamMax
	streamMax   = 1 << 20
	// maxEntry is the most bytes one entry takes: the file and a varint.
	maxEntry = binary.MaxVarintLen32 + binary.MaxVarintLen64

	fileBits = 16
	maxFiles = 1 << fileBits
	// maxOffset bounds the record offsets the index can hold (256 TiB).
	maxOffset = 1<<(64-fileBits) - 1

	checkpointEvery = 256
)

// errTooManyFiles is returned for more input files than the index can name.
var errTooManyFiles = errors.New("too many input files for the packet index (at most 65536)")

// blockHead is one block's head: its first frame, and where its other
// frames' entries start in the stream.
type blockHead struct {
	first uint64 // file (low fileBits) and record offset (high bits)
	chunk uint32 // stream chunk
	at    uint32 // byte offset in the chunk
}

// fileStep is the decoding (and encoding) state of one file within a
// block: its last offset and step.
type fileStep struct {
	file      int
	off, step int64
}

// packetIndex is the loader's growing index.
type packetIndex struct {
	heads  [][]blockHead
	stream [][]byte
	cur    []byte // the last stream chunk
	w      int    // bytes written in it
	n      int
	nfiles int
	counts []uint64 // frames read so far, per file (several files)
	cps    []uint64 // counts before frame k*checkpointEvery, nfiles values per checkpoint

	// The current block's state (entries are relative to it).
	off, step int64      // one file: the last offset and step
	files     []fileStep // several files: the files of the block so far
}

func newPacketIndex(nfiles int) *packetIndex {
	return &packetIndex{nfiles: nfiles, counts: make([]uint64, nfiles)}
}

// add appends the frame whose record is at byte offset off of file. One
// file, within a block: the zigzag varint of the step's change, written
// inline when it fits in a byte (records of one size: 0).
func (x *packetIndex) add(file int, off int64) {
	if x.nfiles <= 1 && x.n&blockMask != 0 && uint64(off) <= maxOffset {
		step := off - x.off
		d := step - x.step
		x.off, x.step = off, step
		x.n++
		if z := uint64(d<<1) ^ uint64(d>>63); z < 0x80 {
			x.cur[x.w] = byte(z)
			x.w++
			return
		}
		x.w += binary.PutVarint(x.cur[x.w:], d)
		return
	}
	x.addSlow(file, off)
}

// addBatch appends the frames of ps: add, with the one-file case written
// out a block at a time (addRun).
func (x *packetIndex) addBatch(ps []decode.Packet) {
	if x.nfiles > 1 {
		for i := range ps {
			x.add(ps[i].File, ps[i].Offset)
		}
		return
	}
	for len(ps) > 0 {
		if x.n&blockMask == 0 {
			x.addSlow(ps[0].File, ps[0].Offset)
			ps = ps[1:]
			continue
		}
		ps = ps[x.addRun(ps[:min(len(ps), blockLen-x.n&blockMask)]):]
	}
}

// addRun appends frames of one file within the current block, none its
// first, and returns how many: all of ps, or up to and including the first
// offset past maxOffset (which addSlow takes).
func (x *packetIndex) addRun(ps []decode.Packet) int {
	cur, w, last, step := x.cur, x.w, x.off, x.step
	i := 0
	for ; i < len(ps); i++ {
		off := ps[i].Offset
		if uint64(off) > maxOffset {
			break
		}
		s := off - last
		d := s - step
		last, step = off, s
		if z := uint64(d<<1) ^ uint64(d>>63); z < 0x80 {
			cur[w] = byte(z)
			w++
			continue
		}
		w += binary.PutVarint(cur[w:], d)
	}
	x.w, x.n, x.off, x.step = w, x.n+i, last, step
	if i < len(ps) {
		x.addSlow(ps[i].File, ps[i].Offset)
		i++
	}
	return i
}

// addSlow is add for a block's first frame, several files and offsets
// past maxOffset.
func (x *packetIndex) addSlow(file int, off int64) {
	if x.nfiles > 1 && x.n%checkpointEvery == 0 {
		x.cps = append(x.cps, x.counts...)
	}
	off = min(max(off, 0), maxOffset)
	if x.nfiles > 1 {
		x.counts[file]++
	}
	if x.n&blockMask == 0 {
		x.startBlock(file, off)
		x.n++
		return
	}
	if x.nfiles <= 1 {
		step := off - x.off
		x.w += binary.PutVarint(x.cur[x.w:], step-x.step)
		x.off, x.step = off, step
	} else {
		x.w += binary.PutUvarint(x.cur[x.w:], uint64(file))
		x.w += x.putFileStep(x.cur[x.w:], file, off)
	}
	x.n++
}

// putFileStep encodes frame (file, off) of a block of several files.
func (x *packetIndex) putFileStep(buf []byte, file int, off int64) int {
	for k := range x.files {
		if fs := &x.files[k]; fs.file == file {
			step := off - fs.off
			n := binary.PutVarint(buf, step-fs.step)
			fs.off, fs.step = off, step
			return n
		}
	}
	x.files = append(x.files, fileStep{file: file, off: off})
	return binary.PutUvarint(buf, uint64(off))
}

// startBlock begins a block with its first frame, in a new stream chunk
// when the last one may not hold the block's entries.
func (x *packetIndex) startBlock(file int, off int64) {
	blk := x.n >> blockBits
	if blk&headChunkMask == 0 {
		x.heads = append(x.heads, make([]blockHead, headChunkLen))
	}
	if x.w+blockLen*maxEntry > len(x.cur) {
		size := streamFirst
		if len(x.cur) > 0 {
			size = min(2*len(x.cur), streamMax)
		}
		x.cur = make([]byte, size)
		x.stream = append(x.stream, x.cur)
		x.w = 0
	}
	x.heads[blk>>headChunkBits][blk&headChunkMask] = blockHead{
		first: uint64(off)<<fileBits | uint64(file),
		chunk: uint32(len(x.stream) - 1),
		at:    uint32(x.w),
	}
	x.off, x.step = off, 0
	x.files = append(x.files[:0], fileStep{file: file, off: off})
}

// view returns an immutable view of the frames indexed so far.
func (x *packetIndex) view() IndexView {
	return IndexView{
		heads: x.heads[:len(x.heads):len(x.heads)], stream: x.stream[:len(x.stream):len(x.stream)],
		n: x.n, nfiles: x.nfiles, cps: x.cps[:len(x.cps):len(x.cps)],
	}
}

// IndexView is an immutable prefix of the packet index: frames 0..Len()-1
// of the merged input, in the order they were analysed.
type IndexView struct {
	heads  [][]blockHead
	stream [][]byte
	n      int
	nfiles int
	cps    []uint64
}

// Len returns the number of frames.
func (v IndexView) Len() int { return v.n }

// head returns block blk's head.
func (v IndexView) head(blk int) *blockHead {
	return &v.heads[blk>>headChunkBits][blk&headChunkMask]
}

// At returns the file and record offset of frame i (0 <= i < Len): its
// block's head and at most 63 entries decoded, whatever i and Len.
func (v IndexView) At(i int) (file int, off int64) {
	h := v.head(i >> blockBits)
	file, off = int(h.first&(maxFiles-1)), int64(h.first>>fileBits)
	k := i & blockMask
	if k == 0 {
		return file, off
	}
	buf := v.stream[h.chunk][h.at:]
	if v.nfiles <= 1 {
		var step int64
		for range k {
			d, n := binary.Varint(buf)
			buf = buf[n:]
			step += d
			off += step
		}
		return file, off
	}
	var st [blockLen]fileStep
	st[0] = fileStep{file: file, off: off}
	files := st[:1]
	for range k {
		file, off, files, buf = decodeFileStep(buf, files)
	}
	return file, off
}

// decodeFileStep decodes one entry of a block of several files, given the
// files of the block so far (updated and returned).
func decodeFileStep(buf []byte, files []fileStep) (int, int64, []fileStep, []byte) {
	f, n := binary.Uvarint(buf)
	buf = buf[n:]
	file := int(f)
	for k := range files {
		if fs := &files[k]; fs.file == file {
			d, n := binary.Varint(buf)
			fs.step += d
			fs.off += fs.step
			return file, fs.off, files, buf[n:]
		}
	}
	o, n := binary.Uvarint(buf)
	return file, int64(o), append(files, fileStep{file: file, off: int64(o)}), buf[n:]
}

// Frame returns frame i's 1-based number within its file, as pcapio.Record
// gives it: i+1 for a single file; otherwise the file's count at the last
// checkpoint plus the frames of that file since (at most 255 to look at,
// in at most four blocks).
func (v IndexView) Frame(i int) uint64 {
	if v.nfiles <= 1 {
		return uint64(i) + 1
	}
	file, _ := v.At(i)
	cp := i / checkpointEvery
	n := v.cps[cp*v.nfiles+file]
	for blk := cp * checkpointEvery >> blockBits; blk<<blockBits < i; blk++ {
		n += v.countInBlock(blk, i-blk<<blockBits, file)
	}
	return n + 1
}

// countInBlock counts the frames of file among the first k of block blk.
func (v IndexView) countInBlock(blk, k, file int) uint64 {
	k = min(k, blockLen)
	h := v.head(blk)
	var n uint64
	if int(h.first&(maxFiles-1)) == file {
		n++
	}
	buf := v.stream[h.chunk][h.at:]
	var st [blockLen]fileStep
	st[0] = fileStep{file: int(h.first & (maxFiles - 1)), off: int64(h.first >> fileBits)}
	files := st[:1]
	var f int
	for range k - 1 {
		f, _, files, buf = decodeFileStep(buf, files)
		if f == file {
			n++
		}
	}
	return n
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
