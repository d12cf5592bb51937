package colenc

import (
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/format"
)

// Required is Column.Def of a required column: it has no definition levels.
const Required = -1

// Column declares one leaf column of a table, in schema order: where the
// row side stores its values and definition levels in a Pages, and how
// its pages are encoded. Its type, levels and path come from the schema;
// NewLayout checks the declaration against them.
type Column struct {
	// Name is the column's top-level field in the schema (a list's leaf
	// is named by its list field).
	Name string
	// Slot is the plane of the column's values among the planes of its
	// type: Int32, Int64 or Bool; a string column's are Int32 planes,
	// holding dictionary indexes. Unused for an Alias or a List column.
	Slot int
	// Def is the plane of the column's definition levels (0 null, 1
	// present), shared by the columns that are null together, or Required.
	Def int
	// Delta makes an INT64 column DELTA_BINARY_PACKED always, not only
	// when that is at most half the size of PLAIN.
	Delta bool
	// IntDict makes an INT32 column RLE_DICTIONARY, with a PLAIN
	// dictionary page per column chunk, until the chunk's dictionary
	// outgrows IntDictMax values below IntDictDomain; then the rest of the
	// chunk falls back to PLAIN or DELTA_BINARY_PACKED. For columns of few
	// values (lengths, ports, header fields).
	IntDict bool
	// RawDelta stores an INT32 column's DELTA_BINARY_PACKED pages that are
	// not half the size of PLAIN, but at least an eighth smaller,
	// uncompressed instead of trying PLAIN and the codec: for values that
	// step by one per connection, interleaved across many (PSNs), where
	// the codec costs several times its usual time per byte (see
	// Encoder.int32Values). Not with IntDict.
	RawDelta bool
	// Alias names an earlier column of the same values, type and
	// encoding: this column's pages are copies of that one's, and its
	// Slot, Def and Delta are that column's.
	Alias string
	// List is, for a repeated column (a list of INT32 under an optional
	// field, the only kind supported), the number of values of each
	// present row, stored in order in Pages.List; Def is the optional
	// field's plane.
	List int
	// Set makes the column a list of strings from a fixed set (under an
	// optional field): the row's value in Int32 plane Slot is a bit mask,
	// bit i naming entry i of the column's dictionary (Pages.Dicts[Slot],
	// which holds the set's names in bit order), the list's elements in
	// bit order; Def is the optional field's plane (null: no list).
	Set bool
}

// Planes is how many planes of each kind a Pages has.
type Planes struct {
	Int32, Int64, Bool, Levels int
}

// colType is how a column's values are stored before encoding.
type colType uint8

const (
	tInt32 colType = iota // INT32, PLAIN or DELTA_BINARY_PACKED; RLE_DICTIONARY first if colSpec.intDict
	tInt64                // INT64, PLAIN or DELTA_BINARY_PACKED
	tBool                 // BOOLEAN, PLAIN (bit-packed)
	tDict                 // BYTE_ARRAY (STRING), RLE_DICTIONARY with a dictionary page per row group
)

// colSpec describes one leaf column: the schema's part, then the
// declaration's (Column).
type colSpec struct {
	typ      colType
	ptype    format.Type
	maxDef   uint8
	maxRep   uint8
	unsigned bool // integer statistics compare as unsigned (INT(n,false))
	path     []string

	slot     int // Column.Slot; for a string column, an Int32 plane
	def      int // Column.Def
	delta    bool
	intDict  bool
	rawDelta bool
	alias    int // the column whose pages this one copies; -1 for none
	list     int // Column.List
	set      bool
}

// Layout is a table's schema as its footer states it (schema elements,
// column orders, created_by) and its leaf columns, with their
// declarations.
type Layout struct {
	name         string // the file's name, for errors
	schema       []format.SchemaElement
	columnOrders []format.ColumnOrder
	createdBy    string
	cols         []colSpec
	planes       Planes
}

// NewLayout returns the layout of a table whose footer (of an empty file
// written by parquet-go from the row type, so that the schema cannot drift
// from it) is md and whose leaf columns are declared by cols, in schema
// order, with values in Pages of planes. name is the file's, for errors.
func NewLayout(name string, md *format.FileMetaData, cols []Column, planes Planes) (*Layout, error) {
	l := &Layout{
		name:         name,
		schema:       slices.Clone(md.Schema),
		columnOrders: slices.Clone(md.ColumnOrders),
		createdBy:    md.CreatedBy,
		planes:       planes,
	}
	if len(l.schema) == 0 {
		return nil, fmt.Errorf("%s schema: no root element", name)
	}
	if _, err := l.walk(0, nil, 0, 0); err != nil {
		return nil, err
	}
	if len(l.cols) != len(cols) {
		return nil, fmt.Errorf("%s schema: %d leaf columns, %d declared", name, len(l.cols), len(cols))
	}
	for i := range cols {
		if err := l.declare(i, &cols[i]); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// walk adds the leaf columns under schema element i, whose path is path
// and levels def and rep, and returns the index of the element after
// them.
func (l *Layout) walk(i int, path []string, def, rep uint8) (int, error) {
	if i >= len(l.schema) {
		return 0, fmt.Errorf("%s schema: element %d missing", l.name, i)
	}
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
			if next, err = l.walk(next, path, def, rep); err != nil {
				return 0, err
			}
		}
		return next, nil
	}
	c := colSpec{ptype: e.Type.V, maxDef: def, maxRep: rep, path: path, alias: -1}
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
		return 0, fmt.Errorf("%s schema: column %v has type %v", l.name, path, e.Type.V)
	}
	if it, ok := e.LogicalType.Value.(*format.IntType); ok && !it.IsSigned {
		c.unsigned = true
	}
	l.cols = append(l.cols, c)
	return next, nil
}

// declare checks column i's declaration d against the schema and the
// planes, and records it.
func (l *Layout) declare(i int, d *Column) error {
	c := &l.cols[i]
	if d.Name != c.path[0] {
		return fmt.Errorf("%s schema: column %d is %v, declared as %q", l.name, i, c.path, d.Name)
	}
	c.slot, c.def, c.delta, c.intDict, c.list, c.set = d.Slot, d.Def, d.Delta, d.IntDict, d.List, d.Set
	c.rawDelta = d.RawDelta
	switch {
	case d.Set:
		return l.declareSet(i)
	case d.Delta && c.typ != tInt64:
		return fmt.Errorf("%s schema: column %v is not INT64, cannot be delta-encoded", l.name, c.path)
	case d.IntDict && (c.typ != tInt32 || c.maxRep > 0):
		return fmt.Errorf("%s schema: column %v cannot be an integer dictionary", l.name, c.path)
	case d.RawDelta && (c.typ != tInt32 || c.maxRep > 0 || d.IntDict):
		return fmt.Errorf("%s schema: column %v cannot be RawDelta", l.name, c.path)
	case c.maxRep > 0 || d.List > 0:
		return l.declareList(i)
	case d.Alias != "":
		return l.declareAlias(i, d.Alias)
	}
	limit := [...]int{tInt32: l.planes.Int32, tInt64: l.planes.Int64, tBool: l.planes.Bool, tDict: l.planes.Int32}
	if c.slot < 0 || c.slot >= limit[c.typ] || (c.maxDef > 0) != (c.def >= 0) || c.maxDef > 1 || c.def >= l.planes.Levels {
		return fmt.Errorf("%s schema: column %v does not match its storage", l.name, c.path)
	}
	for j := range i {
		o := &l.cols[j]
		if o.alias < 0 && o.list == 0 && o.slot == c.slot && o.plane() == c.plane() {
			return fmt.Errorf("%s schema: column %v shares its slot with %v", l.name, c.path, o.path)
		}
	}
	return nil
}

// declareList checks a list column's declaration.
func (l *Layout) declareList(i int) error {
	c := &l.cols[i]
	if c.maxRep != 1 || c.list <= 0 || c.typ != tInt32 || c.maxDef != 2 || c.def < 0 || c.def >= l.planes.Levels {
		return fmt.Errorf("%s schema: unexpected list column %v", l.name, c.path)
	}
	for j := range i {
		if l.cols[j].list > 0 {
			return fmt.Errorf("%s schema: a second list column %v", l.name, c.path)
		}
	}
	return nil
}

// declareSet checks a set column's declaration.
func (l *Layout) declareSet(i int) error {
	c := &l.cols[i]
	if c.maxRep != 1 || c.typ != tDict || c.maxDef != 2 || c.list != 0 || c.slot < 0 || c.slot >= l.planes.Int32 ||
		c.def < 0 || c.def >= l.planes.Levels {
		return fmt.Errorf("%s schema: unexpected set column %v", l.name, c.path)
	}
	return nil
}

// declareAlias checks that column i can be a copy of the earlier column
// named alias, and takes that one's storage.
func (l *Layout) declareAlias(i int, alias string) error {
	c := &l.cols[i]
	a := slices.IndexFunc(l.cols[:i], func(o colSpec) bool { return o.path[0] == alias })
	if a < 0 {
		return fmt.Errorf("%s schema: column %v is an alias of %q, not an earlier column", l.name, c.path, alias)
	}
	o := &l.cols[a]
	if o.alias >= 0 || o.list > 0 || o.typ != c.typ || o.maxDef != c.maxDef || o.maxRep != c.maxRep ||
		o.unsigned != c.unsigned || o.ptype != c.ptype || o.intDict != c.intDict {
		return fmt.Errorf("%s schema: column %v is not an alias of %v", l.name, c.path, o.path)
	}
	c.alias, c.slot, c.def, c.delta = a, o.slot, o.def, o.delta
	return nil
}

// plane is the kind of plane of the column's values.
func (c *colSpec) plane() colType {
	if c.typ == tDict {
		return tInt32
	}
	return c.typ
}

// NumColumns returns the number of leaf columns.
func (l *Layout) NumColumns() int { return len(l.cols) }

// Path returns the path of leaf column i in the schema.
func (l *Layout) Path(i int) []string { return l.cols[i].path }

// IntDict reports whether leaf column i is declared IntDict.
func (l *Layout) IntDict(i int) bool { return l.cols[i].intDict }
