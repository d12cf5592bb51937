package colenc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortAdded checks that sortAdded orders a dictionary's new entries
// as their strings sort, and addToOrder the whole dictionary, for entries
// with long shared prefixes, prefixes of each other, zero bytes (which
// tie with the zero padding of a shorter string), an empty string and
// runs of equal leading bytes longer than keyBytes.
func TestSortAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var flows, macs []string
	for i := range 2000 {
		a, b := r.IntN(8), r.IntN(256)
		flows = append(flows, fmt.Sprintf("10.0.%d.%d>10.0.%d.%d:qp0x%06x", a, b, a, b^1, r.IntN(1<<24)))
		macs = append(macs, fmt.Sprintf("02:01:00:00:%02x:%02x", i>>8, i&255))
	}
	mixed := []string{"", "a", "ab", "ab\x00", "ab\x00\x00\x00\x00\x00\x00\x00", "ab\x00\x00\x00\x00\x00\x00\x01",
		"abcdef", "abcdeg", "abcde", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmno", "b", "\xff", "\xff\x00", "zzzzzzzzzzzz"}
	r.Shuffle(len(mixed), func(i, j int) { mixed[i], mixed[j] = mixed[j], mixed[i] })
	tests := []struct {
		name  string
		dict  []string
		first int
	}{
		{"flows", flows, 0},
		{"flows added to", flows, 1500},
		{"macs", macs, 0},
		{"macs reversed", reversed(macs), 0},
		{"mixed", mixed, 0},
		{"mixed added to", mixed, 7},
		{"one", []string{"x"}, 0},
		{"same first bytes", []string{"aaaaaaaaaaaaaaaaaaaa2", "aaaaaaaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaa10"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st chunkState
			st.sortAdded(tt.dict, tt.first)
			got := make([]string, len(st.added))
			for j, i := range st.added {
				got[j] = tt.dict[i]
			}
			want := slices.Clone(tt.dict[tt.first:])
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("sortAdded: got %q, want %q", got, want)
			}
			// Ranked in two steps (the first entries, then the rest),
			// the order is the whole dictionary's.
			st = chunkState{}
			st.addToOrder(tt.dict[:tt.first])
			st.addToOrder(tt.dict)
			all := slices.Clone(tt.dict)
			slices.Sort(all)
			for r, i := range st.order {
				if tt.dict[i] != all[r] || st.rank[i] != int32(r) {
					t.Fatalf("order %d: %q (rank %d), want %q", r, tt.dict[i], st.rank[i], all[r])
				}
			}
		})
	}
}

func reversed(s []string) []string {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}

// TestSeenRange checks seenRange's min, max and top against comparing the
// strings, its error for an index out of the dictionary (its marks are
// checked after the loop: an index just past the end, one that ORed with
// the others stays below seenMax, one masked onto a valid entry, a
// negative one), and that a page after an error finds its own range
// (the marks were cleared).
func TestSeenRange(t *testing.T) {
	dict := make([]string, 3000)
	for i := range dict {
		dict[i] = fmt.Sprintf("02:01:00:00:%02x:%02x", (i*7919)>>8&255, (i*7919)&255)
	}
	large := make([]string, seenMax+10) // seenRangeLarge
	for i := range large {
		large[i] = fmt.Sprintf("%08d", (i*7919)%len(large))
	}
	r := rand.New(rand.NewPCG(3, 4))
	page := func(n, below int, more ...int32) []int32 {
		v := make([]int32, n)
		for j := range v {
			v[j] = int32(r.IntN(below))
		}
		return append(v, more...)
	}
	tests := []struct {
		name string
		dict []string
		idx  []int32
		bad  bool
	}{
		{"page", dict, page(1000, len(dict)), false},
		{"few entries", dict, page(5, 40), false},
		{"last entry", dict, page(9, 10, 2999), false},
		{"one entry", dict[:1], []int32{0, 0, 0, 0, 0}, false},
		{"index = len", dict, page(10, 3000, 3000), true},
		{"index in the OR", dict[:5], []int32{1, 2, 3, 5}, true},
		{"masked onto an entry", dict, page(6, 3000, seenMax+7), true},
		{"negative", dict, page(3, 3000, -1), true},
		{"large dictionary", large, page(100, len(large), seenMax+2), false},
		{"large dictionary, index = len", large, []int32{1, int32(len(large))}, true},
	}
	var st chunkState
	rangeOf := func(idx []int32, dict []string) (string, string, int32, error) {
		st.order, st.rank = st.order[:0], st.rank[:0]
		st.addToOrder(dict)
		return st.seenRange(idx, dict)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, top, err := rangeOf(tt.idx, tt.dict)
			wlo, whi, wtop, _ := directRange(tt.idx, tt.dict)
			switch {
			case tt.bad && err == nil:
				t.Fatalf("seenRange(..., %d): no error", tt.idx[len(tt.idx)-1])
			case !tt.bad && (err != nil || lo != wlo || hi != whi || top != wtop):
				t.Fatalf("seenRange = %q, %q, %d, %v; want %q, %q, %d", lo, hi, top, err, wlo, whi, wtop)
			}
			// The next page finds its own range.
			next := []int32{1, 2}
			lo, hi, top, err = rangeOf(next, dict)
			wlo, whi, wtop, _ = directRange(next, dict)
			if err != nil || lo != wlo || hi != whi || top != wtop {
				t.Fatalf("next page: seenRange = %q, %q, %d, %v; want %q, %q, %d", lo, hi, top, err, wlo, whi, wtop)
			}
		})
	}
}
