package flows

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
)

// A clean interleaved stream of requests over several QPs loses k random
// packets. Every maximal run of dropped PSNs of one QP that has a received
// packet before and after it must show as exactly one psn_gap at the next
// received packet, with missing = run length; nothing else may show.
func TestPropertyRandomDrops(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 42, 1234, 99999} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
			const qps, perQP = 5, 300
			starts := make([]uint32, qps)
			for i := range starts {
				starts[i] = rng.Uint32N(PSNModulus)
			}
			starts[0] = PSNModulus - 100 // one QP wraps
			type sent struct {
				qp  int
				psn uint32
				ts  int64
			}
			var all []sent
			for k := range perQP {
				for i := range qps {
					all = append(all, sent{i, (starts[i] + uint32(k)) & psnMask, int64(len(all)) * 100})
				}
			}
			k := 1 + rng.IntN(60)
			dropped := map[int]bool{}
			for len(dropped) < k {
				dropped[rng.IntN(len(all))] = true
			}
			// Expected gaps, worked out per QP from the surviving sequence.
			var want []ev
			tb := NewTable(Config{})
			lastKept := make([]int, qps) // index in the QP's sequence of the last kept packet, -1 none
			for i := range lastKept {
				lastKept[i] = -1
			}
			for idx, s := range all {
				seqNo := idx / qps
				if dropped[idx] {
					continue
				}
				if lk := lastKept[s.qp]; lk >= 0 && seqNo-lk > 1 {
					want = append(want, ev{Kind: "psn_gap", Ts: s.ts,
						Flow:     fmt.Sprintf("10.0.0.1>10.0.0.2:qp0x%06x", 0x100+s.qp),
						Expected: (starts[s.qp] + uint32(lk+1)) & psnMask, PSN: s.psn,
						N: int64(seqNo - lk - 1), Extra: -1})
				}
				lastKept[s.qp] = seqNo
				tb.Observe(wr(s.ts, 0x100+uint32(s.qp), s.psn))
			}
			tb.Finish()
			slices.SortStableFunc(want, func(a, b ev) int { return int(a.Ts - b.Ts) })
			checkEvents(t, tb, want)
		})
	}
}

// Observe does not allocate for a steady stream on known, paired flows:
// requests with ACKs, a READ with its responses, CE marks, PFC frames that
// re-arm an existing episode.
func TestObserveNoAllocs(t *testing.T) {
	tb := NewTable(Config{PMTU: 1024})
	psn := uint32(0)
	ts := int64(0)
	w := wr(0, 0x11, 0)
	a := ack(0, 0x22, 0)
	rd := read(0, 0x11, 0, 2048)
	r1 := resp(0, 0x22, decode.OpReadResponseFirst, 0, 1024)
	r2 := resp(0, 0x22, decode.OpReadResponseLast, 0, 1024)
	c := ce(wr(0, 0x11, 0))
	pf := pfcFrame(0, macA, 1<<3, q3(65535))
	step := func() {
		for _, p := range []*decode.Packet{w, c} {
			ts += 10
			p.TsNs, p.BTH.PSN = ts, psn
			tb.Observe(p)
			psn = (psn + 1) & psnMask
		}
		ts += 10
		a.TsNs, a.BTH.PSN = ts, (psn-1)&psnMask
		tb.Observe(a)
		ts += 10
		rd.TsNs, rd.BTH.PSN = ts, psn
		tb.Observe(rd)
		r1.TsNs, r1.BTH.PSN = ts+1, psn
		tb.Observe(r1)
		r2.TsNs, r2.BTH.PSN = ts+2, (psn+1)&psnMask
		tb.Observe(r2)
		psn = (psn + 2) & psnMask
		pf.TsNs = ts
		tb.Observe(pf)
	}
	for range 100 {
		step() // warm up: flows, PFC key, pairing
	}
	if n := len(tb.Events()); n != 0 {
		t.Fatalf("warm-up produced %d events: %+v", n, compact(tb))
	}
	if allocs := testing.AllocsPerRun(1000, step); allocs != 0 {
		t.Errorf("Observe allocates %.1f times per step", allocs)
	}
	if n := len(tb.Events()); n != 0 {
		t.Errorf("steady stream produced %d events", n)
	}
}

func BenchmarkObserve(b *testing.B) {
	tb := NewTable(Config{})
	ps := make([]*decode.Packet, 64)
	for i := range ps {
		ps[i] = wr(0, 0x100+uint32(i%16), 0)
	}
	psn := make([]uint32, 16)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := ps[i%64]
		q := i % 16
		p.TsNs = int64(i)
		p.BTH.DestQP = 0x100 + uint32(q)
		p.BTH.PSN = psn[q]
		psn[q] = (psn[q] + 1) & psnMask
		tb.Observe(p)
	}
}
