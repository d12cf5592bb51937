package colenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/plain"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Encoder turns Pages into pages, column chunks and, at the end, the
// footer of one file. It runs on one goroutine (Pipeline's worker).
type Encoder struct {
	out    io.Writer
	off    int64 // bytes written to out
	layout *Layout
	codec  compress.Codec
	isComp bool
	// raw: the page being encoded is stored uncompressed without trying
	// the codec (a DELTA_BINARY_PACKED page of wide deltas, int32Values).
	raw bool

	chunks []chunkState // by column
	rows   int64        // rows in the current row group
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
	idx                            []int32   // an integer dictionary page's indexes
	def                            [][]byte  // encoded definition levels, by plane
	defDone                        []bool    // def[plane] holds the current set's levels
	nonNull                        []int     // present rows of each plane in the current set
	runs                           [][]run   // runs of present rows (runsOf), by plane
	pos                            [][]int32 // present rows, where they are too many runs (runsOf)
	runsDone                       []bool
	qdef, qrep                     []uint8 // the list column's levels
	listDef, listRep               []uint8 // the levels of a present row of the list column
	sdef, srep                     []uint8 // a set column's levels (setData)
	svals                          []int32 // a set column's values (setData)
	hbuf                           bytes.Buffer
	henc                           *thrift.Encoder
	dictIdx                        rle.Encoding // dictionary indexes, after their bit width
	idxBuf                         []byte
	plainEnc                       plain.Encoding
	levelEnc                       rle.Encoding
	page                           format.PageHeader
	deltaEnc                       delta.BinaryPackedEncoding
}

// NewEncoder returns an Encoder of a file of layout l, written to out with
// codec (zstd's pages at its fastest level, pageZstd), and writes the
// file's magic number.
func NewEncoder(out io.Writer, l *Layout, codec compress.Codec) (*Encoder, error) {
	if codec.CompressionCodec() == format.Zstd {
		if z, err := newPageZstd(); err == nil {
			codec = z
		}
	}
	nd := l.planes.Levels
	e := &Encoder{
		out: out, layout: l, codec: codec, isComp: codec.CompressionCodec() != format.Uncompressed,
		chunks: make([]chunkState, len(l.cols)),
		def:    make([][]byte, nd), defDone: make([]bool, nd), nonNull: make([]int, nd),
		runs: make([][]run, nd), pos: make([][]int32, nd), runsDone: make([]bool, nd),
	}
	e.henc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.hbuf))
	e.idxEnc[0] = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.colIndex))
	e.idxEnc[1] = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.offIndex))
	if err := e.write([]byte("PAR1")); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Encoder) write(b []byte) error {
	n, err := e.out.Write(b)
	e.off += int64(n)
	if err != nil {
		return fmt.Errorf("writing %s: %w", e.layout.name, err)
	}
	return nil
}

// header returns the compact-thrift encoding of h (in a scratch buffer).
func (e *Encoder) header(h *format.PageHeader) ([]byte, error) {
	e.hbuf.Reset()
	if err := e.henc.Encode(h); err != nil {
		return nil, fmt.Errorf("encoding page header: %w", err)
	}
	return e.hbuf.Bytes(), nil
}

// errPlanes is Encode's error for Pages without the layout's planes.
var errPlanes = errors.New("pages without the layout's planes")

// Encode encodes one page per column from s, and writes the row group's
// column chunks when s ends it.
func (e *Encoder) Encode(s *Pages) error {
	if !s.fits(e.layout) {
		return fmt.Errorf("%s: %w", e.layout.name, errPlanes)
	}
	if rows := s.N; rows > 0 {
		for d := range e.nonNull {
			e.nonNull[d] = countOnes(s.def[d][:rows])
			e.defDone[d], e.runsDone[d] = false, false
		}
		for i := range e.layout.cols {
			if a := e.layout.cols[i].alias; a >= 0 {
				e.copyPage(i, a)
				continue
			}
			c := e.columnData(s, i)
			if err := e.encodePage(i, &c, rows, s.Dicts); err != nil {
				return fmt.Errorf("%s column %s: %w", e.layout.name, e.layout.cols[i].path[0], err)
			}
		}
		e.rows += int64(rows)
	}
	if s.EndGroup && e.rows > 0 {
		return e.writeGroup(s.Dicts)
	}
	return nil
}
