package colenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

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
	merge, added []int32        // scratch
	packed       []uint64       // scratch of sortAdded
	seen         []byte         // scratch of seenRangeLarge: the entries a page refers to
	seenTab      *[seenMax]byte // scratch of seenRange, allocated at first use
	skip         int            // pages left to store uncompressed without trying the codec
	plainRun     int            // pages left to encode PLAIN without trying DELTA_BINARY_PACKED
	encPages     map[format.Encoding]int32
	// An integer dictionary column's (Column.IntDict) dictionary in the
	// row group: its values by index (ivals) and, by value, index+1 (islot;
	// 0: not in it), allocated at first use. fellBack: the chunk's pages
	// from now on are PLAIN or DELTA_BINARY_PACKED.
	ivals    []int32
	islot    *[IntDictDomain]uint16
	fellBack bool
	used     [IntDictMax]byte // entries a page refers to (dictIndexes, usedRange)
}

// appendPage appends a data page (header hb, levels, body) to the chunk,
// with ps, whose size and offset it sets; uncomp is the page's
// uncompressed size, header excluded.
func (st *chunkState) appendPage(ps *pageStat, hb, levels, body []byte, uncomp int64) {
	if st.encPages == nil {
		st.encPages = make(map[format.Encoding]int32)
	}
	st.encPages[ps.enc]++
	ps.offset = int64(len(st.data))
	st.data = append(st.data, hb...)
	st.data = append(st.data, levels...)
	st.data = append(st.data, body...)
	ps.size = int32(int64(len(st.data)) - ps.offset)
	ps.uncomp = int64(len(hb)) + uncomp
	st.uncomp += ps.uncomp
	st.numValues += ps.values
	st.nulls += ps.nulls
	st.pages = append(st.pages, *ps)
}

// copyPage appends to column ci's chunk a copy of the page just encoded
// for column src, which holds the same values (Column.Alias).
func (e *Encoder) copyPage(ci, src int) {
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

// writeGroup writes the current row group's column chunks (dictionary page
// first, then the data pages) and records their metadata and page indexes.
// dicts are the string columns' dictionaries (Pages.Dicts).
func (e *Encoder) writeGroup(dicts [][]string) error {
	rg := format.RowGroup{
		NumRows:    e.rows,
		FileOffset: e.off,
		Ordinal:    int16(len(e.groups)),
		Columns:    make([]format.ColumnChunk, len(e.chunks)),
	}
	for i := range e.chunks {
		spec, st := &e.layout.cols[i], &e.chunks[i]
		cc := &rg.Columns[i]
		if err := e.writeChunk(i, dicts, cc); err != nil {
			return err
		}
		rg.TotalByteSize += cc.MetaData.TotalUncompressedSize
		rg.TotalCompressedSize += cc.MetaData.TotalCompressedSize
		if err := e.writePageIndex(spec, st, cc); err != nil {
			return err
		}
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

// writeChunk writes column i's chunk of the row group and sets cc but for
// its page index and statistics.
func (e *Encoder) writeChunk(i int, dicts [][]string, cc *format.ColumnChunk) error {
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
		var err error
		if comp, uncomp, err = e.writeColumnDict(spec, st, dicts); err != nil {
			return fmt.Errorf("%s column %s: %w", e.layout.name, spec.path[0], err)
		}
		md.DictionaryPageOffset = start
		md.EncodingStats = append(md.EncodingStats, format.PageEncodingStats{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1})
	}
	md.DataPageOffset = e.off
	if err := e.write(st.data); err != nil {
		return err
	}
	comp += int64(len(st.data))
	uncomp += st.uncomp
	md.TotalCompressedSize, md.TotalUncompressedSize = comp, uncomp
	chunkEncodings(&md, spec, st, hasDict)
	*cc = format.ColumnChunk{FileOffset: start, MetaData: md}
	return nil
}

// writeColumnDict writes the dictionary page of a column chunk: a string
// column's dictionary, or an integer column's (Column.IntDict).
func (e *Encoder) writeColumnDict(spec *colSpec, st *chunkState, dicts [][]string) (comp, uncomp int64, err error) {
	if spec.typ == tDict {
		d := dicts[spec.slot]
		return e.writeDictPage(e.stringDict(d), len(d))
	}
	if e.dict, err = e.plainEnc.EncodeInt32(e.dict[:0], st.ivals); err != nil {
		return 0, 0, err
	}
	return e.writeDictPage(e.dict, len(st.ivals))
}

// chunkEncodings sets a column chunk's encodings and encoding stats of
// its data pages, in the order parquet-go lists them: values' (PLAIN
// first), then RLE for the levels; a dictionary column's PLAIN is its
// dictionary page's, and its encodings are in ascending order
// (parquet-go's PLAIN, RLE, RLE_DICTIONARY).
func chunkEncodings(md *format.ColumnMetaData, spec *colSpec, st *chunkState, hasDict bool) {
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
}

// writePageIndex sets the statistics of the column chunk cc from its
// pages, and encodes its column and offset indexes.
func (e *Encoder) writePageIndex(spec *colSpec, st *chunkState, cc *format.ColumnChunk) error {
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
		oi.PageLocations[j] = format.PageLocation{Offset: cc.MetaData.DataPageOffset + p.offset, CompressedPageSize: p.size, FirstRowIndex: p.firstRow}
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
	cc.MetaData.Statistics = stats
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
	return nil
}

// stringDict returns the PLAIN encoding of a string dictionary, in a
// scratch buffer.
func (e *Encoder) stringDict(vals []string) []byte {
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
func (e *Encoder) writeDictPage(d []byte, n int) (comp, uncomp int64, err error) {
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
