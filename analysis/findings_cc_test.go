package analysis

import (
	"net/netip"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// TestMedianRatio: nearest-rank p50 is the ceil(n/2)-th smallest ratio.
func TestMedianRatio(t *testing.T) {
	tests := []struct {
		name string
		rs   []rateRatio
		want rateRatio
	}{
		{"one", []rateRatio{{1, 2}}, rateRatio{1, 2}},
		// 1/1, 1/2, 3/4 sorted: 1/2, 3/4, 1/1; ceil(3/2) = 2nd: 3/4.
		{"odd", []rateRatio{{1, 1}, {1, 2}, {3, 4}}, rateRatio{3, 4}},
		// 1.0, 0.96, 0.5, 0.9 sorted: 0.5, 0.9, 0.96, 1.0; ceil(4/2) = 2nd: 0.9.
		{"even", []rateRatio{{100, 100}, {96, 100}, {50, 100}, {9, 10}}, rateRatio{9, 10}},
		// 10^12/(10^12+1) < 1 although their floats are close: exact comparison.
		{"exact", []rateRatio{{1_000_000_000_000, 1_000_000_000_001}, {1, 1}}, rateRatio{1_000_000_000_000, 1_000_000_000_001}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := medianRatio(tc.rs); got != tc.want {
				t.Errorf("median %v, want %v", got, tc.want)
			}
		})
	}
}

// reactions returns a paired RC exchange A->B:0x11 / B->A:0x22 followed by
// n rounds of: 16 WRITEs of 1140 bytes every gapBefore ns, a CNP to 0x22
// (target A->B:0x11), 16 WRITEs every gapAfter ns. Each CNP's before-window
// is its round's first 16 WRITEs, its after-window the next 16.
// rate = 15*1140*8e9 / (15*gap) = 9120e9/gap.
func reactions(n int, gapBefore, gapAfter int64) []*decode.Packet {
	ps := paired()
	ts, psn := int64(1000), uint32(2)
	burst := func(gap int64) {
		for range 16 {
			ps = append(ps, mod(wr(ts, 0x11, psn), func(p *decode.Packet) { p.FrameLen = 1140 }))
			ts += gap
			psn++
		}
	}
	for range n {
		burst(gapBefore)
		ps = append(ps, cnp(ts, 0x22))
		ts += 10_000
		burst(gapAfter)
		ts += 10_000
	}
	return ps
}

func TestCCNoReaction(t *testing.T) {
	tests := []struct {
		name      string
		ps        []*decode.Packet
		before    int64 // rate_before_bps of every CNP
		after     int64
		wantRatio float64
		finding   bool
	}{
		// 9120e9/95 = 96e9, 9120e9/100 = 91.2e9: ratio 0.95 exactly, not above.
		{"ratio 0.95", reactions(3, 95, 100), 96_000_000_000, 91_200_000_000, 0.95, false},
		// after 9120e9/99 = 92_121_212_121.2 -> 92_121_212_121: 0.9596 > 0.95.
		{"ratio just above", reactions(3, 95, 99), 96_000_000_000, 92_121_212_121, 92_121_212_121.0 / 96e9, true},
		// halved: 9120e9/190 = 48e9, ratio 0.5: the sender reacted.
		{"halved", reactions(3, 95, 190), 96_000_000_000, 48_000_000_000, 0.5, false},
		// unchanged but only 2 CNPs: fewer than 3.
		{"two CNPs", reactions(2, 95, 95), 96_000_000_000, 96_000_000_000, 1, false},
		{"unchanged", reactions(4, 95, 95), 96_000_000_000, 96_000_000_000, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, flows.Config{}, Options{}, tc.ps...)
			n := 0
			for _, e := range r.Events {
				if e.Kind != "cnp" {
					continue
				}
				n++
				if e.RateBeforeBps == nil || *e.RateBeforeBps != tc.before || e.RateAfterBps == nil || *e.RateAfterBps != tc.after {
					t.Errorf("cnp at %d: rates %v %v, want %d %d", e.TsNs, e.RateBeforeBps, e.RateAfterBps, tc.before, tc.after)
				}
			}
			f := r.Flows[0] // A->B:0x11
			if f.CCReactionCNPs != int64(n) || f.CCRateRatioP50 == nil || *f.CCRateRatioP50 != tc.wantRatio {
				t.Errorf("flow %s: cc_reaction_cnps %d (want %d), ratio %v (want %v)", f.ID, f.CCReactionCNPs, n, f.CCRateRatioP50, tc.wantRatio)
			}
			got := 0
			for _, d := range r.Findings {
				if d.Code == CodeCCNoReaction {
					got++
					if d.Flow == nil || *d.Flow != f.ID || d.Severity != SeverityWarning {
						t.Errorf("finding %+v: want a warning on %s", d, f.ID)
					}
				}
			}
			if (got == 1) != tc.finding || got > 1 {
				t.Errorf("%d cc_no_reaction findings, want finding=%v", got, tc.finding)
			}
			if r.Flows[1].CCRateRatioP50 != nil || r.Flows[1].CCReactionCNPs != 0 {
				t.Errorf("CNP flow has a reaction: %+v", r.Flows[1])
			}
		})
	}
}

func TestCNPIntervalShort(t *testing.T) {
	cnps := func(gap int64) []*decode.Packet {
		return with(paired(), cnp(1000, 0x22), cnp(1000+gap, 0x22), cnp(1000+2*gap, 0x22))
	}
	tests := []struct {
		name string
		opts Options
		ps   []*decode.Packet
		want int // cnp_interval_short findings
	}{
		{"2 µs apart", Options{}, cnps(2000), 1},
		{"3.999 µs apart", Options{}, cnps(3999), 1},
		{"4 µs apart: not closer than 4 µs", Options{}, cnps(4000), 0},
		{"2 µs apart, --cnp-interval 2us", Options{CNPIntervalNs: 2000}, cnps(2000), 0},
		{"2 µs apart, --cnp-interval 2001ns", Options{CNPIntervalNs: 2001}, cnps(2000), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, flows.Config{}, tc.opts, tc.ps...)
			got := 0
			for _, d := range r.Findings {
				if d.Code == CodeCNPIntervalShort {
					got++
					if d.Flow == nil || *d.Flow != "10.0.0.1>10.0.0.2:qp0x000011" || d.Severity != SeverityInfo {
						t.Errorf("finding %+v: want info on the target flow", d)
					}
					t.Log(d.Message)
				}
			}
			if got != tc.want {
				t.Errorf("%d cnp_interval_short findings, want %d", got, tc.want)
			}
		})
	}
}

func TestCNPMarking(t *testing.T) {
	ipC := netip.MustParseAddr("10.0.0.3")
	dscp := func(p *decode.Packet, d uint8) *decode.Packet { p.DSCP = d; return p }
	pcp := func(p *decode.Packet, v uint8) *decode.Packet { p.VLANPCP = v; return p }
	untagged := func(p *decode.Packet) *decode.Packet { p.VLANCount = 0; return p }
	fromC := func(p *decode.Packet) *decode.Packet { p.SrcIP = ipC; return p }
	i := func(v int) *int { return &v }
	tests := []struct {
		name string
		opts Options
		ps   []*decode.Packet
		want int
	}{
		{"48 and 6", Options{}, with(paired(), cnp(100, 0x22)), 0},
		{"DSCP 46", Options{}, with(paired(), dscp(cnp(100, 0x22), 46)), 1},
		{"PCP 3", Options{}, with(paired(), pcp(cnp(100, 0x22), 3)), 1},
		{"untagged: PCP not judged", Options{}, with(paired(), untagged(cnp(100, 0x22))), 0},
		// two CNP flows of one host (QPs 0x22 and 0x44), both DSCP 46: once per host.
		{"one host, two flows", Options{}, with(paired(), dscp(cnp(100, 0x22), 46), dscp(cnp(200, 0x44), 46)), 1},
		{"two hosts", Options{}, with(paired(), dscp(cnp(100, 0x22), 46), fromC(pcp(cnp(200, 0x44), 3))), 2},
		{"DSCP 46 with --cnp-dscp 46", Options{CNPDSCP: i(46)}, with(paired(), dscp(cnp(100, 0x22), 46)), 0},
		{"PCP 3 with --cnp-pcp 3", Options{CNPPCP: i(3)}, with(paired(), pcp(cnp(100, 0x22), 3)), 0},
		{"DSCP 0 expected", Options{CNPDSCP: i(0)}, with(paired(), cnp(100, 0x22)), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, flows.Config{}, tc.opts, tc.ps...)
			got := 0
			for _, d := range r.Findings {
				if d.Code == CodeCNPMarking {
					got++
					if d.Flow != nil || d.Severity != SeverityInfo {
						t.Errorf("finding %+v: want info, capture-wide", d)
					}
					t.Log(d.Message)
				}
			}
			if got != tc.want {
				t.Errorf("%d cnp_marking findings, want %d", got, tc.want)
			}
		})
	}
}
