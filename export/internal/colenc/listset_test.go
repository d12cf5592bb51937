package colenc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestListSetLevels checks listData's and setData's levels and values
// against building them row by row, for null rows in runs shorter and
// longer than the eight levels nullRows skips at a time, across word
// boundaries, at the page's end, and none.
func TestListSetLevels(t *testing.T) {
	const list = 3
	r := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name    string
		rows    int
		present func(i int) bool
	}{
		{"all null", 100, func(int) bool { return false }},
		{"all present", 37, func(int) bool { return true }},
		{"one in nine", 1000, func(i int) bool { return i%9 == 4 }},
		{"runs of 20", 203, func(i int) bool { return i/20%2 == 1 }},
		{"last row", 64, func(i int) bool { return i == 63 }},
		{"first row, short page", 7, func(i int) bool { return i == 0 }},
		{"random sparse", 5000, func(int) bool { return r.IntN(40) == 0 }},
		{"random dense", 500, func(int) bool { return r.IntN(2) == 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := make([]uint8, tt.rows)
			masks := make([]int32, tt.rows)
			var list32 []int32
			var wq, wr []uint8
			var wv []int32
			var sq, sr []uint8
			var sv []int32
			for i := range def {
				masks[i] = int32(r.Uint32() & 0x1f5)
				if !tt.present(i) {
					wq, wr, sq, sr = append(wq, 0), append(wr, 0), append(sq, 0), append(sr, 0)
					continue
				}
				def[i] = 1
				for j := range list {
					x := int32(r.IntN(1000))
					list32 = append(list32, x)
					wq, wr, wv = append(wq, 2), append(wr, min(uint8(j), 1)), append(wv, x)
				}
				m := uint32(masks[i])
				if m == 0 {
					sq, sr = append(sq, 0), append(sr, 0)
				}
				var rep uint8
				for b := int32(0); b < 32; b++ {
					if m>>b&1 != 0 {
						sq, sr, sv = append(sq, 2), append(sr, rep), append(sv, b)
						rep = 1
					}
				}
			}
			e := &Encoder{nonNull: []int{countOnes(def)}}
			s := &Pages{N: tt.rows, List: list32, i32: [][]int32{masks}, def: [][]uint8{def}}
			got := e.listData(s, &colSpec{list: list, def: 0})
			if !slices.Equal(got.def, wq) || !slices.Equal(got.rep, wr) || !slices.Equal(got.i32, wv) || got.numValues != len(wr) {
				t.Errorf("listData: def %v rep %v values %v (%d), want %v %v %v", got.def, got.rep, got.i32, got.numValues, wq, wr, wv)
			}
			got = e.setData(s, &colSpec{set: true, def: 0, slot: 0})
			if !slices.Equal(got.def, sq) || !slices.Equal(got.rep, sr) || !slices.Equal(got.i32, sv) || got.numValues != len(sr) {
				t.Errorf("setData: def %v rep %v values %v (%d), want %v %v %v", got.def, got.rep, got.i32, got.numValues, sq, sr, sv)
			}
		})
	}
}
