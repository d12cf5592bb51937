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
	var flows, macs, mixed []string
	for i := range 2000 {
		a, b := r.IntN(8), r.IntN(256)
		flows = append(flows, fmt.Sprintf("10.0.%d.%d>10.0.%d.%d:qp0x%06x", a, b, a, b^1, r.IntN(1<<24)))
		macs = append(macs, fmt.Sprintf("02:01:00:00:%02x:%02x", i>>8, i&255))
	}
	for _, s := range []string{"", "a", "ab", "ab\x00", "ab\x00\x00\x00\x00\x00\x00\x00", "ab\x00\x00\x00\x00\x00\x00\x01",
		"abcdef", "abcdeg", "abcde", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmno", "b", "\xff", "\xff\x00", "zzzzzzzzzzzz"} {
		mixed = append(mixed, s)
	}
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
