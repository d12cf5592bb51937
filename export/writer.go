package export

import (
	"fmt"
	"io"
	"strings"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/lz4"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// DefaultRowGroupRows is the number of rows per row group: large enough for
// efficient scans, small enough to keep the writer's memory flat.
const DefaultRowGroupRows = 128 * 1024

// batchRows is how many rows a Writer collects before handing them to
// parquet-go in one call.
const batchRows = 1024

// Compressions lists the accepted --compression names.
var Compressions = []string{"none", "snappy", "gzip", "zstd", "lz4"}

// Codec returns the Parquet codec for a --compression name ("" = zstd).
// lz4 is Parquet's LZ4_RAW.
func Codec(name string) (compress.Codec, error) {
	switch strings.ToLower(name) {
	case "", "zstd":
		return &parquet.Zstd, nil
	case "none", "uncompressed":
		return &parquet.Uncompressed, nil
	case "snappy":
		return &parquet.Snappy, nil
	case "gzip":
		return &parquet.Gzip, nil
	case "lz4", "lz4_raw":
		// parquet-go's own LZ4_RAW codec compresses with the slow
		// high-compression (HC) block compressor; the fast one is what
		// --compression lz4 is chosen for.
		return &lz4.Codec{Level: lz4.Fastest}, nil
	}
	return nil, fmt.Errorf("unknown compression %q: want %s", name, strings.Join(Compressions, ", "))
}

// WriterOptions configures a Writer.
type WriterOptions struct {
	Compression  string            // see Codec; "" = zstd
	RowGroupRows int64             // rows per row group; 0 = DefaultRowGroupRows
	Metadata     map[string]string // key/value metadata stored in the footer
	// Codec, when not nil, is used instead of Compression's codec (of the
	// same kind: it names the file's compression).
	Codec compress.Codec
}

// Writer writes rows of type T, a struct with parquet tags, to one Parquet
// stream. Rows are collected in a reused batch and handed to parquet-go's
// GenericWriter batchRows at a time, which cuts row groups every
// RowGroupRows rows: memory does not grow with the number of rows.
type Writer[T any] struct {
	pw   *parquet.GenericWriter[T]
	buf  []T
	n    int   // rows of buf in use
	rows int64 // rows handed over so far (written or batched)
	err  error
}

// NewWriter returns a Writer to w.
func NewWriter[T any](w io.Writer, opts WriterOptions) (*Writer[T], error) {
	codec, err := Codec(opts.Compression)
	if err != nil {
		return nil, err
	}
	if opts.Codec != nil {
		codec = opts.Codec
	}
	rg := opts.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	wopts := []parquet.WriterOption{
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(rg),
		parquet.CreatedBy("rocetrace", "", ""),
	}
	for k, v := range opts.Metadata {
		wopts = append(wopts, parquet.KeyValueMetadata(k, v))
	}
	return &Writer[T]{
		pw:  parquet.NewGenericWriter[T](w, wopts...),
		buf: make([]T, batchRows),
	}, nil
}

// Next returns the slot for the next row, to be filled in place; every
// field must be set, since the slot may hold an earlier row. The row is
// written when the batch is full or at Flush/Close.
func (w *Writer[T]) Next() (*T, error) {
	if w.n == len(w.buf) {
		if err := w.flushBatch(); err != nil {
			return nil, err
		}
	}
	r := &w.buf[w.n]
	w.n++
	w.rows++
	return r, nil
}

// Write appends rows.
func (w *Writer[T]) Write(rows ...T) error {
	for i := range rows {
		r, err := w.Next()
		if err != nil {
			return err
		}
		*r = rows[i]
	}
	return nil
}

// Rows returns the number of rows written so far.
func (w *Writer[T]) Rows() int64 { return w.rows }

func (w *Writer[T]) flushBatch() error {
	if w.err != nil {
		return w.err
	}
	if w.n > 0 {
		if _, err := w.pw.Write(w.buf[:w.n]); err != nil {
			w.err = err
			return err
		}
		w.n = 0
	}
	return nil
}

// Close writes the remaining rows and the file footer. It does not close
// the underlying writer.
func (w *Writer[T]) Close() error {
	if err := w.flushBatch(); err != nil {
		return err
	}
	if err := w.pw.Close(); err != nil {
		w.err = err
		return err
	}
	w.err = errClosed
	return nil
}

var errClosed = fmt.Errorf("export: writer closed")

// smallZstd is parquet-go's zstd codec with the encoder of the packets'
// pages (export/internal/colenc: pageZstd): the fastest level and a 256 KiB
// window instead of the level's 8 MiB one, whose 16 MiB history buffer
// would stay live while the table is written (openTable).
type smallZstd struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

func newSmallZstd() (*smallZstd, error) {
	enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithEncoderConcurrency(1),
		kzstd.WithWindowSize(256<<10), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return &smallZstd{enc: enc}, nil
}

// Encode compresses src into dst[:0].
func (c *smallZstd) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}
