package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/export"
)

// ratesSums is what a flow's rates.parquet rows add up to.
type ratesSums struct {
	Packets, Bytes, Payload, CE, CNPs, CNPsReceived int64
	Rows, MaxBytes                                  int64
}

// ratesExport exports the demo captures and the extras, merged into one
// analysis, with --bin bin, and returns the directory and the flows of
// `report --json --bin bin` over the same files.
func ratesExport(t *testing.T, bin string) (string, []analysis.FlowReport) {
	t.Helper()
	files := expCaptures(t)
	dir := t.TempDir()
	if code, _, errOut := expRun(context.Background(), append([]string{"export", "--bin", bin, "-o", dir}, files...)...); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	code, out, errOut := expRun(context.Background(), append([]string{"report", "--json", "--bin", bin}, files...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	var rep struct{ Flows []analysis.FlowReport }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return dir, rep.Flows
}

// checkRates compares each flow's sums with its report row: the counters
// equal, and peak_bps = floor(max bytes × 8 × 10^9 / W).
func checkRates(t *testing.T, flows []analysis.FlowReport, sums map[string]ratesSums, w time.Duration) {
	t.Helper()
	if len(sums) != len(flows) {
		t.Errorf("rates.parquet has %d flows, the report %d", len(sums), len(flows))
	}
	received := int64(0)
	for _, f := range flows {
		s := sums[f.ID]
		want := ratesSums{f.Packets, f.Bytes, f.PayloadBytes, f.ECNCE, f.CNPs, f.CNPsReceived, s.Rows, s.MaxBytes}
		if s != want {
			t.Errorf("%s: rates sum to %+v, report %+v", f.ID, s, want)
		}
		peak := new(big.Int).Mul(big.NewInt(s.MaxBytes), big.NewInt(8_000_000_000))
		peak.Quo(peak, big.NewInt(int64(w)))
		if peak.Int64() != f.PeakBps {
			t.Errorf("%s: peak_bps %d, want floor(%d × 8e9 / %d) = %d", f.ID, f.PeakBps, s.MaxBytes, int64(w), peak.Int64())
		}
		received += f.CNPsReceived
	}
	if received == 0 {
		t.Errorf("no flow received a CNP: cnps_received is not checked")
	}
}

// TestExportRates reads rates.parquet back (parquet-go) at two bin sizes:
// windows start at multiples of W, are distinct per flow, and a flow's rows
// add up to its flows.parquet/report values.
func TestExportRates(t *testing.T) {
	for _, bin := range []string{"100us", "1ms"} {
		t.Run(bin, func(t *testing.T) {
			w, _ := time.ParseDuration(bin)
			dir, flows := ratesExport(t, bin)
			rows := expRead[export.RateRow](t, export.FilePaths(dir).Rates)
			sums := map[string]ratesSums{}
			seen := map[string]bool{}
			for _, r := range rows {
				key := fmt.Sprint(r.Flow, r.TsNs)
				if seen[key] || r.TsNs%int64(w) != 0 || r.Ts != r.TsNs {
					t.Errorf("row %+v: repeated, not at a multiple of %v, or ts != ts_ns", r, w)
				}
				seen[key] = true
				s := sums[r.Flow]
				s.Packets += r.Packets
				s.Bytes += r.Bytes
				s.Payload += r.PayloadBytes
				s.CE += r.ECNCE
				s.CNPs += r.CNPs
				s.CNPsReceived += r.CNPsReceived
				s.Rows++
				s.MaxBytes = max(s.MaxBytes, r.Bytes)
				sums[r.Flow] = s
			}
			checkRates(t, flows, sums, w)
		})
	}
}

// TestExportRatesDuckDB: DuckDB reads rates.parquet with the same sums per
// flow as `report --json` (packets, bytes, payload_bytes, ecn_ce, cnps,
// cnps_received), one row per window, and the largest window's bytes give
// peak_bps.
func TestExportRatesDuckDB(t *testing.T) {
	expDuckDB(t)
	for _, bin := range []string{"100us", "1ms"} {
		t.Run(bin, func(t *testing.T) {
			w, _ := time.ParseDuration(bin)
			dir, flows := ratesExport(t, bin)
			path := "'" + strings.ReplaceAll(export.FilePaths(dir).Rates, "'", "''") + "'"
			res := expDuck(t,
				"SELECT flow, sum(packets)::BIGINT, sum(bytes)::BIGINT, sum(payload_bytes)::BIGINT, sum(ecn_ce)::BIGINT, "+
					"sum(cnps)::BIGINT, sum(cnps_received)::BIGINT, count(DISTINCT ts_ns), max(bytes), "+
					fmt.Sprintf("count(*) FILTER (WHERE ts_ns %% %d <> 0 OR epoch_ns(ts) // 1000 <> ts_ns // 1000), count(*) ", int64(w))+
					"FROM "+path+" GROUP BY flow ORDER BY flow")
			sums := map[string]ratesSums{}
			for _, row := range res[0] {
				n := func(i int) int64 { return expNum(row[i]) }
				if n(9) != 0 {
					t.Errorf("%v: %d rows not at a multiple of %v or with ts != ts_ns", row[0], n(9), w)
				}
				if n(7) != n(10) {
					t.Errorf("%v: %d rows for %d windows", row[0], n(10), n(7))
				}
				sums[row[0].(string)] = ratesSums{n(1), n(2), n(3), n(4), n(5), n(6), n(7), n(8)}
			}
			checkRates(t, flows, sums, w)
		})
	}
}

// TestBinFlag: --bin is on report, export and tui; 0, a negative duration
// or a non-duration is a usage error (exit 2).
func TestBinFlag(t *testing.T) {
	path := expCaptures(t)[0]
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"report", "--bin", "0", path}, "invalid --bin 0s"},
		{[]string{"report", "--bin", "-1ms", path}, "invalid --bin -1ms"},
		{[]string{"report", "--bin", "fast", path}, "--bin"},
		{[]string{"export", "-o", t.TempDir(), "--bin", "0s", path}, "invalid --bin 0s"},
		{[]string{"tui", "--bin", "0", path}, "invalid --bin 0s"},
	}
	for _, tc := range tests {
		code, _, errOut := expRun(context.Background(), tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	for _, cmd := range []string{"report", "export", "tui"} {
		if code, out, _ := expRun(context.Background(), cmd, "-h"); code != 0 || !strings.Contains(out, "--bin duration") {
			t.Errorf("%s -h: exit %d, no --bin in\n%s", cmd, code, out)
		}
	}
}
