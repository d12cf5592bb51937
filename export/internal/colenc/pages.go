package colenc

import (
	"encoding/binary"
	"slices"
)

// PageRows is the number of rows of a data page (fewer at the end of a row
// group): the rows of a Pages.
const PageRows = 16 * 1024

// Planes of a page's values and levels, by row number. Each is a cache
// line longer than PageRows values: planes a power of two apart would put
// a row's ~80 stores in the same few L1 sets, which evict each other
// (twice the time per row).
type (
	// Int32Plane holds an INT32 column's values, or a string column's
	// dictionary indexes.
	Int32Plane [PageRows + 64/4]int32
	// Int64Plane holds an INT64 column's values.
	Int64Plane [PageRows + 64/8]int64
	// BoolPlane holds a BOOLEAN column's values, 0 or 1.
	BoolPlane [PageRows + 64]byte
	// LevelPlane holds definition levels, 0 (null) or 1 (present), of
	// the columns that are null together.
	LevelPlane [PageRows + 64]uint8
)

// Pages is one page's worth of rows of every column, as the row side
// stores them: values and definition levels by row number in planes that
// it owns (a null's value is whatever was left there; the encoder drops
// it), so that a row is a fixed number of stores at fixed offsets, with
// no bounds or capacity checks.
type Pages struct {
	// N is the number of rows stored.
	N int
	// EndGroup says that these are the last rows of a row group: the
	// encoder writes its column chunks after them.
	EndGroup bool
	// List holds the values of the list column (Column.List per present
	// row, in row order).
	List []int32
	// Dicts holds, by the Int32 plane of each string column, the row
	// group's dictionary so far: the strings that the indexes refer to.
	Dicts [][]string

	i32 [][]int32
	i64 [][]int64
	b   [][]byte
	def [][]uint8
}

// NewPages returns the Pages of the given planes, which the row side
// writes to directly.
func NewPages(i32 []Int32Plane, i64 []Int64Plane, b []BoolPlane, def []LevelPlane) Pages {
	p := Pages{Dicts: make([][]string, len(i32))}
	for i := range i32 {
		p.i32 = append(p.i32, i32[i][:])
	}
	for i := range i64 {
		p.i64 = append(p.i64, i64[i][:])
	}
	for i := range b {
		p.b = append(p.b, b[i][:])
	}
	for i := range def {
		p.def = append(p.def, def[i][:])
	}
	return p
}

// Reset empties p for the next rows. The dictionaries it referred to are
// dropped, not changed.
func (p *Pages) Reset() {
	p.N, p.EndGroup = 0, false
	p.List = p.List[:0]
	clear(p.Dicts)
}

// fits reports whether p has the planes of l.
func (p *Pages) fits(l *Layout) bool {
	return len(p.i32) >= l.planes.Int32 && len(p.i64) >= l.planes.Int64 && len(p.b) >= l.planes.Bool &&
		len(p.def) >= l.planes.Levels && len(p.Dicts) >= l.planes.Int32
}

// colData is one column's part of a Pages as a page is encoded from it:
// levels of every row, the values of the non-null ones.
type colData struct {
	def, rep  []uint8
	defPlane  int // def's plane, whose encoding columns share; -1 for none
	numValues int
	i32       []int32
	i64       []int64
	b         []byte
}

// columnData returns column ci's levels and non-null values in s. The
// values of an optional column are compacted in place (its plane is not
// read again before the set is reset).
func (e *Encoder) columnData(s *Pages, ci int) colData {
	rows := s.N
	spec := &e.layout.cols[ci]
	if spec.list > 0 {
		return e.listData(s, spec)
	}
	if spec.set {
		return e.setData(s, spec)
	}
	c := colData{defPlane: -1, numValues: rows}
	n := rows
	var def []uint8
	if spec.maxDef > 0 {
		c.defPlane = spec.def
		def = s.def[spec.def][:rows]
		c.def = def
		n = e.nonNull[spec.def]
	}
	var (
		runs []run
		pos  []int32
	)
	if spec.maxDef > 0 && n > 0 && n < rows {
		runs, pos = e.runsOf(spec.def, def)
	}
	switch spec.typ {
	case tInt32, tDict:
		c.i32 = compact(s.i32[spec.slot][:rows], n, runs, pos)
	case tInt64:
		c.i64 = compact(s.i64[spec.slot][:rows], n, runs, pos)
	case tBool:
		c.b = compact(s.b[spec.slot][:rows], n, runs, pos)
	}
	return c
}

// listData is columnData for the list column. A present row is a list of
// spec.list values: the first element starts the row (repetition level
// 0), the others repeat it (1); all are defined (level 2). Other rows are
// null (0, 0).
func (e *Encoder) listData(s *Pages, spec *colSpec) colData {
	rows := s.N
	c := colData{defPlane: -1}
	q, r := e.qdef[:0], e.qrep[:0]
	if e.nonNull[spec.def] == 0 {
		// No present row: rows zeros, each.
		q, r = slices.Grow(q, rows)[:rows], slices.Grow(r, rows)[:rows]
		clear(q)
		clear(r)
		e.qdef, e.qrep = q, r
		c.def, c.rep, c.numValues, c.i32 = q, r, rows, s.List
		return c
	}
	if len(e.listRep) != spec.list {
		e.listDef, e.listRep = make([]uint8, spec.list), make([]uint8, spec.list)
		for i := range spec.list {
			e.listDef[i], e.listRep[i] = 2, min(uint8(i), 1)
		}
	}
	def := s.def[spec.def][:rows]
	for i := 0; i < len(def); i++ {
		if n := nullRows(def[i:]); n > 0 {
			q, r = appendZeros(q, n), appendZeros(r, n)
			i += n - 1
			continue
		}
		if def[i] != 0 {
			q = append(q, e.listDef...)
			r = append(r, e.listRep...)
		} else {
			q = append(q, 0)
			r = append(r, 0)
		}
	}
	e.qdef, e.qrep = q, r
	c.def, c.rep, c.numValues, c.i32 = q, r, len(r), s.List
	return c
}

// setData is columnData for a set column (Column.Set): a present row's
// mask becomes its list, one element per set bit in bit order (repetition
// level 0 for the first, 1 for the others; definition level 2); a null
// row, or an empty mask, is null (0, 0).
func (e *Encoder) setData(s *Pages, spec *colSpec) colData {
	rows := s.N
	q, r, v := e.sdef[:0], e.srep[:0], e.svals[:0]
	masks, def := s.i32[spec.slot][:rows], s.def[spec.def][:rows]
	for i := 0; i < len(def); i++ {
		if n := nullRows(def[i:]); n > 0 {
			q, r = appendZeros(q, n), appendZeros(r, n)
			i += n - 1
			continue
		}
		m := uint32(masks[i])
		if def[i] == 0 || m == 0 {
			q, r = append(q, 0), append(r, 0)
			continue
		}
		var rep uint8
		for b := int32(0); m != 0; b, m = b+1, m>>1 {
			if m&1 != 0 {
				q, r, v = append(q, 2), append(r, rep), append(v, b)
				rep = 1
			}
		}
	}
	e.sdef, e.srep, e.svals = q, r, v
	return colData{defPlane: -1, def: q, rep: r, numValues: len(r), i32: v}
}

// nullRows returns the number of levels of 0 that def starts with, in
// whole words of eight (0 if its first eight are not all 0).
func nullRows(def []uint8) int {
	n := 0
	for len(def)-n >= 8 && binary.LittleEndian.Uint64(def[n:]) == 0 {
		n += 8
	}
	return n
}

// appendZeros appends n zeros to b.
func appendZeros(b []uint8, n int) []uint8 {
	b = slices.Grow(b, n)
	clear(b[len(b) : len(b)+n])
	return b[:len(b)+n]
}

// run is a range of rows [start, end) whose level is 1.
type run struct{ start, end int32 }

// runsOf returns the runs of present rows of def plane d (some, not
// all, present) or, when they are too many and short for copying run by
// run to pay, the rows that are present, in order; computed once per
// plane and set.
func (e *Encoder) runsOf(d int, def []uint8) ([]run, []int32) {
	if !e.runsDone[d] {
		e.runsDone[d] = true
		e.runs[d], e.pos[d] = findRuns(e.runs[d][:0], e.pos[d][:0], def, e.nonNull[d]/32+1)
	}
	return e.runs[d], e.pos[d]
}

// findRuns appends to rs the runs of 1s in def, up to limit of them; past
// that, it returns no runs and the positions of the 1s, appended to pos.
// Runs are scanned eight levels at a time.
func findRuns(rs []run, pos []int32, def []uint8, limit int) ([]run, []int32) {
	const zeros, ones = 0, 0x0101010101010101
	for i := 0; i < len(def); {
		for i+8 <= len(def) && binary.LittleEndian.Uint64(def[i:]) == zeros {
			i += 8
		}
		for i < len(def) && def[i] == 0 {
			i++
		}
		j := i
		for j+8 <= len(def) && binary.LittleEndian.Uint64(def[j:]) == ones {
			j += 8
		}
		for j < len(def) && def[j] != 0 {
			j++
		}
		if j > i {
			if len(rs) == limit {
				return rs[:0], presentRows(pos, def)
			}
			rs = append(rs, run{int32(i), int32(j)})
		}
		i = j
	}
	return rs, pos[:0]
}

// presentRows appends to pos[:0] the rows whose level is 1.
func presentRows(pos []int32, def []uint8) []int32 {
	pos = slices.Grow(pos[:0], len(def))[:len(def)]
	k := 0
	for i, x := range def {
		pos[k] = int32(i) // kept if present: no branch
		k += int(x)
	}
	return pos[:k]
}

// compact moves the values of the present rows to the front of v and
// returns them, n of them: run by run (runs), else by their positions
// (pos).
func compact[T any](v []T, n int, runs []run, pos []int32) []T {
	switch {
	case n == len(v):
		return v
	case n == 0:
		return v[:0]
	}
	if len(runs) > 0 {
		k := 0
		for _, r := range runs {
			k += copy(v[k:], v[r.start:r.end])
		}
		return v[:n]
	}
	// pos[k] >= k: each value moves down, after the ones it could overwrite.
	for k, p := range pos[:n] {
		v[k] = v[p]
	}
	return v[:n]
}

// countOnes returns the number of 1s in levels that are 0 or 1.
func countOnes(d []uint8) int {
	n := 0
	for len(d) >= 32 {
		// Four words summed lane by lane (at most 4 a byte: no carry),
		// then the lanes (at most 32) summed into the top byte.
		x := binary.LittleEndian.Uint64(d[0:8]) + binary.LittleEndian.Uint64(d[8:16]) +
			binary.LittleEndian.Uint64(d[16:24]) + binary.LittleEndian.Uint64(d[24:32])
		n += int((x * 0x0101010101010101) >> 56)
		d = d[32:]
	}
	for len(d) >= 8 {
		// The sum of the eight bytes (at most 8) ends in the top byte.
		n += int((binary.LittleEndian.Uint64(d) * 0x0101010101010101) >> 56)
		d = d[8:]
	}
	for _, x := range d {
		n += int(x)
	}
	return n
}
