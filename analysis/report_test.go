package analysis

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/internal/golden"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

func TestNearestRank(t *testing.T) {
	seq := func(n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(n - i) // descending: summarize must sort
		}
		return v
	}
	tests := []struct {
		name string
		v    []int64
		want LatencySummary
	}{
		{"none", nil, LatencySummary{}},
		{"one", []int64{7}, LatencySummary{1, 7, 7, 7, 7}},
		// n=3: p50 rank ceil(1.5) = 2 -> 300; p99 rank ceil(2.97) = 3 -> 500
		{"three", []int64{500, 300, 100}, LatencySummary{3, 100, 300, 500, 500}},
		// n=10 (1..10): p50 rank ceil(5) = 5 -> 5; p99 rank ceil(9.9) = 10 -> 10
		{"ten", seq(10), LatencySummary{10, 1, 5, 10, 10}},
		// n=100: p50 rank 50 -> 50; p99 rank 99 -> 99
		{"hundred", seq(100), LatencySummary{100, 1, 50, 99, 100}},
		// n=201: p50 rank ceil(100.5) = 101; p99 rank ceil(198.99) = 199
		{"201", seq(201), LatencySummary{201, 1, 101, 199, 201}},
		// n=4 (1..4): p50 rank 2 -> 2 (nearest rank, no interpolation)
		{"four", seq(4), LatencySummary{4, 1, 2, 4, 4}},
	}
	for _, tt := range tests {
		if got := summarize(tt.v); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestCounter(t *testing.T) {
	truncRoCE := wr(10, 0x11, 1)
	truncRoCE.CapLen, truncRoCE.Truncated, truncRoCE.ICRCStatus = 64, true, decode.ICRCUnchecked
	badICRC := wr(20, 0x11, 2)
	badICRC.ICRCStatus = decode.ICRCBad
	cutInBTH := &decode.Packet{TsNs: t0 + 30, Kind: decode.KindOther, Len: 130, CapLen: 50, Truncated: true}
	malformed := &decode.Packet{TsNs: t0 + 5, Kind: decode.KindOther, Len: 60, CapLen: 60, Malformed: true}
	other := &decode.Packet{TsNs: t0 + 40, Kind: decode.KindOther, Len: 60, CapLen: 60}
	// Malformed frames with a BTH (whole, and cut by the snaplen too) and
	// MAC Control frames marked malformed count in malformed only.
	badRoCE := wr(80, 0x11, 3)
	badRoCE.Malformed, badRoCE.ICRCStatus = true, decode.ICRCMalformed
	badCutRoCE := wr(81, 0x11, 4)
	badCutRoCE.Malformed, badCutRoCE.ICRCStatus, badCutRoCE.CapLen, badCutRoCE.Truncated = true, decode.ICRCMalformed, 64, true
	badCNP := cnp(82, 0x22)
	badCNP.Malformed, badCNP.ICRCStatus = true, decode.ICRCMalformed
	badPFC, badPause := pfcFrame(83, macA, 3, 1), pauseFrame(84, macB, 1)
	badPFC.Malformed, badPause.Malformed = true, true
	var c Counter
	for _, p := range []*decode.Packet{wr(0, 0x11, 0), truncRoCE, badICRC, cutInBTH, malformed, other,
		cnp(50, 0x22), pfcFrame(60, macA, 3, 1), pauseFrame(70, macB, 1), badRoCE, badCutRoCE, badCNP, badPFC, badPause} {
		c.Observe(p)
	}
	// 14 frames: RoCE = 3 writes + 1 CNP = 4 (the malformed ones are not
	// RoCE, PFC or PAUSE); truncated = truncRoCE + cutInBTH + badCutRoCE = 3;
	// malformed = 1 + 5; icrc_unchecked counts RoCE frames only (truncRoCE),
	// not the malformed ones; timestamps 0..84 (malformed at 5 is not first).
	want := CaptureSummary{Files: []string{"a.pcap"}, Packets: 14, RoCEPackets: 4, CNPPackets: 1, PFCFrames: 1, PauseFrames: 1,
		Truncated: 3, Malformed: 6, ICRCBad: 1, ICRCUnchecked: 1, FirstTsNs: t0, LastTsNs: t0 + 84}
	got := c.Summary([]string{"a.pcap"})
	if !slices.Equal(got.Files, want.Files) {
		t.Errorf("files %v", got.Files)
	}
	got.Files, want.Files = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { c.Observe(badICRC) }); n != 0 {
		t.Errorf("Counter.Observe allocates %.1f", n)
	}
}

// The CE/CNP scenario of the flows tests, through the report: latencies
// 500, 300, null, 100 -> cnp_latency count 3, min 100, p50 (rank 2) 300,
// p99 (rank 3) 500, max 500.
func TestCNPLatencyReport(t *testing.T) {
	r := build(t, flows.Config{}, Options{},
		wr(1000, 0x11, 0), ack(1050, 0x22, 0),
		ce(wr(2000, 0x11, 1)), ce(wr(2100, 0x11, 2)), ce(wr(2200, 0x11, 3)),
		cnp(2500, 0x22),
		ce(wr(3000, 0x11, 4)),
		cnp(3300, 0x22),
		cnp(3400, 0x22),
		ce(wr(4000, 0x11, 5)), ce(wr(4050, 0x11, 6)),
		cnp(4100, 0x22),
	)
	if want := (LatencySummary{3, 100, 300, 500, 500}); r.CNPLatency != want {
		t.Errorf("cnp_latency %+v, want %+v", r.CNPLatency, want)
	}
	var lat []any
	for _, e := range r.Events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, m["ecn_to_cnp_ns"])
		if m["target_flow"] != "10.0.0.1>10.0.0.2:qp0x000011" {
			t.Errorf("target_flow %v", m["target_flow"])
		}
	}
	if want := []any{500.0, 300.0, nil, 100.0}; !slices.Equal(lat, want) {
		t.Errorf("latencies %v, want %v", lat, want)
	}
	// One CNP (3400) came with no CE since the previous one.
	if c := codes(r); c[CodeCNPWithoutCE] != 1 || c[CodeCEWithoutCNP] != 0 {
		t.Errorf("findings %v", r.Findings)
	}
}

// Every NAK code gets its name; RNR timer 14 is 1,280,000 ns.
func TestNAKNamesJSON(t *testing.T) {
	ps := []*decode.Packet{wr(0, 0x11, 0), wr(10, 0x11, 1), wr(20, 0x11, 2), rnr(30, 0x22, 1, 14)}
	for c := range uint8(6) {
		ps = append(ps, nak(100+int64(c), 0x22, 2, c))
	}
	r := build(t, flows.Config{}, Options{}, ps...)
	var got []string
	for _, e := range r.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	tgt := `"target_flow":"10.0.0.1>10.0.0.2:qp0x000011"}`
	fl := `"flow":"10.0.0.2>10.0.0.1:qp0x000022"`
	want := []string{
		`{"kind":"rnr_nak","ts_ns":1704067200000000030,` + fl + `,"psn":1,"timer":14,"timer_ns":1280000,` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000100,` + fl + `,"psn":2,"code":0,"name":"PSN_SEQUENCE_ERROR",` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000101,` + fl + `,"psn":2,"code":1,"name":"INVALID_REQUEST",` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000102,` + fl + `,"psn":2,"code":2,"name":"REMOTE_ACCESS_ERROR",` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000103,` + fl + `,"psn":2,"code":3,"name":"REMOTE_OPERATIONAL_ERROR",` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000104,` + fl + `,"psn":2,"code":4,"name":"INVALID_RD_REQUEST",` + tgt,
		`{"kind":"nak","ts_ns":1704067200000000105,` + fl + `,"psn":2,"code":5,"name":"RESERVED_5",` + tgt,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", join(got), join(want))
	}
}

func join(s []string) string {
	var b bytes.Buffer
	for _, x := range s {
		b.WriteString(x + "\n")
	}
	return b.String()
}

// goldenScenario: one capture with most of what the report shows.
//
//	QP A->B 0x11 / B->A 0x22 (RC, PCP 3, DSCP 26, PFC on priority 3):
//	  PSN 0..3, 5 (4 lost: gap), NAK PSN 4 at +1650, replay 4,5 from +2000
//	  (after_nak_ns = 350), CE at +3000, CNP at +3200 (200 ns), a replay of 6
//	  at +9000 without NAK (timeout).
//	UD A->B qp 1 from source QPs 0x55 and 0x66.
//	PFC from macA priority 3 at 100 Gb/s: 1000 quanta at +0 (5120 ns) and
//	re-armed at +4000 -> one episode 0..9120; 802.3x PAUSE from macB.
func goldenScenario() []*decode.Packet {
	return []*decode.Packet{
		pfcFrame(0, macA, 3, 1000),
		wr(1000, 0x11, 0), wr(1100, 0x11, 1), wr(1200, 0x11, 2), wr(1300, 0x11, 3),
		wr(1500, 0x11, 5),
		nak(1650, 0x22, 4, decode.NAKCodePSNSequenceError),
		wr(2000, 0x11, 4), wr(2100, 0x11, 5), wr(2200, 0x11, 6),
		ack(2400, 0x22, 6),
		ce(wr(3000, 0x11, 7)),
		cnp(3200, 0x22),
		pfcFrame(4000, macA, 3, 1000),
		ud(5000, 0x55, 10), ud(5100, 0x66, 20),
		pauseFrame(6000, macB, 100),
		wr(9000, 0x11, 6), wr(9100, 0x11, 8),
		ack(9200, 0x22, 8),
	}
}

func TestGoldenJSON(t *testing.T) {
	r := build(t, flows.Config{LinkSpeedBps: 100e9}, Options{}, goldenScenario()...)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r, true); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	checkGolden(t, "report.json.golden", got)
	// json.Marshal gives the same document, modulo HTML escaping of '>'.
	plain, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.ReplaceAll(bytes.TrimSpace(got), []byte(">"), []byte(`\u003e`)); !bytes.Equal(plain, want) {
		t.Errorf("json.Marshal differs from WriteJSON:\n%s", plain)
	}

	// Structural checks the golden file cannot forget.
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	for _, e := range m["events"].([]any) {
		ev := e.(map[string]any)
		for _, k := range []string{"kind", "ts_ns", "flow"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("event %v lacks %q", ev, k)
			}
		}
	}
	fl := r.Flows[0]
	// A->B:0x11: writes at +1000,1100,1200,1300,1500,2000,2100,2200,3000,
	// 9000,9100 = 11 frames x 130 B = 1430 B; one gap (PSN 4); replayed
	// 4,5 (+2000, +2100) and 6 (+9000) = 3 packets.
	if fl.Packets != 11 || fl.Bytes != 11*130 || fl.PSNGaps != 1 || fl.MissingPSNs != 1 || fl.Retransmitted != 3 {
		t.Errorf("flow 0 %+v", fl)
	}
}

func TestGoldenText(t *testing.T) {
	r := build(t, flows.Config{LinkSpeedBps: 100e9}, Options{}, goldenScenario()...)
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.txt.golden", b.Bytes())
	var c bytes.Buffer
	if err := WriteText(&c, r, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(c.Bytes(), []byte(ansiRed)) {
		t.Errorf("color output has no red")
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// A Severity marshals as its bare string, as the untyped constants did.
func TestSeverityJSON(t *testing.T) {
	for sev, want := range map[Severity]string{SeverityError: "error", SeverityWarning: "warning", SeverityInfo: "info"} {
		b, err := json.Marshal(Finding{Severity: sev, Code: CodeNAK})
		if err != nil {
			t.Fatal(err)
		}
		if w := `{"severity":"` + want + `","code":"nak","message":"","flow":null,"timeout_k":null,"idle_ns":null}`; string(b) != w {
			t.Errorf("%q: got %s, want %s", sev, b, w)
		}
	}
}

// countRef is Counter.Observe as the contract's Counting rules read, one
// counter at a time (Counter counts by class and adds up in Summary).
func countRef(s *CaptureSummary, p *decode.Packet) {
	if s.Packets == 0 || p.TsNs < s.FirstTsNs {
		s.FirstTsNs = p.TsNs
	}
	if s.Packets == 0 || p.TsNs > s.LastTsNs {
		s.LastTsNs = p.TsNs
	}
	s.Packets++
	if p.Truncated || p.CapLen < p.Len {
		s.Truncated++
	}
	if p.Malformed {
		s.Malformed++
		return
	}
	switch p.Kind {
	case decode.KindRoCE:
		s.RoCEPackets++
	case decode.KindCNP:
		s.RoCEPackets++
		s.CNPPackets++
	case decode.KindPFC:
		s.PFCFrames++
	case decode.KindPause:
		s.PauseFrames++
	}
	switch p.ICRCStatus {
	case decode.ICRCBad:
		s.ICRCBad++
	case decode.ICRCUnchecked:
		if p.IsRoCE() {
			s.ICRCUnchecked++
		}
	}
}

// Counter's classes add up to the counters of the Counting rules for every
// kind and ICRC status, the decoder's and out-of-range ones, malformed or
// not, cut or not, in any time order.
func TestCounterClasses(t *testing.T) {
	tests := []struct {
		name  string
		kinds []decode.Kind
		stats []decode.ICRCStatus
	}{
		{"decoder values", []decode.Kind{decode.KindOther, decode.KindRoCE, decode.KindCNP, decode.KindPFC, decode.KindPause},
			[]decode.ICRCStatus{decode.ICRCUnchecked, decode.ICRCOK, decode.ICRCBad, decode.ICRCMalformed}},
		{"out of range", []decode.Kind{decode.KindRoCE, 5, 7, 8, 200}, []decode.ICRCStatus{decode.ICRCBad, decode.ICRCUnchecked, 4, 9}},
		{"none", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Counter
			var want CaptureSummary
			ts := int64(1000)
			for i, k := range tc.kinds {
				for j, st := range tc.stats {
					for v := range 4 {
						ts += int64((i*7+j*3+v)%5) - 2 // back and forth in time
						p := &decode.Packet{TsNs: ts, Kind: k, ICRCStatus: st, Len: 100, CapLen: 100,
							Malformed: v&1 != 0, Truncated: v == 2}
						if v == 3 {
							p.CapLen = 64
						}
						c.Observe(p)
						countRef(&want, p)
					}
				}
			}
			got := c.Summary(nil)
			got.Files = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
