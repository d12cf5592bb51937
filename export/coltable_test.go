package export

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// streamedFlows returns distinct flows of a small capture, with the
// flow-less frames left out.
func streamedFlows(t *testing.T) []*flows.Flow {
	t.Helper()
	d := decodeCapture(t, synth.LossNAKReplay())
	var fl []*flows.Flow
	seen := map[*flows.Flow]bool{}
	for _, f := range d.flows {
		if f != nil && !seen[f] {
			seen[f] = true
			fl = append(fl, f)
		}
	}
	if len(fl) < 2 {
		t.Fatalf("%d flows in the capture, want at least 2", len(fl))
	}
	return fl
}

// TestStreamedTableRows writes latency.parquet and rates.parquet through
// their sinks with rows whose values are made from the row number, over
// more than two pages (colenc.PageRows) and several row groups (each with
// its own flow and kind dictionaries), and reads them back with
// parquet-go: every row as made, in order.
func TestStreamedTableRows(t *testing.T) {
	fl := streamedFlows(t)
	const n = 2*pageRows + 1234
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"default row groups", Options{}},
		{"row groups of 10000 rows", Options{RowGroupRows: 10000}},
		{"row groups of 3 rows, snappy", Options{RowGroupRows: 3, Compression: "snappy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := FilePaths(t.TempDir())
			e, err := Create(paths, []string{"c.pcap"}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Abort()
			m := n
			if tc.opts.RowGroupRows == 3 {
				m = 20 // groups of 3 rows: a few are enough
			}
			for i := range m {
				e.Latency(flows.LatencySample{
					Flow: fl[i%len(fl)], Kind: flows.LatencyKind(i % int(flows.NumLatencyKinds)),
					PSN:         flows.PSN(uint32(i*7919) & 0xffffff),
					RequestTsNs: 1_700_000_000_000_000_000 + int64(i)*1000, ResponseTsNs: 1_700_000_000_000_000_000 + int64(i)*1000 + 500 + int64(i%13),
				})
				e.Rate(flows.RateWindow{
					Flow: fl[(i/5)%len(fl)], StartNs: int64(i/len(fl)) * 1_000_000,
					Packets: int64(i), Bytes: int64(i) * 1100, PayloadBytes: int64(i) * 1024,
					ECNCE: int64(i % 3), CNPs: int64(i % 2), CNPsReceived: int64(i % 5),
				})
			}
			var r analysis.Report
			written, err := e.Finish(context.Background(), &r)
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]int64{}
			for _, w := range written {
				rows[w.Table] = w.Rows
			}
			if rows[TableLatency] != int64(m) || rows[TableRates] != int64(m) {
				t.Errorf("written rows: latency %d, rates %d, want %d", rows[TableLatency], rows[TableRates], m)
			}
			kinds := []string{"ack", "read", "read_first", "atomic"}
			lat, err := parquet.ReadFile[LatencyRow](paths.Latency)
			if err != nil {
				t.Fatal(err)
			}
			rates, err := parquet.ReadFile[RateRow](paths.Rates)
			if err != nil {
				t.Fatal(err)
			}
			if len(lat) != m || len(rates) != m {
				t.Fatalf("%d latency rows, %d rate rows, want %d", len(lat), len(rates), m)
			}
			for i := range m {
				req := 1_700_000_000_000_000_000 + int64(i)*1000
				want := LatencyRow{
					Flow: fl[i%len(fl)].ID(), Kind: kinds[i%4], PSN: uint32(i*7919) & 0xffffff,
					RequestTsNs: req, ResponseTsNs: req + 500 + int64(i%13), LatencyNs: 500 + int64(i%13), Ts: req + 500 + int64(i%13),
				}
				if lat[i] != want {
					t.Fatalf("latency row %d: %+v, want %+v", i, lat[i], want)
				}
				wantR := RateRow{
					Flow: fl[(i/5)%len(fl)].ID(), TsNs: int64(i/len(fl)) * 1_000_000, Ts: int64(i/len(fl)) * 1_000_000,
					Packets: int64(i), Bytes: int64(i) * 1100, PayloadBytes: int64(i) * 1024,
					ECNCE: int64(i % 3), CNPs: int64(i % 2), CNPsReceived: int64(i % 5),
				}
				if rates[i] != wantR {
					t.Fatalf("rates row %d: %+v, want %+v", i, rates[i], wantR)
				}
			}
			data, err := os.ReadFile(paths.Latency)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := f.Lookup("rocetrace.table"); v != TableLatency {
				t.Errorf("latency.parquet rocetrace.table = %q", v)
			}
			groups := tc.opts.RowGroupRows
			if groups == 0 {
				groups = DefaultRowGroupRows
			}
			if got, want := len(f.RowGroups()), (m+int(groups)-1)/int(groups); got != want {
				t.Errorf("latency.parquet: %d row groups, want %d", got, want)
			}
		})
	}
}

// TestStreamedTableAllocs checks that the latency and rate sinks allocate
// nothing per row, the worker's page sets and row groups included.
func TestStreamedTableAllocs(t *testing.T) {
	fl := streamedFlows(t)
	e, err := Create(FilePaths(t.TempDir()), []string{"c.pcap"}, Options{RowGroupRows: pageRows})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Abort()
	i := 0
	add := func(n int) {
		for range n {
			f := fl[i%len(fl)]
			e.Latency(flows.LatencySample{Flow: f, PSN: flows.PSN(i), RequestTsNs: int64(i), ResponseTsNs: int64(i) + 9})
			e.Rate(flows.RateWindow{Flow: f, StartNs: int64(i), Packets: 1})
			i++
		}
	}
	add(pageRows) // the dictionaries' first values; a row group each
	// Within a page (at most 5 x 5 x 500 rows): nothing at all. The worker
	// may still be encoding the first row group, and AllocsPerRun counts
	// every goroutine's allocations (43 per 1000 rows were seen under -race
	// on a loaded machine): the least of a few tries, apart in time, is
	// the row side's own; an allocation per row would show in every try.
	allocs := -1.0
	for try := 0; try < 5 && allocs != 0; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		if a := testing.AllocsPerRun(4, func() { add(500) }); allocs < 0 || a < allocs {
			allocs = a
		}
	}
	if allocs != 0 {
		t.Errorf("%v allocations per 500 rows within a page, want 0", allocs)
	}
	add(pageRows - i%pageRows)
	// Across pages and row groups: what the worker allocates per row group
	// (its column chunks' metadata), not per row.
	allocs = testing.AllocsPerRun(8, func() { add(pageRows) })
	if perRow := allocs / (2 * pageRows); perRow > 0.05 {
		t.Errorf("%.4f allocations per row (%v per %d rows of each table), want none per row", perRow, allocs, pageRows)
	}
}
