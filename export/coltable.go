package export

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rocetrace/rocetrace/export/internal/colenc"
	"github.com/rocetrace/rocetrace/flows"
)

// colTable writes one of the tables streamed while the capture is read
// (latency.parquet, rates.parquet) with packets.parquet's columnar writer
// (colenc) rather than parquet-go's row writer: rows are stored as typed
// values in the planes of a set S, which a worker goroutine of its own
// encodes and compresses while the next set fills. Its first Int32 plane
// is the flow column's dictionary indexes (a flow's index is found by its
// pointer, flowDict, without hashing its id), and its second, when the
// table has kind names, the kind's (an enumDict). Nothing is allocated
// per row, and the flow goroutine no longer encodes these tables: at 10M
// frames (2.4M latency samples, 1.8M rate windows) parquet-go's writers
// cost it 1.8 s of CPU, half of it hashing the flow strings into the
// column dictionaries.
type colTable[S colenc.Set] struct {
	pipe    *colenc.Pipeline[S]
	cur     S
	inGroup int64 // rows in the current row group, cur included
	groupN  int64 // rows per row group
	rows    int64
	kv      []format.KeyValue
	flow    flowDict // its byID and vals; the slots are flowIdx's
	flowIdx []flowIdx
	kind    enumDict // the kind column's dictionary (Int32 plane 1), if any
	err     error
}

// newColTable starts the writer of a table of layout l to w.
func newColTable[S colenc.Set](w io.Writer, l *colenc.Layout, opts WriterOptions, newSet func() S) (*colTable[S], error) {
	codec, err := Codec(opts.Compression)
	if err != nil {
		return nil, err
	}
	enc, err := colenc.NewEncoder(w, l, codec)
	if err != nil {
		return nil, err
	}
	t := &colTable[S]{groupN: opts.RowGroupRows}
	if t.groupN <= 0 {
		t.groupN = DefaultRowGroupRows
	}
	keys := make([]string, 0, len(opts.Metadata))
	for k := range opts.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.kv = append(t.kv, format.KeyValue{Key: k, Value: opts.Metadata[k]})
	}
	t.pipe, t.cur = colenc.StartPipeline(enc, newSet)
	t.resetDicts()
	return t, nil
}

// row returns the set and the row number where the next row is stored;
// added counts it once stored.
func (t *colTable[S]) row() (S, int) {
	return t.cur, t.cur.Pages().N & (pageRows - 1)
}

// flowIdx is a flow's dictionary index in the row group of generation gen
// (flowDict.gen). It is all a colTable keeps per flow: flowDict's slots,
// which also cache addresses, would cost 88 bytes per flow and table
// (+90 MB at 400k flows for latency.parquet and rates.parquet).
type flowIdx struct {
	idx int32
	gen uint32
}

// flowIndex returns the flow column's dictionary index of f.
func (t *colTable[S]) flowIndex(f *flows.Flow) int32 {
	n := f.Index()
	if n < 0 {
		return t.flow.index(f.ID())
	}
	if n >= len(t.flowIdx) {
		m := max(n+1, 2*len(t.flowIdx))
		t.flowIdx = slices.Grow(t.flowIdx, m-len(t.flowIdx))[:m]
	}
	s := &t.flowIdx[n]
	if s.gen != t.flow.gen {
		*s = flowIdx{idx: t.flow.index(f.ID()), gen: t.flow.gen}
	}
	return s.idx
}

// added counts the row stored by the caller, and hands the set to the
// worker when it is full or ends the row group.
func (t *colTable[S]) added() error {
	t.cur.Pages().N++
	t.rows++
	t.inGroup++
	switch {
	case t.inGroup == t.groupN:
		return t.send(true)
	case t.cur.Pages().N == pageRows:
		return t.send(false)
	}
	return nil
}

// send hands the current set to the worker, with the row group's
// dictionaries, which start afresh if the set ends the group.
func (t *colTable[S]) send(endGroup bool) error {
	p := t.cur.Pages()
	p.EndGroup = endGroup
	p.Dicts[0] = t.flow.vals
	if len(p.Dicts) > 1 {
		p.Dicts[1] = t.kind.vals
	}
	if endGroup {
		t.inGroup = 0
		t.resetDicts()
	}
	var err error
	if t.cur, err = t.pipe.Send(t.cur); err != nil {
		t.err = err
	}
	return err
}

func (t *colTable[S]) resetDicts() {
	t.flow.reset()
	t.kind.reset()
}

// Close writes the last rows and the footer.
func (t *colTable[S]) Close() error {
	if t.err != nil {
		return t.err
	}
	if t.inGroup > 0 {
		if err := t.send(true); err != nil {
			t.abort()
			return err
		}
	}
	if err := t.pipe.Stop(); err != nil {
		t.err = err
		return err
	}
	if err := t.pipe.Encoder().WriteFooter(t.kv); err != nil {
		t.err = err
		return err
	}
	t.pipe.Release()
	t.err = errClosed
	return nil
}

// abort stops the worker without completing the file. It is safe to call
// more than once and after Close.
func (t *colTable[S]) abort() {
	_ = t.pipe.Stop()
	if t.err == nil {
		t.err = errClosed
	}
}

// Rows returns the number of rows added.
func (t *colTable[S]) Rows() int64 { return t.rows }

// rowLayout returns the colenc layout of a table of rows T: the schema as
// parquet-go writes it for T (from the footer of an empty file, so that
// it cannot drift from T's tags) with the column declarations cols.
func rowLayout[T any](name string, cols []colenc.Column, planes colenc.Planes) (*colenc.Layout, error) {
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[T](&buf, parquet.CreatedBy("rocetrace", "", ""))
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("%s schema: %w", name, err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", name, err)
	}
	return colenc.NewLayout(name, f.Metadata(), cols, planes)
}
