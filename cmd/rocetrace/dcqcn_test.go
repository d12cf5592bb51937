package main

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestDCQCNDemoByHand checks the rates of synth.DCQCNReaction by hand.
// WRITE Only frames of 512 payload bytes are 586 bytes on the wire (4688
// bits); a window's bytes are 15*586 = 8790 (70 320 bits).
//
// Reacting sender (QP 0x300, 25G, cut 1 µs after each CNP): gaps are
// ceil(4688e9/rate): 188 ns at 25G, 376 at 12.5G, 751 at 6.25G, 1501 at
// 3.125G; packets at 0, 188, ..., 4888, 5076, ...
//   - CNP at +5 µs: before = 4688e9/188 = 24 936 170 212; after: 5076,
//     5264, 5452, 5640, 5828 (25G), 6016 (cut at 6000), then 376 apart:
//     t16 = 6016 + 10*376 = 9776; 70 320e9/(9776-5076) = 14 961 702 127.
//   - CNP at +15 µs: before 4688e9/376 = 12 468 085 106; after: 15040,
//     15416, 15792, 16168 (cut at 16000), then 751 apart: t16 = 16168 +
//     12*751 = 25180; 70 320e9/10140 = 6 934 911 242.
//   - CNP at +30 µs: before 4688e9/751 = 6 242 343 541; after: 30437,
//     31188 (cut at 31000), then 1501 apart: t16 = 31188 + 14*1501 =
//     52202; 70 320e9/21765 = 3 230 875 258.
//
// Median ratio (2nd of 0.6, 0.556, 0.518): 6934911242/12468085106.
// Ignoring sender (QP 0x400, 10G): 469 ns gaps throughout, every rate
// 4688e9/469 = 9 995 735 607; the CNP at +30 µs has no after-rate (the
// CNP at +32 µs comes 4 packets later).
func TestDCQCNDemoByHand(t *testing.T) {
	m := reportJSON(t, writeCapture(t, synth.DCQCNReaction(), synth.PcapNanos))
	const (
		react  = "10.0.0.1>10.0.0.2:qp0x000301"
		ignore = "10.0.0.3>10.0.0.4:qp0x000401"
		q2     = int64(9_995_735_607)
	)
	type rates struct { // in event order (ts_ns: +5, +10, +15, +20, +30, +30, +32 µs)
		target        string
		before, after any
	}
	want := []rates{
		{react, 24_936_170_212.0, 14_961_702_127.0},
		{ignore, float64(q2), float64(q2)},
		{react, 12_468_085_106.0, 6_934_911_242.0},
		{ignore, float64(q2), float64(q2)},
		{react, 6_242_343_541.0, 3_230_875_258.0},
		{ignore, float64(q2), nil},
		{ignore, float64(q2), float64(q2)},
	}
	var got []rates
	for _, e := range eventsOf(m, "cnp") {
		got = append(got, rates{e["target_flow"].(string), e["rate_before_bps"], e["rate_after_bps"]})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cnp rates:\n got %v\nwant %v", got, want)
	}
	flowsByID := map[string]map[string]any{}
	for _, f := range m["flows"].([]any) {
		fm := f.(map[string]any)
		flowsByID[fm["id"].(string)] = fm
	}
	if f := flowsByID[react]; f["cc_reaction_cnps"] != 3.0 || f["cc_rate_ratio_p50"] != 6934911242.0/12468085106.0 {
		t.Errorf("reacting flow: %v %v", f["cc_reaction_cnps"], f["cc_rate_ratio_p50"])
	}
	if f := flowsByID[ignore]; f["cc_reaction_cnps"] != 3.0 || f["cc_rate_ratio_p50"] != 1.0 {
		t.Errorf("ignoring flow: %v %v", f["cc_reaction_cnps"], f["cc_rate_ratio_p50"])
	}
	codes := map[string][]any{}
	for _, f := range m["findings"].([]any) {
		fm := f.(map[string]any)
		codes[fm["code"].(string)] = append(codes[fm["code"].(string)], fm["flow"])
	}
	for code, flows := range map[string][]any{
		"cc_no_reaction":     {ignore}, // only the sender that ignores its CNPs
		"cnp_interval_short": {ignore}, // +30 and +32 µs
		"cnp_marking":        {nil},    // host 10.0.0.4's DSCP 46, once
	} {
		if !reflect.DeepEqual(codes[code], flows) {
			t.Errorf("%s findings on %v, want %v", code, codes[code], flows)
		}
	}
}

// TestExportDuckDBRates reads the DCQCN columns of the demo's export with
// DuckDB: the rates of TestDCQCNDemoByHand (rate_after_bps null once), and
// the flows' cc_reaction_cnps and cc_rate_ratio_p50 (null for the CNP
// flows).
func TestExportDuckDBRates(t *testing.T) {
	expDuckDB(t)
	dir := t.TempDir()
	pcap := filepath.Join(testenv.RepoRoot(), "pcaps", "dcqcn_reaction.pcap")
	if code, _, errOut := expRun(context.Background(), "export", "-o", dir, pcap); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	paths := export.FilePaths(dir)
	res := expDuck(t,
		"SELECT count(*), count(rate_before_bps), count(rate_after_bps), min(rate_before_bps), max(rate_before_bps), "+
			"sum(rate_after_bps) FROM '"+paths.Events+"' WHERE kind = 'cnp'",
		"SELECT id, cc_reaction_cnps, round(cc_rate_ratio_p50, 6) FROM '"+paths.Flows+"' ORDER BY id",
		"SELECT column_type FROM (DESCRIBE SELECT rate_before_bps, rate_after_bps, cc_rate_ratio_p50 FROM '"+
			paths.Events+"', '"+paths.Flows+"')",
		// docs/parquet.md's ranking query
		"SELECT id, cc_reaction_cnps, cc_rate_ratio_p50 FROM '"+paths.Flows+"'\nWHERE cc_reaction_cnps > 0 ORDER BY cc_rate_ratio_p50 DESC")
	// 7 CNPs, every before-rate known, one after-rate null; min before =
	// 6 242 343 541, max 24 936 170 212; the after-rates sum to
	// 14 961 702 127 + 6 934 911 242 + 3 230 875 258 + 3 * 9 995 735 607.
	got := fmt.Sprint(res[0][0])
	want := fmt.Sprint([]any{"7", "7", "6", "6242343541", "24936170212", strconv.FormatInt(14_961_702_127+6_934_911_242+3_230_875_258+3*9_995_735_607, 10)})
	if got != want {
		t.Errorf("cnp rates in DuckDB: %s, want %s", got, want)
	}
	// 6934911242/12468085106 = 0.5562130..., rounded to 6 places 0.556213
	wantFlows := "[[10.0.0.1>10.0.0.2:qp0x000301 3 0.556213] [10.0.0.2>10.0.0.1:qp0x000300 0 <nil>] " +
		"[10.0.0.3>10.0.0.4:qp0x000401 3 1] [10.0.0.4>10.0.0.3:qp0x000400 0 <nil>]]"
	if got := fmt.Sprint(res[1]); got != wantFlows {
		t.Errorf("flows in DuckDB: %s, want %s", got, wantFlows)
	}
	if got := fmt.Sprint(res[2]); got != "[[BIGINT] [BIGINT] [DOUBLE]]" {
		t.Errorf("DuckDB types %s", got)
	}
	if got := fmt.Sprint(res[3]); got != "[[10.0.0.3>10.0.0.4:qp0x000401 3 1] [10.0.0.1>10.0.0.2:qp0x000301 3 0.5562130177201567]]" {
		t.Errorf("ranking query: %s", got)
	}
}
