package colenc

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// TestColumnHelpers checks the worker's helpers against plain loops:
// boolean packing, level counting, compaction of null rows (run by run and
// row by row), integer min/max and the string min/max of a growing
// dictionary's indexes.
func TestColumnHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		n       int
		present float64 // probability of a level 1
	}{
		{"empty", 0, 0.5},
		{"one", 1, 1},
		{"odd", 13, 0.5},
		{"all present", 1000, 1},
		{"none present", 1000, 0},
		{"rare nulls", 5000, 0.999},
		{"mixed", 5000, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := make([]uint8, tc.n)
			vals := make([]int32, tc.n)
			var want []int32
			var bools []byte
			for i := range def {
				vals[i] = int32(rng.Uint32())
				if rng.Float64() < tc.present {
					def[i] = 1
					want = append(want, vals[i])
				}
				bools = append(bools, byte(rng.IntN(2)))
			}
			// packBools
			var wantPacked []byte
			for i := 0; i < len(bools); i += 8 {
				var x byte
				for j := i; j < min(i+8, len(bools)); j++ {
					x |= bools[j] << (j - i)
				}
				wantPacked = append(wantPacked, x)
			}
			if got := packBools(nil, bools); !bytes.Equal(got, wantPacked) {
				t.Errorf("packBools = %x, want %x", got, wantPacked)
			}
			// countOnes
			n := countOnes(def)
			if n != len(want) {
				t.Fatalf("countOnes = %d, want %d", n, len(want))
			}
			// findRuns, presentRows and compact, both ways
			runs, _ := findRuns(nil, nil, def, len(def)+1)
			pos := presentRows(nil, def)
			var fromRuns []int32
			for _, r := range runs {
				for i := r.start; i < r.end; i++ {
					fromRuns = append(fromRuns, i)
				}
			}
			if len(pos) != n || !slices.Equal(fromRuns, pos) {
				t.Fatalf("findRuns %v / presentRows %v do not match the levels", runs, pos)
			}
			if few, many := findRuns(nil, nil, def, 1); len(runs) > 1 && (len(few) > 0 || !slices.Equal(many, pos)) {
				t.Errorf("findRuns past its limit = %v, %v", few, many)
			}
			for _, way := range []struct {
				runs []run
				pos  []int32
			}{{runs, nil}, {nil, pos}} {
				v := compact(slices.Clone(vals), n, way.runs, way.pos)
				if !slices.Equal(v, want) {
					t.Errorf("compact (runs %v) = %v, want %v", way.runs != nil, v, want)
				}
			}
			if len(want) == 0 {
				return
			}
			// minMax32, signed and unsigned
			lo, hi := minMax32(want, false)
			if lo != slices.Min(want) || hi != slices.Max(want) {
				t.Errorf("minMax32 signed = %d, %d", lo, hi)
			}
			u := make([]uint32, len(want))
			for i, x := range want {
				u[i] = uint32(x)
			}
			lo, hi = minMax32(want, true)
			if uint32(lo) != slices.Min(u) || uint32(hi) != slices.Max(u) {
				t.Errorf("minMax32 unsigned = %d, %d", uint32(lo), uint32(hi))
			}
			w64 := make([]int64, len(want))
			for i, x := range want {
				w64[i] = int64(x) << 20
			}
			l64, h64 := minMax64(w64, false)
			if l64 != slices.Min(w64) || h64 != slices.Max(w64) {
				t.Errorf("minMax64 = %d, %d", l64, h64)
			}
			// dictMinMax over a dictionary that grows page after page: by
			// a few entries (ranked), or by as many as the page has
			// values (compared directly, ranked with the next page).
			var st chunkState
			var dict []string
			for page := range 5 {
				grow := 1 + rng.IntN(50)
				if page%2 == 1 {
					grow = len(want) + rng.IntN(50)
				}
				for range grow {
					dict = append(dict, strconv.Itoa(rng.IntN(1_000_000)))
				}
				idx := make([]int32, len(want))
				for i := range idx {
					idx[i] = int32(rng.IntN(len(dict)))
				}
				var wlo, whi string
				for i, x := range idx {
					if s := dict[x]; i == 0 || s < wlo {
						wlo = s
					}
					if s := dict[x]; i == 0 || s > whi {
						whi = s
					}
				}
				glo, ghi, err := dictMinMax(&st, idx, dict)
				if err != nil || glo != wlo || ghi != whi {
					t.Errorf("page %d: dictMinMax = %q, %q, %v; want %q, %q", page, glo, ghi, err, wlo, whi)
				}
			}
			if _, _, err := dictMinMax(&st, []int32{0, int32(len(dict))}, dict); err == nil {
				t.Error("dictMinMax: no error for an index out of range")
			}
		})
	}
}

// The page codec's encoder keeps a history of a page, not zstd's default
// 8 MiB window at this level (a 16 MiB buffer per export), and its pages
// decompress with parquet-go's codec.
func TestPageZstdMemory(t *testing.T) {
	c, err := newPageZstd()
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 128<<10) // a data page's worth
	for i := range src {
		src[i] = byte(i % 251)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	dst, err := c.Encode(nil, src)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 4<<20 {
		t.Errorf("encoding a page allocated %d bytes", got)
	}
	out, err := c.Decode(nil, dst)
	if err != nil || !bytes.Equal(out, src) {
		t.Errorf("round trip: %v", err)
	}
}
