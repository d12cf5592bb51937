package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// writeAs writes c as name.pcap in dir.
func writeAs(t *testing.T, dir, name string, c *synth.Capture) string {
	t.Helper()
	path := filepath.Join(dir, name+".pcap")
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportPointsWorkedByHand: synth.TwoPoints, worked out from its
// construction (t0 = T0, request i at T0 + i*10 µs at up).
func TestReportPointsWorkedByHand(t *testing.T) {
	upC, downC := synth.TwoPoints()
	dir := t.TempDir()
	up, down := writeAs(t, dir, "up", upC), writeAs(t, dir, "down", downC)
	code, out, errOut := rt(t, "report", "--json", "--point", "up="+up, "--point", "down="+down)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Points   []map[string]any `json:"points"`
		Hops     []map[string]any `json:"hops"`
		Events   []map[string]any `json:"events"`
		Findings []map[string]any `json:"findings"`
		Capture  map[string]any   `json:"capture"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	const req, ack = "10.0.0.1>10.0.0.2:qp0x000022", "10.0.0.2>10.0.0.1:qp0x000011"
	// up: 7 requests (105 missed) + 7 ACKs = 14; down: 7 requests (103
	// lost) + 7 ACKs = 14.
	if len(r.Points) != 2 || r.Points[0]["name"] != "up" || r.Points[0]["roce_packets"] != 14.0 || r.Points[1]["roce_packets"] != 14.0 {
		t.Errorf("points %v", r.Points)
	}
	// requests matched: i in {0,1,2,4,6,7} (103 lost, 105 unseen at up);
	// delays 2000 + (i%3)*100 = 2000,2100,2200,2100,2000,2100 -> sorted
	// 2000,2000,2100,2100,2100,2200: p50 = 3rd = 2100, p99 = 6th = 2200.
	// ACKs: 7 (B ACKs every request it got: 100..102, 104..107), d(up -
	// down) = +2000 each... in argument order d = time at down - time at up
	// = -2000 < 0, so from = down.
	want := []map[string]any{
		{"from": "up", "to": "down", "flow": req, "matched": 6.0, "lost": 1.0, "unseen_upstream": 1.0,
			"delay": map[string]any{"count": 6.0, "min_ns": 2000.0, "p50_ns": 2100.0, "p99_ns": 2200.0, "max_ns": 2200.0}},
		{"from": "down", "to": "up", "flow": ack, "matched": 7.0, "lost": 0.0, "unseen_upstream": 0.0,
			"delay": map[string]any{"count": 7.0, "min_ns": 2000.0, "p50_ns": 2000.0, "p99_ns": 2000.0, "max_ns": 2000.0}},
	}
	if len(r.Hops) != 2 || !jsonEqual(r.Hops[0], want[0]) || !jsonEqual(r.Hops[1], want[1]) {
		t.Errorf("hops\n%v\nwant\n%v", r.Hops, want)
	}
	// hop_loss: PSN 103 at its time at up, T0 + 3*10 µs.
	var losses []map[string]any
	for _, e := range r.Events {
		if e["kind"] == "hop_loss" {
			losses = append(losses, e)
		}
	}
	wantLoss := map[string]any{"kind": "hop_loss", "ts_ns": float64(T0 + 30_000), "flow": req, "from": "up", "to": "down",
		"psn": 103.0, "opcode_name": "RC_RDMA_WRITE_ONLY"}
	if len(losses) != 1 || !jsonEqual(losses[0], wantLoss) {
		t.Errorf("hop_loss events %v, want %v", losses, wantLoss)
	}
	codes := map[string]string{}
	for _, f := range r.Findings {
		codes[f["code"].(string)], _ = f["message"].(string)
		if f["code"] == "lost_between_points" || f["code"] == "capture_missed_frames" {
			if f["flow"] != req {
				t.Errorf("%v: flow %v, want %s", f["code"], f["flow"], req)
			}
		}
	}
	for _, c := range []string{"lost_between_points", "capture_missed_frames"} {
		if m := codes[c]; !strings.Contains(m, "1 RoCE") || !strings.Contains(m, "up") || !strings.Contains(m, "down") {
			t.Errorf("finding %s: %q", c, m)
		}
	}
	// The report's capture is the reference's (up).
	if r.Capture["roce_packets"] != 14.0 {
		t.Errorf("capture %v", r.Capture)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestPointUsageErrors: --point with FILE arguments, a duplicate name, or
// a malformed value is a usage error.
func TestPointUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"report", "--point", "a=x.pcap", "y.pcap"},
		{"report", "--point", "a=x.pcap", "--point", "a=y.pcap"},
		{"report", "--point", "x.pcap"},
		{"report", "--point", "=x.pcap"},
		{"report", "--point", "a=x.pcap,"},
	} {
		code, _, errOut := rt(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "point") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestNCCLRing2Points: the three hosts' taps of one NCCL run. Merged as
// plain files every frame seen twice becomes a replay, and each pair of
// files shares 92 of its 184 RoCE frames (50.0%); with --point no
// retransmission and every hop with lost = 0.
func TestNCCLRing2Points(t *testing.T) {
	dir := testenv.SharedPcapsDir(t)
	var files, points []string
	for i := range 3 {
		f := filepath.Join(dir, "rxe_tut_nccl_ring2_node"+string(rune('0'+i))+".pcap")
		files = append(files, f)
		points = append(points, "--point", "node"+string(rune('0'+i))+"="+f)
	}
	code, out, errOut := rt(t, append([]string{"report", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, `"same_traffic_in_several_files"`); n != 3 || !strings.Contains(out, "50.0%") || !strings.Contains(errOut, "--point") {
		t.Errorf("%d same_traffic findings; stderr %q", n, errOut)
	}
	code, out, errOut = rt(t, append([]string{"report", "--json"}, points...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Flows []struct{ Retransmitted int64 } `json:"flows"`
		Hops  []map[string]any                `json:"hops"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Flows {
		if f.Retransmitted != 0 {
			t.Errorf("retransmissions with --point: %s", out)
		}
	}
	// ring2: 3 QP pairs, each between two hosts whose taps both see it:
	// 6 flows, one hop each, matched 32 (the ACK-side flows) or 60.
	if len(r.Hops) != 6 || strings.Contains(out, "hop_loss") {
		t.Errorf("hops: %v", r.Hops)
	}
	for _, h := range r.Hops {
		if h["lost"] != 0.0 || h["unseen_upstream"] != 0.0 || (h["matched"] != 32.0 && h["matched"] != 60.0) {
			t.Errorf("hop %v", h)
		}
	}
}

// TestReportPointsGolden pins the text and JSON report of the two-point
// demo (pcaps/two_points_*.pcap, synth.TwoPoints).
func TestReportPointsGolden(t *testing.T) {
	args := []string{"--point", "up=../../pcaps/two_points_up.pcap", "--point", "down=../../pcaps/two_points_down.pcap"}
	for _, tc := range []struct{ name, flag string }{{"two_points.points.report.golden", ""}, {"two_points.points.json.golden", "--json"}} {
		a := append([]string{"report"}, args...)
		if tc.flag != "" {
			a = append(a, tc.flag)
		}
		code, out, errOut := rt(t, a...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		checkGolden(t, tc.name, out)
	}
}

// TestPointReferenceIsItsOwnReport: with --point, the report's capture,
// flows, latency, pfc, events (but hop_loss) and findings (but the points'
// codes) are exactly those of `report` on the reference point's files
// alone: each point is analysed on its own.
func TestPointReferenceIsItsOwnReport(t *testing.T) {
	up, down := "../../pcaps/two_points_up.pcap", "../../pcaps/two_points_down.pcap"
	for _, ref := range [][2]string{{up, down}, {down, up}} {
		_, alone, _ := rt(t, "report", "--json", ref[0])
		_, both, _ := rt(t, "report", "--json", "--point", "a="+ref[0], "--point", "b="+ref[1])
		var a, b map[string]any
		if err := json.Unmarshal([]byte(alone), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(both), &b); err != nil {
			t.Fatal(err)
		}
		keep := func(list any, drop func(map[string]any) bool) []any {
			var out []any
			for _, x := range list.([]any) {
				if !drop(x.(map[string]any)) {
					out = append(out, x)
				}
			}
			return out
		}
		b["events"] = keep(b["events"], func(e map[string]any) bool { return e["kind"] == "hop_loss" })
		b["findings"] = keep(b["findings"], func(f map[string]any) bool {
			return f["code"] == "lost_between_points" || f["code"] == "capture_missed_frames"
		})
		a["events"], a["findings"] = keep(a["events"], func(map[string]any) bool { return false }), keep(a["findings"], func(map[string]any) bool { return false })
		delete(b, "points")
		delete(b, "hops")
		if !jsonEqual(a, b) {
			t.Errorf("reference %s: --point report differs from its own\n%s\n%s", ref[0], alone, both)
		}
	}
}
