package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// eventsOf returns the report's events of one kind, each without "kind".
func eventsOf(m map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, e := range m["events"].([]any) {
		ev := e.(map[string]any)
		if ev["kind"] == kind {
			delete(ev, "kind")
			out = append(out, ev)
		}
	}
	return out
}

// jsonNorm round-trips v through JSON so numbers compare as float64.
func jsonNorm(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// T0 is the scenarios' first timestamp (synth: 2026-01-02 03:04:05 UTC).
const T0 = int64(1767323045_000000000)

// TestScenariosWorkedByHand checks the demo scenarios' events against
// values worked out from how internal/synth/scenarios.go builds them.
func TestScenariosWorkedByHand(t *testing.T) {
	const ab, ba = "10.0.0.1>10.0.0.2:qp0x000022", "10.0.0.2>10.0.0.1:qp0x000011"
	tests := []struct {
		name string
		c    *synth.Capture
		kind string
		want []map[string]any
	}{
		// LossNAKReplay: PSNs 1000-1002 at T0+0..2 µs, 1003 lost (slot +3 µs),
		// 1004 at +4 µs: a gap expecting 1003, one PSN missing.
		{"loss gap", synth.LossNAKReplay(), "psn_gap", []map[string]any{
			{"ts_ns": T0 + 4_000, "flow": ab, "expected_psn": 1003, "psn": 1004, "missing": 1}}},
		// B NAKs PSN 1003 500 ns after seeing 1004; its flow carries it and
		// the target is A's request flow.
		{"loss nak", synth.LossNAKReplay(), "nak", []map[string]any{
			{"ts_ns": T0 + 4_500, "flow": ba, "psn": 1003, "code": 0, "name": "PSN_SEQUENCE_ERROR", "target_flow": ab}}},
		// The first pass ends at +8 µs (8 slots); +20 µs later, at +28 µs, A
		// replays 1003..1007: 5 packets up to the high-water mark 1007;
		// after_nak = 28 000 - 4 500 = 23 500 ns; idle = 28 000 - 7 000
		// (1007, the latest request before) = 21 000 ns; 1003 was lost, so
		// the capture never saw it before: since_original null.
		{"loss replay", synth.LossNAKReplay(), "retransmission", []map[string]any{
			{"ts_ns": T0 + 28_000, "flow": ab, "psn": 1003, "packets": 5, "after_nak_ns": 23_500,
				"idle_ns": 21_000, "since_original_ns": nil}}},
		// CongestionCNP: message 1 starts at T0+100 µs CE-marked, CNP 12 µs
		// later; message 2 at T0+200 µs, CNP 40 µs later. Message 4 of QP
		// 0x200 is CE-marked and never answered (no event, a finding).
		// Rates: messages are 4 packets; CNP 1 follows 8 requests (null) and
		// CNP 2 cuts its after-window; CNP 2 follows 12 and 12 follow it: null.
		{"cnp latency", synth.CongestionCNP(), "cnp", []map[string]any{
			{"ts_ns": T0 + 112_000, "flow": "10.0.0.2>10.0.0.1:qp0x000100", "target_flow": "10.0.0.1>10.0.0.2:qp0x000101", "ecn_to_cnp_ns": 12_000,
				"rate_before_bps": nil, "rate_after_bps": nil},
			{"ts_ns": T0 + 240_000, "flow": "10.0.0.2>10.0.0.1:qp0x000100", "target_flow": "10.0.0.1>10.0.0.2:qp0x000101", "ecn_to_cnp_ns": 40_000,
				"rate_before_bps": nil, "rate_after_bps": nil}}},
		// PFCPauseStorm: five 1 ms message slots, so the short pause arms at
		// T0+5 ms (1000 quanta = 5.12 µs at 100G) and XON ends it after
		// 2 µs; the storm starts 5 ms later, 501 frames 300 µs apart re-arm
		// it (the last at +150 ms, so it would run to +150.335544 ms) and
		// the XON at +150.1 ms ends it: 150 100 000 ns, 502 frames.
		{"pfc episodes", synth.PFCPauseStorm(), "pause", []map[string]any{
			{"ts_ns": T0 + 5_000_000, "flow": nil, "src_mac": "02:5a:00:00:00:01", "priority": 3, "end_ns": T0 + 5_002_000, "duration_ns": 2_000, "frames": 2},
			{"ts_ns": T0 + 10_000_000, "flow": nil, "src_mac": "02:5a:00:00:00:01", "priority": 3, "end_ns": T0 + 160_100_000, "duration_ns": 150_100_000, "frames": 502}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := reportJSON(t, writeCapture(t, tc.c, synth.PcapNanos))
			got := jsonNorm(t, eventsOf(m, tc.kind))
			want := jsonNorm(t, tc.want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s events:\n got %v\nwant %v", tc.kind, got, want)
			}
		})
	}
	// cnp_latency over {12 µs, 40 µs}: nearest rank p50 = ceil(0.5*2) = 1st
	// = 12 µs, p99 = ceil(0.99*2) = 2nd = 40 µs.
	m := reportJSON(t, writeCapture(t, synth.CongestionCNP(), synth.PcapNanos))
	want := map[string]any{"count": 2.0, "min_ns": 12000.0, "p50_ns": 12000.0, "p99_ns": 40000.0, "max_ns": 40000.0}
	if got := m["cnp_latency"]; !reflect.DeepEqual(got, want) {
		t.Errorf("cnp_latency %v, want %v", got, want)
	}
	// PFC entry: 501 storm frames + its XON + 2 short-pause frames = 504,
	// 2 of them XON; paused 2 000 + 150 100 000 ns.
	m = reportJSON(t, writeCapture(t, synth.PFCPauseStorm(), synth.Pcapng))
	wantPFC := []any{map[string]any{"src_mac": "02:5a:00:00:00:01", "priority": 3.0, "frames": 504.0, "xon_frames": 2.0,
		"episodes": 2.0, "paused_ns": 150_102_000.0, "longest_ns": 150_100_000.0}}
	if got := m["pfc"]; !reflect.DeepEqual(got, wantPFC) {
		t.Errorf("pfc %v, want %v", got, wantPFC)
	}
}
