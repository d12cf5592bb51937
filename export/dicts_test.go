package export

import (
	"net/netip"
	"slices"
	"strconv"
	"testing"
)

// TestAddrDict: an address column's dictionary of each row group holds
// the group's addresses in first-seen order, whether a row's address is
// found from a flow's slot (kept across row groups), from another slot,
// or, past maxInterned addresses in the file, by the row group's map.
func TestAddrDict(t *testing.T) {
	a := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	type row struct {
		slot int // which slot the row's flow has
		addr netip.Addr
	}
	groups := [][]row{
		{{0, a("10.0.0.1")}, {1, a("10.0.0.2")}, {0, a("10.0.0.1")}, {2, a("10.0.0.2")}, {0, a("fd00::1")}},
		{{1, a("10.0.0.2")}, {0, a("fd00::1")}, {2, a("10.0.0.3")}, {0, a("10.0.0.1")}, {1, a("10.0.0.4")}},
		{{2, a("10.0.0.5")}, {2, a("10.0.0.3")}, {0, a("10.0.0.1")}, {0, a("10.0.0.1")}},
	}
	for _, limit := range []int{1 << 16, 3, 0} {
		t.Run("interned "+strconv.Itoa(limit), func(t *testing.T) {
			defer func(old int) { maxInterned = old }(maxInterned)
			maxInterned = limit
			d := newIPDict()
			var slots [3]addrSlot[netip.Addr]
			for g, rows := range groups {
				d.reset()
				for i := range slots {
					slots[i].idx = -1
				}
				var want []string
				for _, r := range rows {
					if !slices.Contains(want, r.addr.String()) {
						want = append(want, r.addr.String())
					}
					i := addrIndex(&d, r.addr, &slots[r.slot])
					if got := d.vals[i]; got != r.addr.String() {
						t.Fatalf("group %d: %v has index %d, which is %s", g, r.addr, i, got)
					}
				}
				if !slices.Equal(d.vals, want) {
					t.Errorf("group %d: dictionary %v, want %v", g, d.vals, want)
				}
			}
			if len(d.texts) > limit {
				t.Errorf("%d addresses interned, limit %d", len(d.texts), limit)
			}
		})
	}
}
