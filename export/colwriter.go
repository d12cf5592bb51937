package export

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/plain"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// This file is the low-level half of packets.parquet: a columnar Parquet
// writer of its own, built on parquet-go's format, encoding and compress
// packages. The row-level half (packets.go) appends typed values and
// definition levels to a pageSet, one row at a time; a full pageSet (pageRows
// rows, or the end of a row group) goes to a worker goroutine that encodes,
// compresses and buffers one page per column, and writes the row group's
// column chunks when the group ends. The footer is written by Close once the
// worker is done. Everything the worker does depends only on the rows, in
// order, so the file is the same bytes whatever the timing.

// pageRows is the number of rows of a data page (fewer at the end of a row
// group). Two pageSets of that many rows are in use: one filled, one encoded.
const pageRows = 16 * 1024

// pageSets is the number of pageSets in rotation (double buffering).
const pageSets = 2

// defOwner maps a column to the column whose definition levels it uses:
// optional columns that are always null together (the fields of one
// header) store and encode their levels once.
var defOwner = func() (o [numPacketColumns]int) {
	for i := range o {
		o[i] = i
	}
	share := func(owner int, cols ...int) {
		for _, c := range cols {
			o[c] = owner
		}
	}
	share(colVLANID, colVLANPCP)
	share(colDSCP, colECN, colTTL)
	share(colUDPSport, colUDPDport)
	share(colOpcode, colOpcodeName, colTransport, colSE, colMigReq, colPad, colTVer, colPKey,
		colFECN, colBECN, colDstQPN, colAckReq, colPSN, colICRCStatus)
	share(colRETHVA, colRETHRKey, colRETHLen)
	share(colAETHSyndrome, colAETHMSN)
	share(colDETHQKey, colDETHSrcQPN)
	share(colAtomicVA, colAtomicRKey, colAtomicSwapAdd, colAtomicCompare)
	share(colCMAttr, colCMLocalCommID, colCMRemoteCommID, colCMLocalQPN)
	return o
}()

// colType is how a column's values are stored before encoding.
type colType uint8

const (
	tInt32 colType = iota // INT32, PLAIN
	tInt64                // INT64, PLAIN or DELTA_BINARY_PACKED
	tBool                 // BOOLEAN, PLAIN (bit-packed)
	tDict                 // BYTE_ARRAY (STRING), RLE_DICTIONARY with a dictionary page per row group
)

// colSpec describes one leaf column of packets.parquet.
type colSpec struct {
	typ      colType
	ptype    format.Type
	maxDef   uint8
	maxRep   uint8
	delta    bool
	unsigned bool // integer statistics compare as unsigned (INT(n,false))
	path     []string
}

// packetLayout is the schema of packets.parquet as parquet-go writes it for
// PacketRow (schema elements, column orders, created_by), and the leaf
// columns derived from it. It is computed once, from the footer of an empty
// file written by parquet-go itself, so the schema cannot drift from
// PacketRow's tags.
type packetLayout struct {
	schema       []format.SchemaElement
	columnOrders []format.ColumnOrder
	createdBy    string
	cols         [numPacketColumns]colSpec
}

var packetLayoutOnce = sync.OnceValues(func() (*packetLayout, error) {
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[PacketRow](&buf, parquet.CreatedBy("rocetrace", "", ""))
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("packets.parquet schema: %w", err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("packets.parquet schema: %w", err)
	}
	md := f.Metadata()
	l := &packetLayout{
		schema:       slices.Clone(md.Schema),
		columnOrders: slices.Clone(md.ColumnOrders),
		createdBy:    md.CreatedBy,
	}
	n := 0
	var walk func(i int, path []string, def, rep uint8) (int, error)
	walk = func(i int, path []string, def, rep uint8) (int, error) {
		e := &l.schema[i]
		if i > 0 {
			path = append(slices.Clip(path), e.Name)
			switch e.RepetitionType.V {
			case format.Optional:
				def++
			case format.Repeated:
				def++
				rep++
			case format.Required:
			}
		}
		next := i + 1
		if e.NumChildren.V > 0 || i == 0 {
			for range e.NumChildren.V {
				var err error
				if next, err = walk(next, path, def, rep); err != nil {
					return 0, err
				}
			}
			return next, nil
		}
		if n >= numPacketColumns {
			return 0, fmt.Errorf("packets.parquet schema: more than %d leaf columns", numPacketColumns)
		}
		c := &l.cols[n]
		c.ptype, c.maxDef, c.maxRep, c.path = e.Type.V, def, rep, path
		switch e.Type.V {
		case format.Int32:
			c.typ = tInt32
		case format.Int64:
			c.typ = tInt64
		case format.Boolean:
			c.typ = tBool
		case format.ByteArray:
			c.typ = tDict
		default:
			return 0, fmt.Errorf("packets.parquet schema: column %v has type %v", path, e.Type.V)
		}
		if it, ok := e.LogicalType.Value.(*format.IntType); ok && !it.IsSigned {
			c.unsigned = true
		}
		c.delta = n == colFrame || n == colTsNs || n == colTs
		n++
		return next, nil
	}
	if _, err := walk(0, nil, 0, 0); err != nil {
		return nil, err
	}
	if n != numPacketColumns {
		return nil, fmt.Errorf("packets.parquet schema: %d leaf columns, want %d", n, numPacketColumns)
	}
	return l, nil
})

// colBuf holds one column's part of a pageSet: definition (and repetition)
// levels of every row and the values of the non-null ones.
type colBuf struct {
	def []uint8
	rep []uint8
	i32 []int32 // tInt32 values; tDict dictionary indexes
	i64 []int64
	b   []byte // tBool, 0 or 1
}

func (c *colBuf) reset() {
	c.def, c.rep, c.i32, c.i64, c.b = c.def[:0], c.rep[:0], c.i32[:0], c.i64[:0], c.b[:0]
}

// pageSet is one page's worth of rows of every column.
type pageSet struct {
	n        int // rows
	cols     [numPacketColumns]colBuf
	dicts    [numPacketColumns][]string // the row group's dictionaries so far (tDict columns)
	endGroup bool                       // the last rows of a row group: write its column chunks
}

func newPageSet(l *packetLayout) *pageSet {
	s := new(pageSet)
	for i := range s.cols {
		c, spec := &s.cols[i], &l.cols[i]
		n := pageRows // a PFC row has 8 elements (pfc_quanta): rare, those grow
		if spec.maxRep > 0 {
			c.rep = make([]uint8, 0, n)
		}
		if spec.maxDef > 0 && defOwner[i] == i {
			c.def = make([]uint8, 0, n)
		}
		switch spec.typ {
		case tInt32, tDict:
			c.i32 = make([]int32, 0, n)
		case tInt64:
			c.i64 = make([]int64, 0, n)
		case tBool:
			c.b = make([]byte, 0, n)
		}
	}
	return s
}

func (s *pageSet) reset() {
	s.n, s.endGroup = 0, false
	for i := range s.cols {
		s.cols[i].reset()
		s.dicts[i] = nil
	}
}

// pageStat is what the column index and the chunk statistics need of a page.
type pageStat struct {
	offset   int64 // in the chunk
	size     int32 // header included
	firstRow int64 // in the row group
	nulls    int64
	min, max []byte // PLAIN-encoded; nil for a page of nulls only
}

// chunkState accumulates one column's pages for the current row group.
type chunkState struct {
	data      []byte // data pages, headers included
	pages     []pageStat
	numValues int64
	nulls     int64
	uncomp    int64 // data pages' uncompressed size, headers included
	seen      []uint64
	arena     []byte // the pages' min and max values
	skip      int    // pages left to store uncompressed without trying the codec
	plainRun  int    // pages left to encode PLAIN without trying DELTA_BINARY_PACKED
	encPages  map[format.Encoding]int32
}

// skipPages is how many pages of a column are stored uncompressed, without
// trying, after one that the codec did not shrink.
const skipPages = 8

// stat returns a copy of b in the chunk's arena. Within a row group the
// arena is only appended to, so earlier copies stay valid; it is reused
// once the group's page index is encoded.
func (st *chunkState) stat(b []byte) []byte {
	n := len(st.arena)
	st.arena = append(st.arena, b...)
	return st.arena[n:len(st.arena):len(st.arena)]
}

// colEncoder is the worker's side: it turns pageSets into pages, column
// chunks and, at Close, the footer.
type colEncoder struct {
	out    io.Writer
	off    int64 // bytes written to out
	layout *packetLayout
	codec  compress.Codec
	isComp bool

	chunks [numPacketColumns]chunkState
	rows   int64 // rows in the current row group
	groups []format.RowGroup
	// The page indexes of the row groups written, thrift-encoded: they are
	// written before the footer, the column indexes first. Each chunk's
	// ColumnIndexOffset and OffsetIndexOffset hold the offset in these
	// buffers until then.
	colIndex, offIndex bytes.Buffer
	idxEnc             [2]*thrift.Encoder

	// scratch buffers
	levels, rep, values, comp, dict []byte
	def                             [numPacketColumns][]byte // encoded definition levels, by defOwner
	hbuf                            bytes.Buffer
	henc                            *thrift.Encoder
	dictEnc                         rle.DictionaryEncoding
	plainEnc                        plain.Encoding
	levelEnc                        rle.Encoding
	page                            format.PageHeader
	deltaEnc                        delta.BinaryPackedEncoding
}

// zstdFast is the zstd codec of packets.parquet's data pages: zstd's
// fastest level, which halves the codec's time for a few percent of size
// (the codec is the export's bottleneck; the small tables keep the default
// level).
var zstdFast = &zstd.Codec{Level: zstd.SpeedFastest}

func newColEncoder(out io.Writer, l *packetLayout, codec compress.Codec) *colEncoder {
	if codec.CompressionCodec() == format.Zstd {
		codec = zstdFast
	}
	e := &colEncoder{out: out, layout: l, codec: codec, isComp: codec.CompressionCodec() != format.Uncompressed}
	e.henc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.hbuf))
	e.idxEnc[0] = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.colIndex))
	e.idxEnc[1] = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.offIndex))
	return e
}

func (e *colEncoder) write(b []byte) error {
	n, err := e.out.Write(b)
	e.off += int64(n)
	if err != nil {
		return fmt.Errorf("writing packets.parquet: %w", err)
	}
	return nil
}

// header returns the compact-thrift encoding of h (in a scratch buffer).
func (e *colEncoder) header(h *format.PageHeader) ([]byte, error) {
	e.hbuf.Reset()
	if err := e.henc.Encode(h); err != nil {
		return nil, fmt.Errorf("encoding page header: %w", err)
	}
	return e.hbuf.Bytes(), nil
}

// encodeSet encodes one page per column from s, and writes the row group
// when s ends it.
func (e *colEncoder) encodeSet(s *pageSet) error {
	if s.n > 0 {
		for i := range s.cols {
			if err := e.encodePage(i, &s.cols[i], s.cols[defOwner[i]].def, s.n, s.dicts[i]); err != nil {
				return fmt.Errorf("packets.parquet column %s: %w", e.layout.cols[i].path[0], err)
			}
		}
		e.rows += int64(s.n)
	}
	if s.endGroup && e.rows > 0 {
		return e.writeGroup(&s.dicts)
	}
	return nil
}

// levelBits is the bit width of levels up to max.
func levelBits(max uint8) int { return bits.Len8(max) }

// encodePage encodes and compresses the values of c as one DATA_PAGE_V2
// and appends it to the column's chunk.
func (e *colEncoder) encodePage(ci int, c *colBuf, def []uint8, rows int, dict []string) error {
	spec := &e.layout.cols[ci]
	st := &e.chunks[ci]
	numValues := rows
	if spec.maxRep > 0 {
		numValues = len(c.rep)
	}
	// Levels: RLE, no length prefix (page v2); repetition then definition.
	var err error
	e.rep = e.rep[:0]
	if spec.maxRep > 0 {
		e.levelEnc.BitWidth = levelBits(spec.maxRep)
		if e.rep, err = e.levelEnc.EncodeLevels(e.rep, c.rep); err != nil {
			return err
		}
	}
	// Columns that share their levels share the encoding too: defOwner's
	// columns are encoded after it, in the same set.
	o := defOwner[ci]
	if spec.maxDef > 0 && o == ci {
		e.levelEnc.BitWidth = levelBits(spec.maxDef)
		if e.def[o], err = e.levelEnc.EncodeLevels(e.def[o], def); err != nil {
			return err
		}
	}
	e.levels = append(e.levels[:0], e.rep...)
	if spec.maxDef > 0 {
		e.levels = append(e.levels, e.def[o]...)
	}
	repLen, defLen := len(e.rep), len(e.levels)-len(e.rep)

	ps := pageStat{firstRow: e.rows}
	var nonNull int
	var encoding format.Encoding
	v := e.values[:0]
	switch spec.typ {
	case tInt32:
		// DELTA_BINARY_PACKED when it is at most half the size of PLAIN
		// (constant or slowly changing values: lengths, DSCP, TTL, ...):
		// less for the codec to chew, and smaller.
		// A column whose page went PLAIN skips the attempt for its next
		// skipPages pages.
		nonNull = len(c.i32)
		encoding = format.Plain
		if st.plainRun == 0 {
			encoding = format.DeltaBinaryPacked
			if v, err = e.deltaEnc.EncodeInt32(v, c.i32); err != nil {
				return err
			}
			if 2*len(v) > 4*nonNull {
				encoding = format.Plain
				st.plainRun = skipPages
			}
		} else {
			st.plainRun--
		}
		if encoding == format.Plain {
			if v, err = e.plainEnc.EncodeInt32(v, c.i32); err != nil {
				return err
			}
		}
		if nonNull > 0 {
			lo, hi := minMax32(c.i32, spec.unsigned)
			var b [8]byte
			ps.min = st.stat(binary.LittleEndian.AppendUint32(b[:0], uint32(lo)))
			ps.max = st.stat(binary.LittleEndian.AppendUint32(b[:0], uint32(hi)))
		}
	case tInt64:
		nonNull = len(c.i64)
		encoding = format.Plain
		if spec.delta || st.plainRun == 0 {
			encoding = format.DeltaBinaryPacked
			if v, err = e.deltaEnc.EncodeInt64(v, c.i64); err != nil {
				return err
			}
			if !spec.delta && 2*len(v) > 8*nonNull {
				encoding = format.Plain
				st.plainRun = skipPages
			}
		} else {
			st.plainRun--
		}
		if encoding == format.Plain {
			if v, err = e.plainEnc.EncodeInt64(v, c.i64); err != nil {
				return err
			}
		}
		if nonNull > 0 {
			lo, hi := minMax64(c.i64, spec.unsigned)
			var b [8]byte
			ps.min = st.stat(binary.LittleEndian.AppendUint64(b[:0], uint64(lo)))
			ps.max = st.stat(binary.LittleEndian.AppendUint64(b[:0], uint64(hi)))
		}
	case tBool:
		nonNull = len(c.b)
		encoding = format.Plain
		v = packBools(v, c.b)
		if nonNull > 0 {
			var lo, hi byte = 1, 0
			for _, x := range c.b {
				lo &= x
				hi |= x
			}
			ps.min, ps.max = st.stat([]byte{lo}), st.stat([]byte{hi})
		}
	case tDict:
		nonNull = len(c.i32)
		encoding = format.RLEDictionary
		if v, err = e.dictEnc.EncodeInt32(v, c.i32); err != nil {
			return err
		}
		if nonNull > 0 {
			lo, hi, err := e.dictMinMax(st, c.i32, dict)
			if err != nil {
				return err
			}
			ps.min = st.stat(unsafe.Slice(unsafe.StringData(lo), len(lo)))
			ps.max = st.stat(unsafe.Slice(unsafe.StringData(hi), len(hi)))
		}
	}
	e.values = v
	ps.nulls = int64(numValues - nonNull)
	// A page that the codec does not shrink by an eighth is stored as it
	// is (is_compressed = false), and the column's next skipPages pages
	// are not tried: random values (PSNs, ICRCs), bit-packed dictionary
	// indexes and pages of nulls cost the codec's time for nothing.
	body, compressed := v, false
	switch {
	case !e.isComp:
	case st.skip > 0:
		st.skip--
	default:
		if e.comp, err = e.codec.Encode(e.comp[:0], v); err != nil {
			return fmt.Errorf("compressing: %w", err)
		}
		if 8*len(e.comp) < 7*len(v) {
			body, compressed = e.comp, true
		} else {
			st.skip = skipPages
		}
	}
	h := &e.page
	*h = format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(e.levels) + len(v)),
		CompressedPageSize:   int32(len(e.levels) + len(body)),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(numValues),
			NumNulls:                   int32(ps.nulls),
			NumRows:                    int32(rows),
			Encoding:                   encoding,
			DefinitionLevelsByteLength: int32(defLen),
			RepetitionLevelsByteLength: int32(repLen),
			IsCompressed:               thrift.New(compressed),
		}),
	}
	hb, err := e.header(h)
	if err != nil {
		return err
	}
	if st.encPages == nil {
		st.encPages = make(map[format.Encoding]int32)
	}
	st.encPages[encoding]++
	ps.offset = int64(len(st.data))
	st.data = append(st.data, hb...)
	st.data = append(st.data, e.levels...)
	st.data = append(st.data, body...)
	ps.size = int32(int64(len(st.data)) - ps.offset)
	st.uncomp += int64(len(hb)) + int64(h.UncompressedPageSize)
	st.numValues += int64(numValues)
	st.nulls += ps.nulls
	st.pages = append(st.pages, ps)
	return nil
}

// dictMinMax returns the smallest and largest strings that idx refers to.
func (e *colEncoder) dictMinMax(st *chunkState, idx []int32, dict []string) (lo, hi string, err error) {
	words := (len(dict) + 63) / 64
	if cap(st.seen) < words {
		st.seen = make([]uint64, words)
	}
	seen := st.seen[:words]
	clear(seen)
	for _, x := range idx {
		if uint(x) >= uint(len(dict)) {
			return "", "", fmt.Errorf("dictionary index %d out of %d", x, len(dict))
		}
		seen[x>>6] |= 1 << (x & 63)
	}
	first := true
	for w, word := range seen {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			s := dict[i]
			if first {
				lo, hi, first = s, s, false
				continue
			}
			lo, hi = min(lo, s), max(hi, s)
		}
	}
	return lo, hi, nil
}

func minMax32(v []int32, unsigned bool) (lo, hi int32) {
	lo, hi = v[0], v[0]
	if unsigned {
		ulo, uhi := uint32(lo), uint32(hi)
		for _, x := range v[1:] {
			ulo, uhi = min(ulo, uint32(x)), max(uhi, uint32(x))
		}
		return int32(ulo), int32(uhi)
	}
	for _, x := range v[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func minMax64(v []int64, unsigned bool) (lo, hi int64) {
	lo, hi = v[0], v[0]
	if unsigned {
		ulo, uhi := uint64(lo), uint64(hi)
		for _, x := range v[1:] {
			ulo, uhi = min(ulo, uint64(x)), max(uhi, uint64(x))
		}
		return int64(ulo), int64(uhi)
	}
	for _, x := range v[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// packBools appends the PLAIN encoding of booleans (one byte each, 0 or 1):
// bit-packed, least significant bit first.
func packBools(dst, b []byte) []byte {
	for i := 0; i < len(b); i += 8 {
		var x byte
		for j, v := range b[i:min(i+8, len(b))] {
			x |= (v & 1) << j
		}
		dst = append(dst, x)
	}
	return dst
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

// writeGroup writes the current row group's column chunks (dictionary page
// first, then the data pages) and records their metadata and page indexes.
func (e *colEncoder) writeGroup(dicts *[numPacketColumns][]string) error {
	rg := format.RowGroup{
		NumRows:    e.rows,
		FileOffset: e.off,
		Ordinal:    int16(len(e.groups)),
		Columns:    make([]format.ColumnChunk, numPacketColumns),
	}
	for i := range e.chunks {
		spec, st := &e.layout.cols[i], &e.chunks[i]
		start := e.off
		md := format.ColumnMetaData{
			Type:         spec.ptype,
			PathInSchema: spec.path,
			Codec:        e.codec.CompressionCodec(),
			NumValues:    st.numValues,
		}
		var comp, uncomp int64
		if spec.typ == tDict {
			n, u, err := e.writeDictPage(dicts[i])
			if err != nil {
				return fmt.Errorf("packets.parquet column %s: %w", spec.path[0], err)
			}
			md.DictionaryPageOffset = start
			comp, uncomp = n, u
			md.EncodingStats = append(md.EncodingStats, format.PageEncodingStats{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1})
		}
		md.DataPageOffset = e.off
		if err := e.write(st.data); err != nil {
			return err
		}
		comp += int64(len(st.data))
		uncomp += st.uncomp
		md.TotalCompressedSize, md.TotalUncompressedSize = comp, uncomp
		// The encodings, in the order parquet-go lists them: values'
		// (PLAIN first), then RLE for the levels; a dictionary column's
		// PLAIN is its dictionary page's.
		if spec.typ == tDict {
			md.Encoding = append(md.Encoding, format.Plain)
		}
		for _, enc := range []format.Encoding{format.Plain, format.DeltaBinaryPacked, format.RLEDictionary} {
			n := st.encPages[enc]
			if n == 0 {
				continue
			}
			if enc != format.Plain || spec.typ != tDict {
				md.Encoding = append(md.Encoding, enc)
			}
			md.EncodingStats = append(md.EncodingStats, format.PageEncodingStats{PageType: format.DataPageV2, Encoding: enc, Count: n})
		}
		if spec.maxDef > 0 {
			md.Encoding = append(md.Encoding, format.RLE)
			if spec.typ == tDict {
				// parquet-go's order: PLAIN, RLE, RLE_DICTIONARY.
				md.Encoding[1], md.Encoding[len(md.Encoding)-1] = md.Encoding[len(md.Encoding)-1], md.Encoding[1]
			}
		}
		ci := format.ColumnIndex{
			NullPages:  make([]bool, len(st.pages)),
			MinValues:  make([][]byte, len(st.pages)),
			MaxValues:  make([][]byte, len(st.pages)),
			NullCounts: make([]int64, len(st.pages)),
		}
		oi := format.OffsetIndex{PageLocations: make([]format.PageLocation, len(st.pages))}
		asc, desc := true, true
		var prev *pageStat
		stats := format.Statistics{NullCount: st.nulls}
		for j := range st.pages {
			p := &st.pages[j]
			oi.PageLocations[j] = format.PageLocation{Offset: md.DataPageOffset + p.offset, CompressedPageSize: p.size, FirstRowIndex: p.firstRow}
			ci.NullCounts[j] = p.nulls
			if p.min == nil {
				ci.NullPages[j] = true
				ci.MinValues[j], ci.MaxValues[j] = []byte{}, []byte{}
				continue
			}
			ci.MinValues[j], ci.MaxValues[j] = p.min, p.max
			if stats.MinValue == nil || compareStat(spec, p.min, stats.MinValue) < 0 {
				stats.MinValue = p.min
			}
			if stats.MaxValue == nil || compareStat(spec, p.max, stats.MaxValue) > 0 {
				stats.MaxValue = p.max
			}
			if prev != nil {
				cmin, cmax := compareStat(spec, p.min, prev.min), compareStat(spec, p.max, prev.max)
				asc = asc && cmin >= 0 && cmax >= 0
				desc = desc && cmin <= 0 && cmax <= 0
			}
			prev = p
		}
		switch {
		case asc:
			ci.BoundaryOrder = format.Ascending
		case desc:
			ci.BoundaryOrder = format.Descending
		default:
			ci.BoundaryOrder = format.Unordered
		}
		// The footer keeps the chunk's min and max: copies, the arena is reused.
		stats.MinValue, stats.MaxValue = bytes.Clone(stats.MinValue), bytes.Clone(stats.MaxValue)
		md.Statistics = stats
		rg.Columns[i] = format.ColumnChunk{FileOffset: start, MetaData: md}
		rg.TotalByteSize += uncomp
		rg.TotalCompressedSize += comp
		cc := &rg.Columns[i]
		cc.ColumnIndexOffset = int64(e.colIndex.Len())
		if err := e.idxEnc[0].Encode(&ci); err != nil {
			return fmt.Errorf("encoding column index: %w", err)
		}
		cc.ColumnIndexLength = int32(int64(e.colIndex.Len()) - cc.ColumnIndexOffset)
		cc.OffsetIndexOffset = int64(e.offIndex.Len())
		if err := e.idxEnc[1].Encode(&oi); err != nil {
			return fmt.Errorf("encoding offset index: %w", err)
		}
		cc.OffsetIndexLength = int32(int64(e.offIndex.Len()) - cc.OffsetIndexOffset)

		st.data, st.pages, st.numValues, st.nulls, st.uncomp = st.data[:0], nil, 0, 0, 0
		clear(st.encPages)
		st.arena = st.arena[:0] // the page index is encoded: nothing refers to it now
	}
	e.groups = append(e.groups, rg)
	e.rows = 0
	return nil
}

// writeDictPage writes a PLAIN dictionary page of vals and returns its
// compressed and uncompressed sizes, header included.
func (e *colEncoder) writeDictPage(vals []string) (comp, uncomp int64, err error) {
	d := e.dict[:0]
	for _, s := range vals {
		d = binary.LittleEndian.AppendUint32(d, uint32(len(s)))
		d = append(d, s...)
	}
	e.dict = d
	body := d
	if e.isComp {
		if e.comp, err = e.codec.Encode(e.comp[:0], d); err != nil {
			return 0, 0, fmt.Errorf("compressing dictionary: %w", err)
		}
		body = e.comp
	}
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(d)),
		CompressedPageSize:   int32(len(body)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(len(vals)), Encoding: format.Plain}),
	}
	hb, err := e.header(&h)
	if err != nil {
		return 0, 0, err
	}
	if err := e.write(hb); err != nil {
		return 0, 0, err
	}
	if err := e.write(body); err != nil {
		return 0, 0, err
	}
	return int64(len(hb) + len(body)), int64(len(hb) + len(d)), nil
}

// writeFooter writes the page indexes, the file metadata and the trailer.
func (e *colEncoder) writeFooter(kv []format.KeyValue) error {
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.hbuf))
	put := func(v any) (int64, int32, error) {
		e.hbuf.Reset()
		if err := enc.Encode(v); err != nil {
			return 0, 0, fmt.Errorf("encoding packets.parquet footer: %w", err)
		}
		off := e.off
		return off, int32(e.hbuf.Len()), e.write(e.hbuf.Bytes())
	}
	// The page indexes, then the offsets of their parts.
	ciBase := e.off
	if err := e.write(e.colIndex.Bytes()); err != nil {
		return err
	}
	oiBase := e.off
	if err := e.write(e.offIndex.Bytes()); err != nil {
		return err
	}
	for g := range e.groups {
		for c := range e.groups[g].Columns {
			cc := &e.groups[g].Columns[c]
			cc.ColumnIndexOffset += ciBase
			cc.OffsetIndexOffset += oiBase
		}
	}
	var rows int64
	for _, g := range e.groups {
		rows += g.NumRows
	}
	md := format.FileMetaData{
		Version:          2,
		Schema:           e.layout.schema,
		NumRows:          rows,
		RowGroups:        e.groups,
		KeyValueMetadata: kv,
		CreatedBy:        e.layout.createdBy,
		ColumnOrders:     e.layout.columnOrders,
	}
	_, n, err := put(&md)
	if err != nil {
		return err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], uint32(n))
	copy(trailer[4:], "PAR1")
	return e.write(trailer[:])
}

// pipeline runs a colEncoder on a worker goroutine: the producer hands it
// full pageSets (send) and gets back empty ones. The first error stops the
// encoding; later sets are returned untouched.
type pipeline struct {
	enc    *colEncoder
	full   chan *pageSet
	free   chan *pageSet
	done   chan struct{}
	failed atomic.Bool
	err    error // set before failed
	closed bool
}

func startPipeline(enc *colEncoder, l *packetLayout) (*pipeline, *pageSet) {
	p := &pipeline{
		enc:  enc,
		full: make(chan *pageSet, pageSets),
		free: make(chan *pageSet, pageSets),
		done: make(chan struct{}),
	}
	for range pageSets - 1 {
		p.free <- newPageSet(l)
	}
	go p.run()
	return p, newPageSet(l)
}

func (p *pipeline) run() {
	defer close(p.done)
	for s := range p.full {
		if !p.failed.Load() {
			if err := p.enc.encodeSet(s); err != nil {
				p.err = err
				p.failed.Store(true)
			}
		}
		s.reset()
		p.free <- s
	}
}

// send hands s to the worker and returns an empty set.
func (p *pipeline) send(s *pageSet) (*pageSet, error) {
	if p.failed.Load() {
		return s, p.err
	}
	p.full <- s
	s = <-p.free
	if p.failed.Load() {
		return s, p.err
	}
	return s, nil
}

// stop waits for the worker to finish the sets it has and returns its
// error. The encoder may be used again once stop has returned.
func (p *pipeline) stop() error {
	if !p.closed {
		p.closed = true
		close(p.full)
		<-p.done
	}
	if p.failed.Load() {
		return p.err
	}
	return nil
}
