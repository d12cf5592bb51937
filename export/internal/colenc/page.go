package colenc

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// skipPages is how many pages of a column are stored uncompressed, without
// trying, after one that the codec did not shrink; and how many are PLAIN,
// without trying DELTA_BINARY_PACKED, after one that delta did not halve.
const skipPages = 8

const (
	// IntDictMax is the most values an integer column chunk's dictionary
	// holds (indexes of up to 12 bits); one more and the chunk falls back.
	// A column of one value per connection (udp_sport, dst_qpn) stays a
	// dictionary up to that many connections in a row group: its
	// bit-packed indexes are a few lookups a value, where a delta page of
	// interleaved connections' values is as long and costs the codec
	// more than the rest of the page's work (a fifth of the codec's time
	// on a 1000-QP capture).
	IntDictMax = 4096
	// IntDictDomain bounds the values of an integer dictionary: they are
	// looked up in a table indexed by value, not hashed. A value out of
	// [0, IntDictDomain) makes the chunk fall back.
	IntDictDomain = 1 << 16
)

// levelBits is the bit width of levels up to max.
func levelBits(max uint8) int { return bits.Len8(max) }

// encodePage encodes and compresses the values of c as one DATA_PAGE_V2
// and appends it to the column's chunk. dicts are the string columns'
// dictionaries (Pages.Dicts).
func (e *Encoder) encodePage(ci int, c *colData, rows int, dicts [][]string) error {
	spec := &e.layout.cols[ci]
	st := &e.chunks[ci]
	repLen, defLen, err := e.encodeLevels(spec, c)
	if err != nil {
		return err
	}
	ps := pageStat{firstRow: e.rows}
	var nonNull int
	encoding := format.Plain
	switch spec.typ {
	case tInt32:
		nonNull = len(c.i32)
		err = e.int32Values(spec, st, c.i32, &ps, &encoding)
	case tInt64:
		nonNull = len(c.i64)
		err = e.int64Values(spec, st, c.i64, &ps, &encoding)
	case tBool:
		nonNull = len(c.b)
		e.boolValues(st, c.b, &ps)
	case tDict:
		nonNull, encoding = len(c.i32), format.RLEDictionary
		err = e.dictValues(st, c.i32, dicts[spec.slot], &ps)
	}
	if err != nil {
		return err
	}
	ps.nulls = int64(c.numValues - nonNull)
	body, compressed, err := e.compress(st, e.values)
	e.raw = false
	if err != nil {
		return err
	}
	h := &e.page
	*h = format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(e.levels) + len(e.values)),
		CompressedPageSize:   int32(len(e.levels) + len(body)),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(c.numValues),
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
	ps.enc, ps.values = encoding, int64(c.numValues)
	st.appendPage(&ps, hb, e.levels, body, int64(h.UncompressedPageSize))
	return nil
}

// encodeLevels encodes c's levels into e.levels: RLE, no length prefix
// (page v2); repetition then definition.
func (e *Encoder) encodeLevels(spec *colSpec, c *colData) (repLen, defLen int, err error) {
	e.rep = e.rep[:0]
	if spec.maxRep > 0 {
		e.levelEnc.BitWidth = levelBits(spec.maxRep)
		if e.rep, err = e.levelEnc.EncodeLevels(e.rep, c.rep); err != nil {
			return 0, 0, err
		}
	}
	e.levels = append(e.levels[:0], e.rep...)
	if spec.maxDef > 0 {
		// Columns that share their levels share the encoding too.
		e.levelEnc.BitWidth = levelBits(spec.maxDef)
		if p := c.defPlane; p >= 0 && spec.maxRep == 0 {
			if !e.defDone[p] {
				if e.def[p], err = e.levelEnc.EncodeLevels(e.def[p][:0], c.def); err != nil {
					return 0, 0, err
				}
				e.defDone[p] = true
			}
			e.levels = append(e.levels, e.def[p]...)
		} else {
			if e.lev, err = e.levelEnc.EncodeLevels(e.lev, c.def); err != nil {
				return 0, 0, err
			}
			e.levels = append(e.levels, e.lev...)
		}
	}
	return len(e.rep), len(e.levels) - len(e.rep), nil
}

// int32Values encodes the non-null values v of an INT32 column into
// e.values, sets *encoding, and the page's min and max in ps.
//
// RLE_DICTIONARY for the columns of few values (Column.IntDict) until
// their chunk falls back. Otherwise DELTA_BINARY_PACKED when it is at most
// half the size of PLAIN (slowly changing values): less for the codec to
// chew, and smaller. Else, for a Column.RawDelta, DELTA_BINARY_PACKED
// stored uncompressed (e.raw) when it is at least an eighth smaller than
// PLAIN; else PLAIN. The PSNs of interleaved connections are such wide
// deltas: zstd took their PLAIN pages to 57% (the codec's largest input
// at snaplen 128, ~4 bytes a row) at several times its cost per byte on
// other pages (literals and short matches); their delta pages are ~80% of
// PLAIN without the codec. (Values repeated in other rows, such as R_Keys,
// are not RawDelta: the codec takes their PLAIN pages to a fifth, fast.)
// A column whose page went PLAIN skips the attempt for its next skipPages
// pages.
func (e *Encoder) int32Values(spec *colSpec, st *chunkState, v []int32, ps *pageStat, encoding *format.Encoding) error {
	out := e.values[:0]
	var err error
	if spec.intDict && !st.fellBack {
		// Dictionary indexes, until the chunk falls back; a page of
		// nulls is an empty RLE_DICTIONARY page (a chunk does not go
		// back to the dictionary after a PLAIN page).
		var ok bool
		var top int32
		if e.idx, top, ok = st.dictIndexes(e.idx, v); ok {
			*encoding = format.RLEDictionary
			switch {
			case len(v) > 0 && len(e.idx) == 0: // one value
				out = appendConstIndexes(append(out, byte(bits.Len32(uint32(top)))), len(v), top)
			default:
				if out, err = e.encodeIndexes(out, e.idx, top); err != nil {
					return err
				}
			}
			e.values = out
			if len(v) > 0 {
				// The values' min and max, from the entries the page refers to.
				lo, hi := st.usedRange(spec.unsigned)
				ps.min, ps.max = st.stat32(lo), st.stat32(hi)
			}
			return nil
		}
		st.fellBack = true
	}
	switch {
	case st.plainRun == 0:
		*encoding = format.DeltaBinaryPacked
		if out, err = e.deltaEnc.EncodeInt32(out, v); err != nil {
			return err
		}
		switch plain := 4 * len(v); {
		case 2*len(out) <= plain: // slowly changing values
		case spec.rawDelta && 8*len(out) <= 7*plain:
			// Wide deltas, but at least an eighth smaller than PLAIN
			// (the PSNs of interleaved connections): stored as they
			// are.
			e.raw = true
		default:
			*encoding = format.Plain
			st.plainRun = skipPages
		}
	default:
		st.plainRun--
	}
	if *encoding == format.Plain {
		if out, err = e.plainEnc.EncodeInt32(out[:0], v); err != nil {
			return err
		}
	}
	e.values = out
	if len(v) > 0 {
		lo, hi := minMax32(v, spec.unsigned)
		ps.min, ps.max = st.stat32(lo), st.stat32(hi)
	}
	return nil
}

// int64Values is int32Values for an INT64 column: DELTA_BINARY_PACKED
// always if Column.Delta, else when at most half the size of PLAIN.
func (e *Encoder) int64Values(spec *colSpec, st *chunkState, v []int64, ps *pageStat, encoding *format.Encoding) error {
	out := e.values[:0]
	var err error
	if spec.delta || st.plainRun == 0 {
		*encoding = format.DeltaBinaryPacked
		if out, err = e.deltaEnc.EncodeInt64(out, v); err != nil {
			return err
		}
		if !spec.delta && 2*len(out) > 8*len(v) {
			*encoding = format.Plain
			st.plainRun = skipPages
		}
	} else {
		st.plainRun--
	}
	if *encoding == format.Plain {
		if out, err = e.plainEnc.EncodeInt64(out[:0], v); err != nil {
			return err
		}
	}
	e.values = out
	if len(v) > 0 {
		lo, hi := minMax64(v, spec.unsigned)
		var b [8]byte
		ps.min = st.stat(binary.LittleEndian.AppendUint64(b[:0], uint64(lo)))
		ps.max = st.stat(binary.LittleEndian.AppendUint64(b[:0], uint64(hi)))
	}
	return nil
}

// boolValues encodes the non-null values v of a BOOLEAN column into
// e.values (PLAIN), and the page's min and max in ps.
func (e *Encoder) boolValues(st *chunkState, v []byte, ps *pageStat) {
	e.values = packBools(e.values[:0], v)
	if len(v) > 0 {
		var lo, hi byte = 1, 0
		for _, x := range v {
			lo &= x
			hi |= x
		}
		ps.min, ps.max = st.stat([]byte{lo}), st.stat([]byte{hi})
	}
}

// dictValues encodes the dictionary indexes idx of a string column into
// e.values (RLE_DICTIONARY), and the page's min and max strings in ps.
func (e *Encoder) dictValues(st *chunkState, idx []int32, dict []string, ps *pageStat) error {
	var top int32
	if len(idx) > 0 {
		var lo, hi string
		var err error
		if lo, hi, top, err = dictRange(st, idx, dict); err != nil {
			return err
		}
		ps.min = st.stat(unsafe.Slice(unsafe.StringData(lo), len(lo)))
		ps.max = st.stat(unsafe.Slice(unsafe.StringData(hi), len(hi)))
	}
	var err error
	e.values, err = e.encodeIndexes(e.values[:0], idx, top)
	return err
}

// compress returns the body of a page of values v: compressed, or v as it
// is. A page that the codec does not shrink by an eighth is stored as it
// is (is_compressed = false), and the column's next skipPages pages are
// not tried: random values (ICRCs), bit-packed dictionary indexes and
// pages of nulls cost the codec's time for nothing. A page of wide deltas
// (e.raw) is not tried at all.
func (e *Encoder) compress(st *chunkState, v []byte) (body []byte, compressed bool, err error) {
	switch {
	case !e.isComp || e.raw:
	case st.skip > 0:
		st.skip--
	default:
		if e.comp, err = e.codec.Encode(e.comp[:0], v); err != nil {
			return nil, false, fmt.Errorf("compressing: %w", err)
		}
		if 8*len(e.comp) < 7*len(v) {
			return e.comp, true, nil
		}
		st.skip = skipPages
	}
	return v, false, nil
}

// encodeIndexes appends to dst[:0] the RLE_DICTIONARY encoding of
// dictionary indexes whose largest is top: the bit width, then the
// RLE/bit-packed hybrid (the width is known, not searched for).
func (e *Encoder) encodeIndexes(dst []byte, idx []int32, top int32) ([]byte, error) {
	e.dictIdx.BitWidth = bits.Len32(uint32(top))
	var err error
	if e.idxBuf, err = e.dictIdx.EncodeInt32(e.idxBuf, idx); err != nil {
		return dst, err
	}
	dst = append(dst[:0], byte(e.dictIdx.BitWidth))
	return append(dst, e.idxBuf...), nil
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

// pageZstd is the zstd codec of the pages: zstd's fastest level, which
// halves the codec's time for a few percent of size (the codec is the
// export's bottleneck), with a window of pageZstdWindow bytes. Each page
// is compressed on its own, so a window longer than a page finds nothing
// more, while the level's default window (8 MiB) costs each encoder a
// 16 MiB history buffer. Each Encoder has its own (the pages of a file are
// encoded on one goroutine).
type pageZstd struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

// pageZstdWindow is the zstd window of the pages: larger than a data page
// (PageRows values of at most 8 bytes, plus levels).
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
