package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestExportPointsDuckDB exports synth.TwoPoints with --point and reads the
// tables back with DuckDB (values worked out in TestReportPointsWorkedByHand).
func TestExportPointsDuckDB(t *testing.T) {
	expDuckDB(t)
	upC, downC := synth.TwoPoints()
	dir := t.TempDir()
	up, down := writeAs(t, dir, "up", upC), writeAs(t, dir, "down", downC)
	out := filepath.Join(dir, "out")
	code, stdout, errOut := expRun(context.Background(), "export", "-o", out, "--point", "up="+up, "--point", "down="+down)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "points.parquet: 2 rows") || !strings.Contains(stdout, "hops.parquet: 2 rows") {
		t.Errorf("stdout %q", stdout)
	}
	q := func(table string) string { return "'" + filepath.Join(out, table+".parquet") + "'" }
	res := expDuck(t,
		// 14 RoCE frames at each point (see TestReportPointsWorkedByHand),
		// the down point's flow ids those of its own flows.
		"SELECT point, count(*)::INTEGER, count(*) FILTER (WHERE flow = '10.0.0.1>10.0.0.2:qp0x000022')::INTEGER FROM "+q("packets")+" GROUP BY point ORDER BY point",
		"SELECT name, files[1] = "+"'"+up+"'"+" FROM "+q("points")+" ORDER BY name",
		`SELECT "from", "to", matched::INTEGER, lost::INTEGER, unseen_upstream::INTEGER, delay_p50_ns::INTEGER, delay_p99_ns::INTEGER FROM `+q("hops")+" ORDER BY flow",
		`SELECT "from", "to", psn::INTEGER, opcode_name, ts_ns::VARCHAR FROM `+q("events")+" WHERE kind = 'hop_loss'",
	)
	got, _ := json.Marshal(res)
	// up: 7 requests (100..104, 106, 107: 105 missed) of which 7 on the
	// request flow; down: 7 requests (103 lost) and 7 ACKs.
	// hops: requests up -> down (6 matched, 1 lost, 1 unseen, p50 2100,
	// p99 2200), ACKs down -> up (7 matched, 2000).
	want := `[[["down",14,7],["up",14,7]],[["down",false],["up",true]],` +
		`[["up","down",6,1,1,2100,2200],["down","up",7,0,0,2000,2000]],` +
		`[["up","down",103,"RC_RDMA_WRITE_ONLY","1767323045000030000"]]]`
	if string(got) != want {
		t.Errorf("DuckDB\n got %s\nwant %s", got, want)
	}
}

// TestExportPointsLatencyRates: with --point, latency.parquet and
// rates.parquet are the reference point's, as flows and events: the rate
// windows of each reference flow add up to its packets (up: 7 WRITEs on
// qp0x000022 and 7 ACKs on qp0x000011, TestReportPointsWorkedByHand), and
// the latency rows are as many as the reference report's samples. With
// down as the reference the windows add up to down's flows.
func TestExportPointsLatencyRates(t *testing.T) {
	upC, downC := synth.TwoPoints()
	dir := t.TempDir()
	up, down := writeAs(t, dir, "up", upC), writeAs(t, dir, "down", downC)
	for _, tc := range []struct {
		name     string
		ref, oth string
	}{{"up first", "up=" + up, "down=" + down}, {"down first", "down=" + down, "up=" + up}} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if code, _, errOut := expRun(context.Background(), "export", "-o", out, "--point", tc.ref, "--point", tc.oth); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errOut)
			}
			code, js, errOut := expRun(context.Background(), "report", "--json", "--point", tc.ref, "--point", tc.oth)
			if code != 0 {
				t.Fatalf("report: exit %d: %s", code, errOut)
			}
			var rep struct {
				Flows []struct {
					ID      string `json:"id"`
					Packets int64  `json:"packets"`
				} `json:"flows"`
				Latency map[string]struct {
					Count int64 `json:"count"`
				} `json:"latency"`
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil {
				t.Fatal(err)
			}
			sums := map[string]int64{}
			for _, r := range expRead[export.RateRow](t, filepath.Join(out, "rates.parquet")) {
				sums[r.Flow] += r.Packets
			}
			if len(rep.Flows) != 2 || len(sums) != len(rep.Flows) {
				t.Fatalf("flows %v, rate windows of %v", rep.Flows, sums)
			}
			for _, f := range rep.Flows {
				if f.Packets != 7 || sums[f.ID] != f.Packets {
					t.Errorf("flow %s: %d packets, rate windows add up to %d", f.ID, f.Packets, sums[f.ID])
				}
			}
			var samples int64
			for _, s := range rep.Latency {
				samples += s.Count
			}
			if n := int64(len(expRead[export.LatencyRow](t, filepath.Join(out, "latency.parquet")))); samples == 0 || n != samples {
				t.Errorf("latency.parquet: %d rows, report: %d samples", n, samples)
			}
		})
	}
}

// TestExportPointsHopLossEvents: the frame a hop_loss event names shows
// hop_loss in packets.parquet's events column, at its `from` point: in
// TwoPoints, PSN 103 (RC_RDMA_WRITE_ONLY) seen at up and lost before down
// (TestReportPointsWorkedByHand), and no other frame.
func TestExportPointsHopLossEvents(t *testing.T) {
	upC, downC := synth.TwoPoints()
	dir := t.TempDir()
	up, down := writeAs(t, dir, "up", upC), writeAs(t, dir, "down", downC)
	out := filepath.Join(dir, "out")
	if code, _, errOut := expRun(context.Background(), "export", "-o", out, "--point", "up="+up, "--point", "down="+down); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	var got []string
	for _, r := range expRead[export.PacketRow](t, filepath.Join(out, "packets.parquet")) {
		if slices.Contains(r.Events, "hop_loss") && r.Point != nil && r.PSN != nil {
			got = append(got, fmt.Sprintf("%s psn %d", *r.Point, *r.PSN))
		}
	}
	if want := []string{"up psn 103"}; !slices.Equal(got, want) {
		t.Errorf("frames with hop_loss: %v, want %v", got, want)
	}
}
