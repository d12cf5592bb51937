package colenc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// testRow is a small table with a column of each kind.
type testRow struct {
	N     int64    `parquet:"n,delta"`
	M     int64    `parquet:"m,delta"`
	Name  string   `parquet:"name,dict"`
	Port  *int32   `parquet:"port,optional"`
	Flag  bool     `parquet:"flag"`
	Quant []uint16 `parquet:"quant,optional,list"`
}

func testFooter(t *testing.T) *format.FileMetaData {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[testRow](&buf)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f.Metadata()
}

func testColumns() []Column {
	return []Column{
		{Name: "n", Slot: 0, Def: Required, Delta: true},
		{Name: "m", Alias: "n", Def: Required},
		{Name: "name", Slot: 0, Def: Required},
		{Name: "port", Slot: 1, Def: 0, IntDict: true},
		{Name: "flag", Slot: 0, Def: Required},
		{Name: "quant", Def: 1, List: 2},
	}
}

// testPlanes are the planes of testColumns.
func testPlanes() Planes { return Planes{Int32: 2, Int64: 1, Bool: 1, Levels: 2} }

// TestNewLayout checks that a declaration that does not match the schema
// or the planes is refused, with the column named.
func TestNewLayout(t *testing.T) {
	md := testFooter(t)
	l, err := NewLayout("t.parquet", md, testColumns(), testPlanes())
	if err != nil {
		t.Fatal(err)
	}
	if l.NumColumns() != 6 || l.Path(5)[0] != "quant" || !l.IntDict(3) || l.IntDict(0) {
		t.Errorf("layout: %d columns, %v, int dict %v %v", l.NumColumns(), l.Path(5), l.IntDict(3), l.IntDict(0))
	}
	for _, tc := range []struct {
		name, want string
		edit       func(c []Column) []Column
	}{
		{"missing", "5 declared", func(c []Column) []Column { return c[:5] }},
		{"renamed", `declared as "x"`, func(c []Column) []Column { c[2].Name = "x"; return c }},
		{"shared slot", "shares its slot", func(c []Column) []Column { c[3].Slot = 0; return c }},
		{"slot out of planes", "does not match its storage", func(c []Column) []Column { c[4].Slot = 1; return c }},
		{"optional without levels", "does not match its storage", func(c []Column) []Column { c[3].Def = Required; return c }},
		{"required with levels", "does not match its storage", func(c []Column) []Column { c[0].Def = 0; return c }},
		{"levels out of planes", "does not match its storage", func(c []Column) []Column { c[3].Def = 2; return c }},
		{"delta string", "cannot be delta-encoded", func(c []Column) []Column { c[2].Delta = true; return c }},
		{"int dict int64", "cannot be an integer dictionary", func(c []Column) []Column { c[0].IntDict = true; return c }},
		{"raw delta int64", "cannot be RawDelta", func(c []Column) []Column { c[0].RawDelta = true; return c }},
		{"raw delta int dict", "cannot be RawDelta", func(c []Column) []Column { c[3].RawDelta = true; return c }},
		{"alias of nothing", "not an earlier column", func(c []Column) []Column { c[1].Alias = "flag"; return c }},
		{"alias of another type", "is not an alias", func(c []Column) []Column { c[4].Alias = "n"; return c }},
		{"list without length", "unexpected list column", func(c []Column) []Column { c[5].List = 0; return c }},
		{"list not repeated", "unexpected list column", func(c []Column) []Column { c[3].List = 8; return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewLayout("t.parquet", md, tc.edit(testColumns()), testPlanes())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t.parquet") {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEncodeChecksPlanes: Pages without the layout's planes are refused,
// not indexed out of range.
func TestEncodeChecksPlanes(t *testing.T) {
	l, err := NewLayout("t.parquet", testFooter(t), testColumns(), testPlanes())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	e, err := NewEncoder(&buf, l, new(zstd.Codec))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPages(make([]Int32Plane, 1), make([]Int64Plane, 1), make([]BoolPlane, 1), make([]LevelPlane, 2))
	p.N = 1
	if err := e.Encode(&p); err == nil {
		t.Error("Encode of pages with too few planes succeeded")
	}
}
