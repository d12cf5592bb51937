package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// paired returns a short clean exchange on A->B:0x11 / B->A:0x22.
func paired() []*decode.Packet {
	return []*decode.Packet{wr(0, 0x11, 0), wr(10, 0x11, 1), ack(20, 0x22, 1)}
}

func with(ps []*decode.Packet, more ...*decode.Packet) []*decode.Packet { return append(ps, more...) }

func mod(p *decode.Packet, f func(*decode.Packet)) *decode.Packet { f(p); return p }

func TestFindings(t *testing.T) {
	naks := func(n int, gap int64) []*decode.Packet {
		ps := paired()
		for i := range n {
			ps = append(ps, nak(100+int64(i)*gap, 0x22, 1, 0))
		}
		return ps
	}
	rnrs := func(n int, gap int64) []*decode.Packet {
		ps := paired()
		for i := range n {
			ps = append(ps, rnr(100+int64(i)*gap, 0x22, 1, 14))
		}
		return ps
	}
	// A pause refreshed every 300 µs (65535 quanta = 335.5 µs at 100G) for
	// 700 frames: one episode of 699*300 µs + 335.539 µs = 210.035 ms.
	storm := func() []*decode.Packet {
		var ps []*decode.Packet
		for i := range 700 {
			ps = append(ps, pfcFrame(int64(i)*300_000, macA, 3, 65535))
		}
		return append(ps, paired()...)
	}
	tests := []struct {
		name string
		cfg  flows.Config
		opts Options
		ps   []*decode.Packet
		want map[string]int
	}{
		{"clean", flows.Config{}, Options{}, paired(), map[string]int{}},
		{"psn gap, no PFC: warning", flows.Config{}, Options{}, with(paired(), wr(30, 0x11, 5)),
			map[string]int{CodePSNGap: 1}},
		{"psn gap on PFC priority: error", flows.Config{}, Options{},
			with(paired(), pfcFrame(25, macA, 3, 10), wr(30, 0x11, 5)), map[string]int{CodePSNGapLossless: 1}},
		{"ud gap: info", flows.Config{}, Options{}, []*decode.Packet{ud(0, 0x55, 1), ud(10, 0x55, 3)},
			map[string]int{CodeUDPSNGap: 1}},
		// 10 NAKs 50 ms apart span 450 ms <= 1 s: a storm; 9 are not.
		{"nak storm", flows.Config{}, Options{}, naks(10, 50_000_000), map[string]int{CodeNAKStorm: 1}},
		{"naks below storm", flows.Config{}, Options{}, naks(9, 50_000_000), map[string]int{CodeNAK: 1}},
		// 10 NAKs 200 ms apart: any 1 s window holds at most 6 (0, 200 ... 1000 ms).
		{"naks spread out", flows.Config{}, Options{}, naks(10, 200_000_000), map[string]int{CodeNAK: 1}},
		{"nak storm, lower threshold", flows.Config{}, Options{StormCount: 5}, naks(5, 1000), map[string]int{CodeNAKStorm: 1}},
		{"rnr storm", flows.Config{}, Options{}, rnrs(10, 1000), map[string]int{CodeRNRNAKStorm: 1}},
		{"rnr", flows.Config{}, Options{}, rnrs(1, 1000), map[string]int{CodeRNRNAK: 1}},
		{"timeout", flows.Config{}, Options{}, with(paired(), wr(1000, 0x11, 0), wr(1010, 0x11, 1), wr(1020, 0x11, 2)),
			map[string]int{CodeRetransmissionTimeout: 1}},
		{"replay after nak: no timeout", flows.Config{}, Options{},
			with(paired(), nak(500, 0x22, 0, 0), wr(1000, 0x11, 0), wr(1010, 0x11, 1), wr(1020, 0x11, 2)),
			map[string]int{CodeNAK: 1}},
		{"pause storm", flows.Config{LinkSpeedBps: 100e9}, Options{}, storm(), map[string]int{CodePauseStorm: 1}},
		{"pause storm above a higher threshold", flows.Config{LinkSpeedBps: 100e9}, Options{PauseStormNs: 300_000_000}, storm(),
			map[string]int{}},
		{"pause on a priority without RoCE", flows.Config{}, Options{}, with(paired(), pfcFrame(30, macB, 5, 100)),
			map[string]int{CodePauseWithoutRoCE: 1}},
		{"802.3x pause is not a priority", flows.Config{}, Options{}, with(paired(), pauseFrame(30, macB, 100)),
			map[string]int{}},
		{"not-ect", flows.Config{}, Options{}, with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.ECN = 0 })),
			map[string]int{CodeNotECT: 1}},
		{"not-ect on two flows: one capture-wide finding", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.ECN = 0 }),
				mod(ack(40, 0x22, 2), func(p *decode.Packet) { p.ECN = 0 })),
			map[string]int{CodeNotECT: 1}},
		{"not-ect CM MADs on QP1 are normal", flows.Config{}, Options{},
			[]*decode.Packet{mod(ud(0, 1, 1), func(p *decode.Packet) { p.ECN = 0 })}, map[string]int{}},
		{"ce never answered", flows.Config{}, Options{}, with(paired(), ce(wr(30, 0x11, 2)), ce(wr(40, 0x11, 3))),
			map[string]int{CodeCEWithoutCNP: 1}},
		{"cnp with no ce", flows.Config{}, Options{}, with(paired(), cnp(30, 0x22)), map[string]int{CodeCNPWithoutCE: 1}},
		{"cnp with unknown target", flows.Config{}, Options{}, []*decode.Packet{cnp(30, 0x22)},
			map[string]int{CodeCNPUnmatched: 1}},
		{"mixed dscp in a flow", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.DSCP = 24 })), map[string]int{CodeMixedDSCP: 1}},
		{"mixed dscp across flows", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x33, 2), func(p *decode.Packet) { p.DSCP = 24 })), map[string]int{CodeMixedDSCPFlows: 1}},
		{"mixed pcp in a flow", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.VLANCount = 0 })), map[string]int{CodeMixedPCP: 1}},
		{"mixed pcp across flows", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x33, 2), func(p *decode.Packet) { p.VLANPCP = 0 })), map[string]int{CodeMixedPCPFlows: 1}},
		{"cnp on the data priority", flows.Config{}, Options{},
			with(paired(), ce(wr(30, 0x11, 2)), mod(cnp(40, 0x22), func(p *decode.Packet) { p.VLANPCP = 3 })),
			map[string]int{CodeCNPOnDataPriority: 1, CodeCNPMarking: 1}}, // PCP 3, not 6
		{"cnp on the data dscp, untagged", flows.Config{}, Options{},
			[]*decode.Packet{
				mod(wr(0, 0x11, 0), func(p *decode.Packet) { p.VLANCount = 0; p.ECN = 3 }),
				mod(ack(5, 0x22, 0), func(p *decode.Packet) { p.VLANCount = 0 }),
				mod(cnp(40, 0x22), func(p *decode.Packet) { p.VLANCount = 0; p.DSCP = 26 }),
			},
			map[string]int{CodeCNPOnDataPriority: 1, CodeCNPMarking: 1}}, // DSCP 26, not 48
		{"payload above the configured pmtu", flows.Config{PMTU: 1024}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.PayloadLen = 2048 })),
			map[string]int{CodeOversizePayload: 1}},
		{"payload with pmtu unknown", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.PayloadLen = 2048 })),
			map[string]int{}},
		{"several source ports", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.SrcPort = 50000 })),
			map[string]int{CodeMultipleSourcePorts: 1}},
		{"bad icrc", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) { p.ICRCStatus = decode.ICRCBad })),
			map[string]int{CodeICRCBad: 1}},
		{"icrc unchecked", flows.Config{}, Options{},
			with(paired(), mod(wr(30, 0x11, 2), func(p *decode.Packet) {
				p.ICRCStatus, p.CapLen, p.Truncated = decode.ICRCUnchecked, 64, true
			})),
			map[string]int{CodeICRCUnchecked: 1}},
		{"malformed", flows.Config{}, Options{},
			with(paired(), &decode.Packet{TsNs: t0 + 50, Kind: decode.KindOther, Malformed: true}),
			map[string]int{CodeMalformed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(t, tt.cfg, tt.opts, tt.ps...)
			if got := codes(r); !maps.Equal(got, tt.want) {
				t.Errorf("codes %v, want %v", got, tt.want)
				for _, f := range r.Findings {
					t.Logf("  %s %s: %s", f.Severity, f.Code, f.Message)
				}
			}
		})
	}
}

// Findings are ordered by severity, then flow (capture-wide first), then code.
func TestFindingsOrder(t *testing.T) {
	r := build(t, flows.Config{}, Options{}, with(paired(),
		pfcFrame(5, macB, 5, 100),                                                      // warning, capture-wide
		mod(wr(30, 0x11, 5), func(p *decode.Packet) { p.ECN = 0 }),                     // gap (warning) + not-ect (warning)
		mod(wr(40, 0x11, 6), func(p *decode.Packet) { p.ICRCStatus = decode.ICRCBad }), // error
	)...)
	var got []string
	for _, f := range r.Findings {
		got = append(got, string(f.Severity)+" "+f.Code)
	}
	want := []string{"error icrc_bad", "warning pause_priority_without_roce", "warning not_ect", "warning psn_gap"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
			break
		}
	}
}

// sortFindingsRanked orders by severity, flow rank, code, and keeps the
// order of findings equal in all three (as a stable sort would): enough of
// them that the sort does not fall back to insertion sort.
func TestSortFindingsRankedStable(t *testing.T) {
	flowA, flowB := "A", "B"
	rank := map[string]int{flowA: 0, flowB: 1}
	tests := []struct {
		sev  Severity
		flow *string
		code string
	}{
		{SeverityWarning, &flowB, "psn_gap"}, {SeverityError, nil, "icrc_bad"}, {SeverityWarning, &flowA, "nak"},
		{SeverityWarning, &flowA, "psn_gap"}, {SeverityInfo, nil, "x"}, {SeverityWarning, nil, "not_ect"},
	}
	var in []Finding
	for i := range 60 {
		tc := tests[i%len(tests)]
		in = append(in, Finding{Severity: tc.sev, Code: tc.code, Flow: tc.flow, Message: fmt.Sprint(i)})
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(flowRank(rank, a.Flow), flowRank(rank, b.Flow)), cmp.Compare(a.Code, b.Code))
	})
	got := slices.Clone(in)
	sortFindingsRanked(got, func(f *string) int { return flowRank(rank, f) })
	for i := range want {
		if got[i].Message != want[i].Message {
			t.Fatalf("finding %d: %s #%s, want %s #%s", i, got[i].Code, got[i].Message, want[i].Code, want[i].Message)
		}
	}
}
