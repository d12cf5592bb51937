package export

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rocetrace/rocetrace/decode"
)

// pageCodecs returns the encoding and is_compressed flag of each data
// page of a column chunk, from the page headers.
func pageCodecs(t *testing.T, data []byte, f *parquet.File, g, c int) (encs []format.Encoding, comp []bool) {
	t.Helper()
	oi, err := f.RowGroups()[g].ColumnChunks()[c].OffsetIndex()
	if err != nil {
		t.Fatal(err)
	}
	for j := range oi.NumPages() {
		var h format.PageHeader
		dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(bytes.NewReader(data[oi.Offset(j):])))
		if err := dec.Decode(&h); err != nil || h.Type != format.DataPageV2 {
			t.Fatalf("group %d column %d page %d: %v %v", g, c, j, h.Type, err)
		}
		v2 := h.DataPageHeaderV2.V
		encs = append(encs, v2.Encoding)
		comp = append(comp, v2.IsCompressed.V)
	}
	return encs, comp
}

// columnUint32s reads the values of an INT32 column of row group g.
func columnUint32s(t *testing.T, f *parquet.File, g, c int) []uint32 {
	t.Helper()
	pages := f.RowGroups()[g].ColumnChunks()[c].Pages()
	defer pages.Close()
	var out []uint32
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]parquet.Value, p.NumValues())
		n, _ := p.Values().ReadValues(vals)
		for _, v := range vals[:n] {
			out = append(out, v.Uint32())
		}
	}
}

// TestRawDeltaPages: psn is a RawDelta column, whose pages of wide deltas
// (PSNs of many connections taking turns, or random ones) are
// DELTA_BINARY_PACKED stored uncompressed, never tried with the codec;
// values that step slowly stay delta pages for the codec, and values
// whose deltas are no smaller than PLAIN stay PLAIN. reth_rkey, not
// RawDelta, keeps PLAIN for the same wide deltas. The values read back as
// written.
func TestRawDeltaPages(t *testing.T) {
	tmpl, flow := roceTemplate(t)
	rng := rand.New(rand.NewPCG(1, 2))
	bases := make([]uint32, 1000)
	for i := range bases {
		bases[i] = rng.Uint32() & 0xffffff
	}
	turns := func(i int) uint32 { return (bases[i%len(bases)] + uint32(i/len(bases))) & 0xffffff }
	const delta, plain = format.DeltaBinaryPacked, format.Plain
	cases := []struct {
		name    string
		psn     func(i int) uint32
		enc     format.Encoding // psn's pages
		comp    bool            // psn's pages compressed
		rkeyEnc format.Encoding // reth_rkey's pages, holding psn's values
	}{
		{"1000 connections in turn", turns, delta, false, plain},
		{"random 24-bit", func(int) uint32 { return rng.Uint32() & 0xffffff }, delta, false, plain},
		{"one connection", func(i int) uint32 { return uint32(5000 + 3*i) }, delta, true, delta},
		{"random 32-bit", func(int) uint32 { return rng.Uint32() }, plain, false, plain},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := new(testRows)
			var want []uint32
			for i := range 2 * pageRows {
				p := tmpl
				p.TsNs += int64(i)
				p.BTH.PSN = tc.psn(i)
				p.Ext |= decode.ExtRETH
				p.RETH.RKey = p.BTH.PSN
				r.add(p, flow)
				want = append(want, p.BTH.PSN)
			}
			data := writeRows(t, r, WriterOptions{})
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				enc  format.Encoding
				comp bool
			}{{"psn", tc.enc, tc.comp}, {"reth_rkey", tc.rkeyEnc, tc.comp && tc.rkeyEnc == tc.enc}} {
				encs, comp := pageCodecs(t, data, f, 0, col(c.name))
				for j := range encs {
					if encs[j] != c.enc || (c.name == "psn" && comp[j] != c.comp) {
						t.Errorf("%s page %d: %v, compressed %v; want %v, %v", c.name, j, encs[j], comp[j], c.enc, c.comp)
					}
				}
				if got := columnUint32s(t, f, 0, col(c.name)); !slices.Equal(got, want) {
					t.Errorf("%s: %d values read back differ from the %d written", c.name, len(got), len(want))
				}
			}
		})
	}
}
