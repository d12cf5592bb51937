package flows

import (
	"net/netip"
	"reflect"
	"testing"
)

// The flow index of a table that grew one flow at a time equals the one a
// Clone builds presized, for any number of flows (Clone's tests compare
// whole tables with reflect.DeepEqual), and finds every flow.
func TestFlowIndexLayoutIndependentOfGrowth(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 500, 5000} {
		grown := newFlowIndex(0)
		var fs []*Flow
		for i := range n {
			a := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
			b := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
			f := &Flow{Key: Key{Src: a, Dst: b, DstQPN: uint32(i % 7)}, index: int32(i)}
			fs = append(fs, f)
			grown.add(f)
		}
		sized := newFlowIndex(grown.len())
		for _, f := range fs {
			sized.add(f)
		}
		if !reflect.DeepEqual(grown, sized) {
			t.Fatalf("%d flows: the grown index differs from the presized one", n)
		}
		for _, f := range fs {
			if g := grown.get(&f.Key); g != f {
				t.Fatalf("%d flows: get(%v) = %v", n, f.Key, g)
			}
		}
	}
}

// BenchmarkFlowIndexGet measures a lookup in an index of 2000 flows.
func BenchmarkFlowIndexGet(b *testing.B) {
	x := newFlowIndex(0)
	var keys []Key
	for i := range 2000 {
		k := Key{Src: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}),
			Dst: netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), DstQPN: uint32(0x1000 + i)}
		keys = append(keys, k)
		x.add(&Flow{Key: k})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if x.get(&keys[i]) == nil {
			b.Fatal("lost a flow")
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
}
