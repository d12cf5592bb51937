package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestExportLatencyDuckDB reads latency.parquet with DuckDB: per kind, the
// number of rows equals report --json's latency count, and the sums of
// latency_ns and of response_ts_ns - request_ts_ns agree with the sum of
// parquet-go's rows (and ts = response_ts_ns on every row, to the µs DuckDB
// reads TIMESTAMP(NANOS) with). It
// runs on the demo captures plus the real stall capture (1 ack, 1 read, 1
// read_first sample).
func TestExportLatencyDuckDB(t *testing.T) {
	expDuckDB(t)
	checkLatencyExport(t, expCaptures(t))
	// Last: SharedPcapsDir skips when ../shared is absent.
	checkLatencyExport(t, []string{filepath.Join(testenv.SharedPcapsDir(t), "rxe_devstack_read_2400b_stall.pcapng")})
}

func checkLatencyExport(t *testing.T, in []string) {
	t.Helper()
	{
		dir := t.TempDir()
		if code, _, errOut := expRun(context.Background(), append([]string{"export", "-o", dir}, in...)...); code != 0 {
			t.Fatalf("export exit %d: %s", code, errOut)
		}
		code, out, errOut := expRun(context.Background(), append([]string{"report", "--json"}, in...)...)
		if code != 0 {
			t.Fatalf("report exit %d: %s", code, errOut)
		}
		var rep struct {
			Latency map[string]struct {
				Count int64 `json:"count"`
			} `json:"latency"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		path := export.FilePaths(dir).Latency
		q := "'" + strings.ReplaceAll(path, "'", "''") + "'"
		res := expDuck(t,
			"SELECT kind, count(*), sum(latency_ns), sum(response_ts_ns - request_ts_ns), count(*) FILTER (WHERE epoch_ns(ts) // 1000 = response_ts_ns // 1000) FROM "+q+" GROUP BY kind ORDER BY kind")
		got := map[string][]int64{}
		for _, row := range res[0] {
			got[row[0].(string)] = []int64{expNum(row[1]), expNum(row[2]), expNum(row[3]), expNum(row[4])}
		}
		sums := map[string]int64{}
		for _, r := range expRead[export.LatencyRow](t, path) {
			sums[r.Kind] += r.LatencyNs
		}
		var total int64
		for _, kind := range []string{"ack", "read", "read_first", "atomic"} {
			want := rep.Latency[kind].Count
			total += want
			g := got[kind]
			if want == 0 {
				if g != nil {
					t.Errorf("%v: DuckDB has %d %s rows, report none", in, g[0], kind)
				}
				continue
			}
			if g == nil || g[0] != want || g[1] != sums[kind] || g[2] != sums[kind] || g[3] != want {
				t.Errorf("%v: %s: DuckDB count, sum, sum of differences, ts matches = %v; want count %d, sums %d", in, kind, g, want, sums[kind])
			}
		}
		if total == 0 {
			t.Errorf("%v: no latency samples", in)
		}
	}
}
