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

	kzstd "github.com/klauspost/compress/zstd"
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
// packages. The row-level half (packets.go) stores typed values and
// definition levels in a pageSet's planes, one row at a time; a full pageSet (pageRows
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

// colType is how a column's values are stored before encoding.
type colType uint8

const (
	tInt32 colType = iota // INT32, PLAIN or DELTA_BINARY_PACKED; RLE_DICTIONARY first if colSpec.intDict
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
	intDict  bool // tInt32 tried as RLE_DICTIONARY first (intDictColumns)
	path     []string
}

// intDictColumns are the INT32 columns whose pages are dictionary-encoded
// (RLE_DICTIONARY, a PLAIN dictionary page per column chunk) while the
// chunk's dictionary stays within intDictMax values below intDictDomain:
// lengths, ports, header fields of a few values, for which bit-packed
// indexes are a fraction of the PLAIN or delta page, and leave the codec
// less to do. A chunk whose dictionary outgrows that falls back to PLAIN
// or DELTA_BINARY_PACKED for the rest of the row group (the dictionary
// page keeps the values of the pages before). Not tried: PSNs, ICRCs,
// keys, MSNs, CM ids (mostly distinct or wide values).
var intDictColumns = []int{
	colLen, colCapLen, colVLANID, colVLANPCP, colDSCP, colECN, colTTL,
	colUDPSport, colUDPDport, colOpcode, colPad, colTVer, colPKey, colDstQPN,
	colRETHLen, colAETHSyndrome, colPayloadLen,
}

const (
	// intDictMax is the most values an integer column chunk's dictionary
	// holds (8-bit indexes); one more and the chunk falls back.
	intDictMax = 256
	// intDictDomain bounds the values of an integer dictionary: they are
	// looked up in a table indexed by value, not hashed. A value out of
	// [0, intDictDomain) makes the chunk fall back.
	intDictDomain = 1 << 16
)

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
	for _, i := range intDictColumns {
		if l.cols[i].typ != tInt32 || l.cols[i].maxRep > 0 {
			return nil, fmt.Errorf("packets.parquet schema: column %v cannot be an integer dictionary", l.cols[i].path)
		}
		l.cols[i].intDict = true
	}
	if err := checkStore(&l.cols); err != nil {
		return nil, err
	}
	return l, nil
})

// Slots of the page set's typed planes (pageSet): every column's values
// are stored by row number in a plane of its type, and the definition
// levels of optional columns in a plane shared by the columns that are
// null together (the fields of one header). colStore maps each column to
// its planes; packetLayoutOnce checks it against the schema.
const (
	i32File = iota
	i32Len
	i32CapLen
	i32Kind
	i32SrcMAC
	i32DstMAC
	i32VLANID
	i32VLANPCP
	i32SrcIP
	i32DstIP
	i32DSCP
	i32ECN
	i32TTL
	i32UDPSport
	i32UDPDport
	i32Opcode
	i32OpcodeName
	i32Transport
	i32Pad
	i32TVer
	i32PKey
	i32DstQPN
	i32PSN
	i32RETHRKey
	i32RETHLen
	i32AETHSyndrome
	i32AETHMSN
	i32DETHQKey
	i32DETHSrcQPN
	i32Imm
	i32IETHRKey
	i32XRCSRQ
	i32AtomicRKey
	i32PayloadLen
	i32ICRC
	i32ICRCStatus
	i32PFCEnable
	i32PauseQuanta
	i32Flow
	i32Encap
	i32CMAttr
	i32CMLocalCommID
	i32CMRemoteCommID
	i32CMLocalQPN
	numI32
)

const (
	i64Frame = iota
	i64TsNs  // ts too: the same values
	i64RETHVA
	i64AtomicVA
	i64AtomicSwapAdd
	i64AtomicCompare
	i64AtomicAckOrig
	numI64
)

const (
	bSE = iota
	bMigReq
	bFECN
	bBECN
	bAckReq
	bTruncated
	bMalformed
	numBool
)

// Definition level planes (0 null, 1 present), one per group of optional
// columns that are null together.
const (
	dSrcMAC = iota
	dDstMAC
	dVLAN // vlan_id, vlan_pcp
	dSrcIP
	dDstIP
	dIP  // dscp, ecn, ttl
	dUDP // udp_sport, udp_dport
	dBTH // the BTH columns and icrc_status
	dRETH
	dAETH
	dDETH
	dImm
	dIETH
	dXRC
	dAtomic
	dAtomicAck
	dPayloadLen
	dICRC
	dPFC // pfc_enable; pfc_quanta's levels derive from it
	dPause
	dFlow
	dEncap
	dCM
	numDef
)

// store says where a column's values (slot, in the plane of its type) and
// definition levels (def, -1 for a required column) are. pfc_quanta, a
// list, has no slot: its values are pageSet.pfcQuanta.
type store struct{ slot, def int8 }

var colStore = [numPacketColumns]store{
	colFrame:          {i64Frame, -1},
	colFile:           {i32File, -1},
	colTsNs:           {i64TsNs, -1},
	colTs:             {i64TsNs, -1},
	colLen:            {i32Len, -1},
	colCapLen:         {i32CapLen, -1},
	colKind:           {i32Kind, -1},
	colSrcMAC:         {i32SrcMAC, dSrcMAC},
	colDstMAC:         {i32DstMAC, dDstMAC},
	colVLANID:         {i32VLANID, dVLAN},
	colVLANPCP:        {i32VLANPCP, dVLAN},
	colSrcIP:          {i32SrcIP, dSrcIP},
	colDstIP:          {i32DstIP, dDstIP},
	colDSCP:           {i32DSCP, dIP},
	colECN:            {i32ECN, dIP},
	colTTL:            {i32TTL, dIP},
	colUDPSport:       {i32UDPSport, dUDP},
	colUDPDport:       {i32UDPDport, dUDP},
	colOpcode:         {i32Opcode, dBTH},
	colOpcodeName:     {i32OpcodeName, dBTH},
	colTransport:      {i32Transport, dBTH},
	colSE:             {bSE, dBTH},
	colMigReq:         {bMigReq, dBTH},
	colPad:            {i32Pad, dBTH},
	colTVer:           {i32TVer, dBTH},
	colPKey:           {i32PKey, dBTH},
	colFECN:           {bFECN, dBTH},
	colBECN:           {bBECN, dBTH},
	colDstQPN:         {i32DstQPN, dBTH},
	colAckReq:         {bAckReq, dBTH},
	colPSN:            {i32PSN, dBTH},
	colRETHVA:         {i64RETHVA, dRETH},
	colRETHRKey:       {i32RETHRKey, dRETH},
	colRETHLen:        {i32RETHLen, dRETH},
	colAETHSyndrome:   {i32AETHSyndrome, dAETH},
	colAETHMSN:        {i32AETHMSN, dAETH},
	colDETHQKey:       {i32DETHQKey, dDETH},
	colDETHSrcQPN:     {i32DETHSrcQPN, dDETH},
	colImm:            {i32Imm, dImm},
	colIETHRKey:       {i32IETHRKey, dIETH},
	colXRCSRQ:         {i32XRCSRQ, dXRC},
	colAtomicVA:       {i64AtomicVA, dAtomic},
	colAtomicRKey:     {i32AtomicRKey, dAtomic},
	colAtomicSwapAdd:  {i64AtomicSwapAdd, dAtomic},
	colAtomicCompare:  {i64AtomicCompare, dAtomic},
	colAtomicAckOrig:  {i64AtomicAckOrig, dAtomicAck},
	colPayloadLen:     {i32PayloadLen, dPayloadLen},
	colICRC:           {i32ICRC, dICRC},
	colICRCStatus:     {i32ICRCStatus, dBTH},
	colPFCEnable:      {i32PFCEnable, dPFC},
	colPFCQuanta:      {-1, dPFC},
	colPauseQuanta:    {i32PauseQuanta, dPause},
	colFlow:           {i32Flow, dFlow},
	colTruncated:      {bTruncated, -1},
	colMalformed:      {bMalformed, -1},
	colEncap:          {i32Encap, dEncap},
	colCMAttr:         {i32CMAttr, dCM},
	colCMLocalCommID:  {i32CMLocalCommID, dCM},
	colCMRemoteCommID: {i32CMRemoteCommID, dCM},
	colCMLocalQPN:     {i32CMLocalQPN, dCM},
}

// aliasOf maps a column whose pages are those of an earlier column (the
// same values, type and encoding) to that column: ts is ts_ns. Its pages
// are copied, not encoded again.
var aliasOf = [numPacketColumns]int{colTs: colTsNs}

// checkStore checks colStore and aliasOf against the schema's columns.
func checkStore(cols *[numPacketColumns]colSpec) error {
	limit := [...]int8{tInt32: numI32, tInt64: numI64, tBool: numBool, tDict: numI32}
	var used [4][numI32]bool
	for i := range cols {
		c, st := &cols[i], colStore[i]
		switch {
		case c.maxRep > 0:
			if i != colPFCQuanta || st.slot != -1 || st.def != dPFC || c.typ != tInt32 || c.maxDef != 2 {
				return fmt.Errorf("packets.parquet schema: unexpected list column %v", c.path)
			}
			continue
		case st.slot < 0 || st.slot >= limit[c.typ] || (c.maxDef > 0) != (st.def >= 0) || c.maxDef > 1:
			return fmt.Errorf("packets.parquet schema: column %v does not match its storage", c.path)
		}
		plane := c.typ
		if plane == tDict {
			plane = tInt32
		}
		if a := aliasOf[i]; a != 0 {
			if colStore[a] != st || cols[a].typ != c.typ || cols[a].maxDef != c.maxDef || cols[a].delta != c.delta || cols[a].unsigned != c.unsigned || cols[a].ptype != c.ptype {
				return fmt.Errorf("packets.parquet schema: column %v is not an alias of %v", c.path, cols[a].path)
			}
			continue
		}
		if used[plane][st.slot] {
			return fmt.Errorf("packets.parquet schema: column %v shares its slot", c.path)
		}
		used[plane][st.slot] = true
	}
	return nil
}

// pageSet is one page's worth of rows of every column: values and
// definition levels by row number (a null's value is whatever was left
// there; the worker drops it), so that a row is a fixed number of stores
// at fixed offsets, with no bounds or capacity checks. Each plane is a
// cache line longer than pageRows values: planes a power of two apart
// would put a row's ~80 stores in the same few L1 sets, which evict each
// other (twice the time per row).
type pageSet struct {
	n         int                            // rows
	i32       [numI32][pageRows + 64/4]int32 // tInt32 values; tDict dictionary indexes
	i64       [numI64][pageRows + 64/8]int64
	b         [numBool][pageRows + 64]byte // 0 or 1
	def       [numDef][pageRows + 64]uint8
	pfcQuanta []int32                    // pfc_quanta: 8 values per PFC row (rare; grows)
	dicts     [numPacketColumns][]string // the row group's dictionaries so far (tDict columns)
	endGroup  bool                       // the last rows of a row group: write its column chunks
}

func newPageSet() *pageSet { return new(pageSet) }

func (s *pageSet) reset() {
	s.n, s.endGroup = 0, false
	s.pfcQuanta = s.pfcQuanta[:0]
	for i := range s.dicts {
		s.dicts[i] = nil
	}
}

// colData is one column's part of a pageSet as a page is encoded from it:
// levels of every row, the values of the non-null ones.
type colData struct {
	def, rep  []uint8
	defPlane  int // def's plane, whose encoding columns share; -1 for none
	numValues int
	i32       []int32
	i64       []int64
	b         []byte
}

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

// chunkState accumulates one column's pages for the current row group.
type chunkState struct {
	data      []byte // data pages, headers included
	pages     []pageStat
	numValues int64
	nulls     int64
	uncomp    int64  // data pages' uncompressed size, headers included
	arena     []byte // the pages' min and max values
	// A dictionary column's entries so far in the row group, in string
	// order (order) and the position of each in it (rank, by index): a
	// page's min and max are found by comparing ranks, not strings.
	order, rank  []int32
	merge, added []int32 // scratch
	seen         []byte  // scratch of seenRange: the entries a page refers to
	skip         int     // pages left to store uncompressed without trying the codec
	plainRun     int     // pages left to encode PLAIN without trying DELTA_BINARY_PACKED
	encPages     map[format.Encoding]int32
	// An integer dictionary column's (colSpec.intDict) dictionary in the
	// row group: its values by index (ivals) and, by value, index+1 (islot;
	// 0: not in it), allocated at first use. fellBack: the chunk's pages
	// from now on are PLAIN or DELTA_BINARY_PACKED.
	ivals    []int32
	islot    *[intDictDomain]uint16
	fellBack bool
}

// dictIndexes stores in dst the dictionary indexes of v, adding the values
// not yet in the chunk's dictionary, and returns them with the largest
// (0 if none). If the dictionary would outgrow intDictMax or a value is
// out of its domain, the values added for v are taken out again and ok is
// false: the chunk falls back.
func (st *chunkState) dictIndexes(dst, v []int32) (idx []int32, top int32, ok bool) {
	if st.islot == nil {
		st.islot = new([intDictDomain]uint16)
	}
	slot := st.islot
	dst = slices.Grow(dst[:0], len(v))[:len(v)]
	n0 := len(st.ivals)
	var hi uint16 // index+1
	for i, x := range v {
		u := uint32(x)
		if u >= intDictDomain {
			return st.undoDict(dst, n0)
		}
		s := slot[u]
		if s == 0 {
			if len(st.ivals) == intDictMax {
				return st.undoDict(dst, n0)
			}
			st.ivals = append(st.ivals, x)
			s = uint16(len(st.ivals))
			slot[u] = s
		}
		hi = max(hi, s)
		dst[i] = int32(s) - 1
	}
	return dst, max(int32(hi)-1, 0), true
}

// undoDict takes the dictionary values from index n0 on out again.
func (st *chunkState) undoDict(dst []int32, n0 int) ([]int32, int32, bool) {
	for _, x := range st.ivals[n0:] {
		st.islot[uint32(x)] = 0
	}
	st.ivals = st.ivals[:n0]
	return dst, 0, false
}

// resetDict empties an integer dictionary for the next row group.
func (st *chunkState) resetDict() {
	st.undoDict(nil, 0)
	st.fellBack = false
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
	levels, rep, lev, values, comp []byte
	dict                           []byte
	idx                            []int32        // an integer dictionary page's indexes
	def                            [numDef][]byte // encoded definition levels, by plane
	defDone                        [numDef]bool   // def[plane] holds the current set's levels
	nonNull                        [numDef]int    // present rows of each plane in the current set
	runs                           [numDef][]run  // runs of present rows (runsOf), by plane
	runsDone                       [numDef]bool
	qdef, qrep                     []uint8 // pfc_quanta's levels
	hbuf                           bytes.Buffer
	henc                           *thrift.Encoder
	dictIdx                        rle.Encoding // dictionary indexes, after their bit width
	idxBuf                         []byte
	plainEnc                       plain.Encoding
	levelEnc                       rle.Encoding
	page                           format.PageHeader
	deltaEnc                       delta.BinaryPackedEncoding
}

// pageZstd is the zstd codec of packets.parquet's pages: zstd's fastest
// level, which halves the codec's time for a few percent of size (the codec
// is the export's bottleneck; the small tables keep the default level), with
// a window of pageZstdWindow bytes. Each page is compressed on its own, so a
// window longer than a page finds nothing more, while the level's default
// window (8 MiB) costs each encoder a 16 MiB history buffer. Each export has
// its own (the pages of a file are encoded on one goroutine).
type pageZstd struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

// pageZstdWindow is the zstd window of packets.parquet's pages: larger than
// a data page (16384 values of at most 8 bytes, plus levels).
const pageZstdWindow = 256 << 10

func newPageZstd() (*pageZstd, error) {
	enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithEncoderConcurrency(1),
		kzstd.WithWindowSize(pageZstdWindow), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return &pageZstd{enc: enc}, nil
}

// Encode compresses src into dst[:0].
func (c *pageZstd) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func newColEncoder(out io.Writer, l *packetLayout, codec compress.Codec) *colEncoder {
	if codec.CompressionCodec() == format.Zstd {
		if z, err := newPageZstd(); err == nil {
			codec = z
		}
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
	if rows := s.n; rows > 0 {
		for d := range s.def {
			e.nonNull[d] = countOnes(s.def[d][:rows])
			e.defDone[d], e.runsDone[d] = false, false
		}
		for i := range numPacketColumns {
			if a := aliasOf[i]; a != 0 {
				e.copyPage(i, a)
				continue
			}
			c := e.columnData(s, i)
			if err := e.encodePage(i, &c, rows, s.dicts[i]); err != nil {
				return fmt.Errorf("packets.parquet column %s: %w", e.layout.cols[i].path[0], err)
			}
		}
		e.rows += int64(rows)
	}
	if s.endGroup && e.rows > 0 {
		return e.writeGroup(&s.dicts)
	}
	return nil
}

// columnData returns column ci's levels and non-null values in s. The
// values of an optional column are compacted in place (its plane is not
// read again before the set is reset).
func (e *colEncoder) columnData(s *pageSet, ci int) colData {
	rows := s.n
	spec, st := &e.layout.cols[ci], colStore[ci]
	c := colData{defPlane: -1, numValues: rows}
	if ci == colPFCQuanta {
		// A PFC row is a list of 8: the first element starts the row
		// (repetition level 0), the others repeat it (1); all are
		// defined (level 2). Other rows are null (0, 0).
		q, r := e.qdef[:0], e.qrep[:0]
		if e.nonNull[st.def] == 0 {
			// No PFC row: rows zeros, each.
			q, r = slices.Grow(q, rows)[:rows], slices.Grow(r, rows)[:rows]
			clear(q)
			clear(r)
			e.qdef, e.qrep = q, r
			c.def, c.rep, c.numValues, c.i32 = q, r, rows, s.pfcQuanta
			return c
		}
		for _, d := range s.def[st.def][:rows] {
			if d != 0 {
				q = append(q, 2, 2, 2, 2, 2, 2, 2, 2)
				r = append(r, 0, 1, 1, 1, 1, 1, 1, 1)
			} else {
				q = append(q, 0)
				r = append(r, 0)
			}
		}
		e.qdef, e.qrep = q, r
		c.def, c.rep, c.numValues, c.i32 = q, r, len(r), s.pfcQuanta
		return c
	}
	n := rows
	var def []uint8
	if spec.maxDef > 0 {
		c.defPlane = int(st.def)
		def = s.def[st.def][:rows]
		c.def = def
		n = e.nonNull[st.def]
	}
	var runs []run
	if spec.maxDef > 0 && n > 0 && n < rows {
		runs = e.runsOf(int(st.def), def)
	}
	switch spec.typ {
	case tInt32, tDict:
		c.i32 = compact(s.i32[st.slot][:rows], def, n, runs)
	case tInt64:
		c.i64 = compact(s.i64[st.slot][:rows], def, n, runs)
	case tBool:
		c.b = compact(s.b[st.slot][:rows], def, n, runs)
	}
	return c
}

// run is a range of rows [start, end) whose level is 1.
type run struct{ start, end int32 }

// runsOf returns the runs of present rows of def plane d, or nil when
// they are too many and short for copying run by run to pay.
func (e *colEncoder) runsOf(d int, def []uint8) []run {
	if e.runsDone[d] {
		if len(e.runs[d]) == 0 { // too many (there is at least one)
			return nil
		}
		return e.runs[d]
	}
	e.runsDone[d] = true
	rs := e.runs[d][:0]
	limit := e.nonNull[d]/32 + 1
	for i := 0; i < len(def); {
		for i < len(def) && def[i] == 0 {
			i++
		}
		j := i
		for j < len(def) && def[j] != 0 {
			j++
		}
		if j > i {
			if len(rs) == limit {
				e.runs[d] = rs[:0]
				return nil
			}
			rs = append(rs, run{int32(i), int32(j)})
		}
		i = j
	}
	e.runs[d] = rs
	return rs
}

// compact moves the values of the rows whose level is 1 to the front of v
// and returns them, n of them: run by run if runs is set, else row by row.
func compact[T any](v []T, def []uint8, n int, runs []run) []T {
	switch {
	case n == len(v):
		return v
	case n == 0:
		return v[:0]
	}
	if runs != nil {
		k := 0
		for _, r := range runs {
			k += copy(v[k:], v[r.start:r.end])
		}
		return v[:n]
	}
	// The rows before the first null stay where they are.
	k := 0
	for k < len(def) && def[k] != 0 {
		k++
	}
	def = def[:len(v)]
	for i := k + 1; i < len(def); i++ {
		v[k] = v[i]
		k += int(def[i])
	}
	return v[:n]
}

// countOnes returns the number of 1s in levels that are 0 or 1.
func countOnes(d []uint8) int {
	n := 0
	for len(d) >= 8 {
		// The sum of the eight bytes (at most 8) ends in the top byte.
		n += int((binary.LittleEndian.Uint64(d) * 0x0101010101010101) >> 56)
		d = d[8:]
	}
	for _, x := range d {
		n += int(x)
	}
	return n
}

// copyPage appends to column ci's chunk a copy of the page just encoded
// for column src, which holds the same values (aliasOf).
func (e *colEncoder) copyPage(ci, src int) {
	from, st := &e.chunks[src], &e.chunks[ci]
	ps := from.pages[len(from.pages)-1]
	body := from.data[ps.offset : ps.offset+int64(ps.size)]
	if ps.min != nil {
		ps.min, ps.max = st.stat(ps.min), st.stat(ps.max)
	}
	ps.offset = int64(len(st.data))
	st.data = append(st.data, body...)
	if st.encPages == nil {
		st.encPages = make(map[format.Encoding]int32)
	}
	st.encPages[ps.enc]++
	st.uncomp += ps.uncomp
	st.numValues += ps.values
	st.nulls += ps.nulls
	st.skip, st.plainRun = from.skip, from.plainRun
	st.pages = append(st.pages, ps)
}

// levelBits is the bit width of levels up to max.
func levelBits(max uint8) int { return bits.Len8(max) }

// encodePage encodes and compresses the values of c as one DATA_PAGE_V2
// and appends it to the column's chunk.
func (e *colEncoder) encodePage(ci int, c *colData, rows int, dict []string) error {
	spec := &e.layout.cols[ci]
	st := &e.chunks[ci]
	numValues := c.numValues
	// Levels: RLE, no length prefix (page v2); repetition then definition.
	var err error
	e.rep = e.rep[:0]
	if spec.maxRep > 0 {
		e.levelEnc.BitWidth = levelBits(spec.maxRep)
		if e.rep, err = e.levelEnc.EncodeLevels(e.rep, c.rep); err != nil {
			return err
		}
	}
	e.levels = append(e.levels[:0], e.rep...)
	if spec.maxDef > 0 {
		// Columns that share their levels share the encoding too.
		e.levelEnc.BitWidth = levelBits(spec.maxDef)
		if p := c.defPlane; p >= 0 && spec.maxRep == 0 {
			if !e.defDone[p] {
				if e.def[p], err = e.levelEnc.EncodeLevels(e.def[p][:0], c.def); err != nil {
					return err
				}
				e.defDone[p] = true
			}
			e.levels = append(e.levels, e.def[p]...)
		} else {
			if e.lev, err = e.levelEnc.EncodeLevels(e.lev, c.def); err != nil {
				return err
			}
			e.levels = append(e.levels, e.lev...)
		}
	}
	repLen, defLen := len(e.rep), len(e.levels)-len(e.rep)

	ps := pageStat{firstRow: e.rows}
	var nonNull int
	var encoding format.Encoding
	v := e.values[:0]
	switch spec.typ {
	case tInt32:
		// RLE_DICTIONARY for the columns of few values (intDictColumns)
		// until their chunk falls back. Otherwise DELTA_BINARY_PACKED
		// when it is at most half the size of PLAIN (slowly changing
		// values): less for the codec to chew, and smaller. A column
		// whose page went PLAIN skips the attempt for its next skipPages
		// pages.
		nonNull = len(c.i32)
		encoding = format.Plain
		if spec.intDict && !st.fellBack {
			// Dictionary indexes, until the chunk falls back; a page of
			// nulls is an empty RLE_DICTIONARY page (a chunk does not go
			// back to the dictionary after a PLAIN page).
			var ok bool
			var top int32
			if e.idx, top, ok = st.dictIndexes(e.idx, c.i32); ok {
				encoding = format.RLEDictionary
				if v, err = e.encodeIndexes(v, e.idx, top); err != nil {
					return err
				}
			} else {
				st.fellBack = true
			}
		}
		switch {
		case encoding == format.RLEDictionary:
		case st.plainRun == 0:
			encoding = format.DeltaBinaryPacked
			if v, err = e.deltaEnc.EncodeInt32(v, c.i32); err != nil {
				return err
			}
			if 2*len(v) > 4*nonNull {
				encoding = format.Plain
				st.plainRun = skipPages
			}
		default:
			st.plainRun--
		}
		if encoding == format.Plain {
			if v, err = e.plainEnc.EncodeInt32(v[:0], c.i32); err != nil {
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
			if v, err = e.plainEnc.EncodeInt64(v[:0], c.i64); err != nil {
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
		var top int32
		if nonNull > 0 {
			var lo, hi string
			if lo, hi, top, err = dictRange(st, c.i32, dict); err != nil {
				return err
			}
			ps.min = st.stat(unsafe.Slice(unsafe.StringData(lo), len(lo)))
			ps.max = st.stat(unsafe.Slice(unsafe.StringData(hi), len(hi)))
		}
		if v, err = e.encodeIndexes(v, c.i32, top); err != nil {
			return err
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
	ps.enc, ps.values = encoding, int64(numValues)
	ps.offset = int64(len(st.data))
	st.data = append(st.data, hb...)
	st.data = append(st.data, e.levels...)
	st.data = append(st.data, body...)
	ps.size = int32(int64(len(st.data)) - ps.offset)
	ps.uncomp = int64(len(hb)) + int64(h.UncompressedPageSize)
	st.uncomp += ps.uncomp
	st.numValues += int64(numValues)
	st.nulls += ps.nulls
	st.pages = append(st.pages, ps)
	return nil
}

// encodeIndexes appends to dst[:0] the RLE_DICTIONARY encoding of
// dictionary indexes whose largest is top: the bit width, then the
// RLE/bit-packed hybrid (the width is known, not searched for).
func (e *colEncoder) encodeIndexes(dst []byte, idx []int32, top int32) ([]byte, error) {
	e.dictIdx.BitWidth = bits.Len32(uint32(top))
	var err error
	if e.idxBuf, err = e.dictIdx.EncodeInt32(e.idxBuf, idx); err != nil {
		return dst, err
	}
	dst = append(dst[:0], byte(e.dictIdx.BitWidth))
	return append(dst, e.idxBuf...), nil
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

// seenRange is dictRange for a dictionary not much larger than the page:
// each index marks its entry (a store, no dependency between values), and
// the ranks of the marked entries are compared once each.
func (st *chunkState) seenRange(idx []int32, dict []string) (lo, hi string, top int32, err error) {
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
	rank := st.rank[:n]
	rlo, rhi := int32(n), int32(-1)
	top = -1
	words := st.seen[:padded]
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
// string order: sorted, then merged with the order so far.
func (st *chunkState) addToOrder(dict []string) {
	byString := func(a, b int32) int { return cmp.Compare(dict[a], dict[b]) }
	added := st.added[:0]
	for i := len(st.rank); i < len(dict); i++ {
		added = append(added, int32(i))
	}
	slices.SortFunc(added, byString)
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

// packBools appends the PLAIN encoding of booleans (one byte each, 0 or 1):
// bit-packed, least significant bit first.
func packBools(dst, b []byte) []byte {
	for len(b) >= 8 {
		// Byte j of x (bit 8j) times 2^(56-7j) lands on bit 56+j; no two
		// products share a bit, so nothing carries.
		x := binary.LittleEndian.Uint64(b)
		dst = append(dst, byte((x&0x0101010101010101)*0x0102040810204080>>56))
		b = b[8:]
	}
	if len(b) > 0 {
		var x byte
		for j, v := range b {
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
		// A string column has a dictionary page; an integer column one if
		// any of its pages refers to it.
		hasDict := spec.typ == tDict || st.encPages[format.RLEDictionary] > 0
		if hasDict {
			var n, u int64
			var err error
			if spec.typ == tDict {
				n, u, err = e.writeDictPage(e.stringDict(dicts[i]), len(dicts[i]))
			} else {
				e.dict, err = e.plainEnc.EncodeInt32(e.dict[:0], st.ivals)
				if err == nil {
					n, u, err = e.writeDictPage(e.dict, len(st.ivals))
				}
			}
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
		// PLAIN is its dictionary page's, and its encodings are in
		// ascending order (parquet-go's PLAIN, RLE, RLE_DICTIONARY).
		if hasDict {
			md.Encoding = append(md.Encoding, format.Plain)
		}
		for _, enc := range []format.Encoding{format.Plain, format.DeltaBinaryPacked, format.RLEDictionary} {
			n := st.encPages[enc]
			if n == 0 {
				continue
			}
			if enc != format.Plain || !hasDict {
				md.Encoding = append(md.Encoding, enc)
			}
			md.EncodingStats = append(md.EncodingStats, format.PageEncodingStats{PageType: format.DataPageV2, Encoding: enc, Count: n})
		}
		if spec.maxDef > 0 {
			md.Encoding = append(md.Encoding, format.RLE)
		}
		if hasDict {
			slices.Sort(md.Encoding)
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
		st.order, st.rank = st.order[:0], st.rank[:0]
		if spec.intDict {
			st.resetDict()
		}
		clear(st.encPages)
		st.arena = st.arena[:0] // the page index is encoded: nothing refers to it now
	}
	e.groups = append(e.groups, rg)
	e.rows = 0
	return nil
}

// stringDict returns the PLAIN encoding of a string dictionary, in a
// scratch buffer.
func (e *colEncoder) stringDict(vals []string) []byte {
	d := e.dict[:0]
	for _, s := range vals {
		d = binary.LittleEndian.AppendUint32(d, uint32(len(s)))
		d = append(d, s...)
	}
	e.dict = d
	return d
}

// writeDictPage writes a dictionary page of d, the PLAIN encoding of n
// values, and returns its compressed and uncompressed sizes, header
// included. A dictionary page is always compressed (its header has no
// is_compressed).
func (e *colEncoder) writeDictPage(d []byte, n int) (comp, uncomp int64, err error) {
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
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(n), Encoding: format.Plain}),
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

func startPipeline(enc *colEncoder) (*pipeline, *pageSet) {
	p := &pipeline{
		enc:  enc,
		full: make(chan *pageSet, pageSets),
		free: make(chan *pageSet, pageSets),
		done: make(chan struct{}),
	}
	for range pageSets - 1 {
		p.free <- newPageSet()
	}
	go p.run()
	return p, newPageSet()
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
