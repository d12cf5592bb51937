package flows

import "testing"

// TestRecentRingGrows checks that the recent request ring starts small,
// doubles while full up to recentRing, and that recentAt returns the same
// requests a fixed ring of recentRing entries would: the i-th most recent
// for i < min(requests, recentRing).
func TestRecentRingGrows(t *testing.T) {
	tests := []struct {
		requests int
		wantLen  int // ring entries after them (0: no ring, the first request needs none)
	}{
		{1, 0},
		{2, 4},
		{4, 4},
		{5, 8},
		{8, 8},
		{9, 16},
		{16, 16},
		{17, 32},
		{32, 32},
		{33, 32},
		{100, 32},
	}
	for _, tc := range tests {
		f := &Flow{}
		for k := range tc.requests {
			psn := PSN(1000 + k)
			if k == 0 {
				f.req.init, f.reqFirst = true, psn
			}
			f.addRecent(psn, int64(10*k), 100+k)
		}
		got := 0
		if f.cold != nil {
			got = len(f.cold.recent)
		}
		if got != tc.wantLen {
			t.Errorf("%d requests: ring of %d entries, want %d", tc.requests, got, tc.wantLen)
		}
		for i := 0; i < min(tc.requests, recentRing); i++ {
			k := tc.requests - 1 - i // the request recentAt(i) must return
			e := f.recentAt(uint32(i))
			wire := uint32(100 + k)
			if k == 0 {
				wire = 0 // the first request's length is not kept
			}
			if e.psn != PSN(1000+k) || e.ts != int64(10*k) || e.wire != wire {
				t.Errorf("%d requests: recentAt(%d) = %+v, want psn %d ts %d wire %d",
					tc.requests, i, e, 1000+k, 10*k, wire)
			}
		}
	}
}
