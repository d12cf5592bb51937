package colenc

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// WriteFooter writes the page indexes, the file metadata (with the
// key/value metadata kv) and the trailer, once every row group is written.
func (e *Encoder) WriteFooter(kv []format.KeyValue) error {
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.hbuf))
	put := func(v any) (int64, int32, error) {
		e.hbuf.Reset()
		if err := enc.Encode(v); err != nil {
			return 0, 0, fmt.Errorf("encoding %s footer: %w", e.layout.name, err)
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
