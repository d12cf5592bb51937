package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/export/internal/colenc"
)

// roceTemplate returns a captured RoCE row with a UDP header, a BTH and a
// payload length and no VLAN tag, to vary column by column.
func roceTemplate(t *testing.T) (decode.Packet, string) {
	t.Helper()
	r := capturedRows(t, 200)
	for i, p := range r.packets {
		if p.HasBTH && p.HasUDP && p.HasPayloadLen && p.VLANCount == 0 && p.Kind == decode.KindRoCE {
			return p, r.flows[i]
		}
	}
	t.Fatal("no RoCE row in the test captures")
	return decode.Packet{}, ""
}

// chunkPages returns the encodings of the data pages of a column chunk, in
// order, and the number of values of its dictionary page (-1 for none),
// read from the page headers.
func chunkPages(t *testing.T, data []byte, f *parquet.File, g, c int) (encs []format.Encoding, dictValues int) {
	t.Helper()
	header := func(off int64) format.PageHeader {
		var h format.PageHeader
		dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(bytes.NewReader(data[off:])))
		if err := dec.Decode(&h); err != nil {
			t.Fatalf("group %d column %d: page header at %d: %v", g, c, off, err)
		}
		return h
	}
	md := &f.Metadata().RowGroups[g].Columns[c].MetaData
	dictValues = -1
	if md.DictionaryPageOffset != 0 {
		h := header(md.DictionaryPageOffset)
		if h.Type != format.DictionaryPage {
			t.Fatalf("group %d column %d: page at the dictionary offset is %v", g, c, h.Type)
		}
		dictValues = int(h.DictionaryPageHeader.V.NumValues)
	}
	oi, err := f.RowGroups()[g].ColumnChunks()[c].OffsetIndex()
	if err != nil {
		t.Fatal(err)
	}
	for j := range oi.NumPages() {
		h := header(oi.Offset(j))
		if h.Type != format.DataPageV2 {
			t.Fatalf("group %d column %d page %d: %v", g, c, j, h.Type)
		}
		encs = append(encs, h.DataPageHeaderV2.V.Encoding)
	}
	return encs, dictValues
}

// checkPageStats compares the column index of an integer column's chunk
// (null pages, null counts, min and max of each page) with the rows.
func checkPageStats(t *testing.T, f *parquet.File, g, c int, objs []map[string]any) {
	t.Helper()
	ci, err := f.RowGroups()[g].ColumnChunks()[c].ColumnIndex()
	if err != nil {
		t.Fatal(err)
	}
	name := packetFields[c].Name()
	for j := range ci.NumPages() {
		rows := objs[j*pageRows : min((j+1)*pageRows, len(objs))]
		var vals []int64
		for _, o := range rows {
			if v, ok := o[name].(json.Number); ok {
				n, _ := v.Int64()
				vals = append(vals, n)
			}
		}
		if got := ci.NullCount(j); got != int64(len(rows)-len(vals)) {
			t.Errorf("group %d %s page %d: null count %d, want %d", g, name, j, got, len(rows)-len(vals))
		}
		if ci.NullPage(j) != (len(vals) == 0) {
			t.Errorf("group %d %s page %d: null page %v with %d values", g, name, j, ci.NullPage(j), len(vals))
		}
		if len(vals) == 0 {
			continue
		}
		lo, hi := int64(ci.MinValue(j).Uint32()), int64(ci.MaxValue(j).Uint32())
		if lo != slices.Min(vals) || hi != slices.Max(vals) {
			t.Errorf("group %d %s page %d: min/max %d/%d, want %d/%d", g, name, j, lo, hi, slices.Min(vals), slices.Max(vals))
		}
	}
}

// TestIntDictionaryEncoding writes integer dictionary columns through the
// layouts that matter (a chunk falling back mid-way, by dictionary size or
// by a value out of the table, pages and chunks of nulls, row groups that
// start afresh) and checks the page encodings, the dictionary pages, the
// statistics and page indexes, and the values read back by parquet-go and
// (when installed) DuckDB.
func TestIntDictionaryEncoding(t *testing.T) {
	tmpl, flow := roceTemplate(t)
	type chunkWant struct {
		col, group int
		dict       []format.Encoding // data page encodings; DELTA_BINARY_PACKED also stands for PLAIN
		dictValues int               // -1: no dictionary page
	}
	const rld, fb = format.RLEDictionary, format.DeltaBinaryPacked
	cases := []struct {
		name      string
		n         int
		groupRows int
		row       func(i int, p *decode.Packet) // i: row number
		want      []chunkWant
	}{
		{"falls back mid-chunk", 3*pageRows + 10, 4 * pageRows, func(i int, p *decode.Packet) {
			page := i / pageRows
			p.SrcPort = uint16(49152 + i%4)
			p.BTH.DestQP = uint32(0x100 + i%3)
			p.Len = 1000 + i%5
			if page == 1 {
				// More values than a dictionary holds; a QPN out of
				// the lookup table's domain.
				p.SrcPort = uint16(1000 + i%(2*colenc.IntDictMax))
				if i%pageRows == 7 {
					p.BTH.DestQP = 0x123456
				}
			}
		}, []chunkWant{
			{col("udp_sport"), 0, []format.Encoding{rld, fb, fb, fb}, 4},
			{col("dst_qpn"), 0, []format.Encoding{rld, fb, fb, fb}, 3},
			{col("len"), 0, []format.Encoding{rld, rld, rld, rld}, 5},
			{col("dscp"), 0, []format.Encoding{rld, rld, rld, rld}, 1},
		}},
		{"falls back on the first page", pageRows + 5, pageRows + 5, func(i int, p *decode.Packet) {
			p.SrcPort = uint16(i)
		}, []chunkWant{
			{col("udp_sport"), 0, []format.Encoding{fb, fb}, -1},
		}},
		{"all-null pages", 3 * pageRows, 4 * pageRows, func(i int, p *decode.Packet) {
			page := i / pageRows
			p.VLANCount, p.VLANID, p.VLANPCP = 0, 0, 0
			if page == 1 {
				p.VLANCount, p.VLANID, p.VLANPCP = 1, uint16(100+i%2), 3
			}
			p.HasPayloadLen = false // null in every page
		}, []chunkWant{
			{col("vlan_id"), 0, []format.Encoding{rld, rld, rld}, 2},
			{col("vlan_pcp"), 0, []format.Encoding{rld, rld, rld}, 1},
			{col("payload_len"), 0, []format.Encoding{rld, rld, rld}, 0},
		}},
		{"several row groups", 2*pageRows + 300, pageRows - 100, func(i int, p *decode.Packet) {
			p.SrcPort = uint16(50000 + i%7)
			if g := i / (pageRows - 100); g == 1 {
				p.SrcPort = uint16(i) // this group falls back
			}
			p.CapLen = 128 - i%2
		}, []chunkWant{
			{col("udp_sport"), 0, []format.Encoding{rld}, 7},
			{col("udp_sport"), 1, []format.Encoding{fb}, -1},
			{col("udp_sport"), 2, []format.Encoding{rld}, 7},
			{col("caplen"), 1, []format.Encoding{rld}, 2},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := new(testRows)
			for i := range tc.n {
				p := tmpl
				p.TsNs += int64(i)
				tc.row(i, &p)
				r.add(p, flow)
			}
			data := writeRows(t, r, WriterOptions{RowGroupRows: int64(tc.groupRows)})
			checkRows(t, data, r, tc.groupRows, true)
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			objs := make([]map[string]any, len(r.packets))
			for i := range r.packets {
				objs[i] = jsonRow(t, &r.packets[i], r.flows[i])
			}
			for _, w := range tc.want {
				encs, dv := chunkPages(t, data, f, w.group, w.col)
				for j, e := range encs {
					if e == format.Plain {
						encs[j] = fb
					}
				}
				if !slices.Equal(encs, w.dict) || dv != w.dictValues {
					t.Errorf("group %d %s: pages %v, dictionary of %d; want %v, %d", w.group, packetFields[w.col].Name(), encs, dv, w.dict, w.dictValues)
				}
				first := w.group * tc.groupRows
				checkPageStats(t, f, w.group, w.col, objs[first:min(first+tc.groupRows, len(objs))])
			}
			for g := range f.Metadata().RowGroups {
				first := g * tc.groupRows
				for _, c := range intDictColumns(t) {
					checkPageStats(t, f, g, c, objs[first:min(first+tc.groupRows, len(objs))])
				}
			}
			checkDuckDB(t, data, objs)
		})
	}
}

// checkDuckDB reads the integer dictionary columns of data with DuckDB and
// compares them with the rows' JSON objects; it does nothing unless node
// and @duckdb/node-api are installed (under $ROCETRACE_DUCKDB_NODE,
// default /tmp/duckdb-node, as cmd/rocetrace's DuckDB tests use them).
func checkDuckDB(t *testing.T, data []byte, objs []map[string]any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node not installed: DuckDB check skipped")
		return
	}
	dir := os.Getenv("ROCETRACE_DUCKDB_NODE")
	if dir == "" {
		dir = "/tmp/duckdb-node"
	}
	mod := filepath.Join(dir, "node_modules", "@duckdb", "node-api")
	if _, err := os.Stat(filepath.Join(mod, "package.json")); err != nil {
		t.Log("@duckdb/node-api not installed: DuckDB check skipped")
		return
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "packets.parquet")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dictCols := intDictColumns(t)
	names := make([]string, len(dictCols))
	for i, c := range dictCols {
		names[i] = packetFields[c].Name()
	}
	script := `
const { DuckDBInstance } = require(process.argv[2]);
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(process.argv[3]);
  console.log(JSON.stringify(r.getRowsJson()));
})().catch(e => { console.error(String(e)); process.exit(1); });
`
	js := filepath.Join(tmp, "duck.js")
	if err := os.WriteFile(js, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf("SELECT %s FROM read_parquet('%s') ORDER BY frame", strings.Join(names, ", "), file)
	cmd := exec.Command(node, js, mod, q)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v: %s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var rows [][]any
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("duckdb output: %v", err)
	}
	if len(rows) != len(objs) {
		t.Fatalf("duckdb: %d rows, want %d", len(rows), len(objs))
	}
	for i, row := range rows {
		for j, name := range names {
			if got, want := fmt.Sprint(row[j]), fmt.Sprint(objs[i][name]); got != want {
				t.Fatalf("duckdb row %d %s: %s, want %s", i, name, got, want)
			}
		}
	}
}

// col returns the leaf column index of the column declared as name in
// packetColumns.
func col(name string) int {
	for i, c := range packetColumns() {
		if c.Name == name {
			return i
		}
	}
	panic("no packet column " + name)
}

// intDictColumns returns the leaf columns declared IntDict.
func intDictColumns(t testing.TB) []int {
	t.Helper()
	l, err := packetLayout()
	if err != nil {
		t.Fatal(err)
	}
	var cols []int
	for i := range l.NumColumns() {
		if l.IntDict(i) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		t.Fatal("no integer dictionary column")
	}
	return cols
}
