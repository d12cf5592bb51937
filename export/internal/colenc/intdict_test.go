package colenc

import (
	"bytes"
	"math/bits"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

// TestConstIndexes checks appendConstIndexes against parquet-go's RLE
// encoder, and dictIndexes' marks (usedRange, topUsed) against loops.
func TestConstIndexes(t *testing.T) {
	for _, x := range []int32{0, 1, 2, 7, 200, 255} {
		for _, n := range []int{1, 2, 7, 8, 9, 15, 16, 17, 1000, PageRows - 1, PageRows} {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = x
			}
			enc := rle.Encoding{BitWidth: bits.Len32(uint32(x))}
			want, err := enc.EncodeInt32(nil, idx)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendConstIndexes(nil, n, x); !bytes.Equal(got, want) {
				t.Errorf("appendConstIndexes(%d, %d) = %x, want %x", n, x, got, want)
			}
		}
	}
	var st chunkState
	pages := [][]int32{
		{5, 5, 5},          // one value: no indexes, top is its index
		{5, 5, 9, 70000},   // out of the domain: falls back
		{9, 1<<16 + 5},     // out of the domain, its lookup masked to 5's: falls back
		{9, 3, 9, 3, 1, 5}, // 5 and 9 known, 3 and 1 new
		{-1},               // out of the domain
		// Known values four at a time (knownIndexes), then one by one.
		{5, 9, 3, 1, 5, 9, 3, 1, 5},
		{5, 9, 3, 1, 9, 5, 42, 3, 1, 5, 9, 3, 1, 5, 7},       // new values inside a group of four
		{5, 9, 3, 1, 1<<16 + 9, 5, 3, 1, 9},                  // masked onto 9 in a group of four
		{1, 3, 5, 9, -(1 << 16) + 5, 9, 9, 9, 1, 3, 5, 9, 1}, // negative, masked onto 5
		{1, 3, 5, 9, 1, 3, 5, 9, 1, 3, 5, 1<<20 + 3},         // in the last group, one by one
	}
	for _, v := range pages {
		n0 := len(st.ivals)
		idx, top, ok := st.dictIndexes(nil, v)
		wantOK := !slices.ContainsFunc(v, func(x int32) bool { return uint32(x) >= IntDictDomain })
		if ok != wantOK {
			t.Fatalf("dictIndexes(%v) ok = %v", v, ok)
		}
		if !ok {
			if len(st.ivals) != n0 || st.used != [IntDictMax]byte{} {
				t.Fatalf("dictIndexes(%v) failed but kept its entries or marks", v)
			}
			continue
		}
		if len(idx) == 0 {
			idx = make([]int32, len(v))
			for i := range idx {
				idx[i] = top
			}
		}
		for i, x := range v {
			if st.ivals[idx[i]] != x {
				t.Fatalf("dictIndexes(%v) = %v: index %d is %d", v, idx, i, st.ivals[idx[i]])
			}
		}
		if top != slices.Max(idx) {
			t.Errorf("dictIndexes(%v) top = %d, want %d", v, top, slices.Max(idx))
		}
		lo, hi := st.usedRange(false)
		if lo != slices.Min(v) || hi != slices.Max(v) {
			t.Errorf("usedRange after %v = %d, %d", v, lo, hi)
		}
		if st.used != [IntDictMax]byte{} {
			t.Errorf("usedRange left marks")
		}
	}
}
