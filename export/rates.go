package export

import (
	"cmp"
	"fmt"
	"sync"

	"github.com/rocetrace/rocetrace/export/internal/colenc"
	"github.com/rocetrace/rocetrace/flows"
)

// TableRates is the name of rates.parquet's table.
const TableRates = "rates"

// RateRow is one row of rates.parquet: one flow's counters over one
// non-empty window of --bin (flows.RateWindow), ts_ns being the window's
// start (ts the same instant as TIMESTAMP(NANOS, UTC)). A flow's rows add up
// to its row of flows.parquet (packets, bytes, payload_bytes, ecn_ce, cnps,
// cnps_received).
type RateRow struct {
	Flow         string `parquet:"flow,dict"`
	TsNs         int64  `parquet:"ts_ns,delta"`
	Ts           int64  `parquet:"ts,timestamp(nanosecond:utc),delta"`
	Packets      int64  `parquet:"packets"`
	Bytes        int64  `parquet:"bytes"`
	PayloadBytes int64  `parquet:"payload_bytes"`
	ECNCE        int64  `parquet:"ecn_ce"`
	CNPs         int64  `parquet:"cnps"`
	CNPsReceived int64  `parquet:"cnps_received"`
}

// rateTable is rates.parquet while windows stream in, written by a
// colTable (as latency.parquet).
type rateTable struct {
	af  *atomicFile
	w   *colTable[*rateSet]
	err error // the first write error
}

// Planes of rates.parquet's sets (rateSet): the flow's dictionary indexes
// (colTable: Int32 plane 0) and the counters.
const (
	rateI64TsNs = iota // ts too: the same values
	rateI64Packets
	rateI64Bytes
	rateI64Payload
	rateI64ECNCE
	rateI64CNPs
	rateI64CNPsReceived
	numRateI64
)

// rateColumns declares rates.parquet's columns (RateRow's fields).
func rateColumns() []colenc.Column {
	return []colenc.Column{
		{Name: "flow", Slot: 0, Def: req},
		{Name: "ts_ns", Slot: rateI64TsNs, Def: req, Delta: true},
		{Name: "ts", Alias: "ts_ns", Def: req},
		{Name: "packets", Slot: rateI64Packets, Def: req},
		{Name: "bytes", Slot: rateI64Bytes, Def: req},
		{Name: "payload_bytes", Slot: rateI64Payload, Def: req},
		{Name: "ecn_ce", Slot: rateI64ECNCE, Def: req},
		{Name: "cnps", Slot: rateI64CNPs, Def: req},
		{Name: "cnps_received", Slot: rateI64CNPsReceived, Def: req},
	}
}

var rateLayout = sync.OnceValues(func() (*colenc.Layout, error) {
	return rowLayout[RateRow]("rates.parquet", rateColumns(), colenc.Planes{Int32: 1, Int64: numRateI64})
})

// rateSet is a page's worth of rates.parquet's rows.
type rateSet struct {
	i32   [1]colenc.Int32Plane
	i64   [numRateI64]colenc.Int64Plane
	pages colenc.Pages
}

func newRateSet() *rateSet {
	s := new(rateSet)
	s.pages = colenc.NewPages(s.i32[:], s.i64[:], nil, nil)
	return s
}

// Pages returns the set's colenc.Pages.
func (s *rateSet) Pages() *colenc.Pages { return &s.pages }

// rateRowGroupRows bounds rates.parquet's row groups (docs/interface.md:
// --row-group-rows, "rates.parquet: at most 16384"; the bound kept the
// memory of parquet-go's writer, which holds a row group's pages, small).
const rateRowGroupRows = 16 * 1024

// openRates creates rates.parquet's temporary file and writer.
func openRates(path string, opts Options) (*rateTable, error) {
	l, err := rateLayout()
	if err != nil {
		return nil, err
	}
	af, err := createAtomic(path, opts)
	if err != nil {
		return nil, err
	}
	wo := writerOptions(TableRates, opts)
	wo.RowGroupRows = min(cmp.Or(max(opts.RowGroupRows, 0), DefaultRowGroupRows), rateRowGroupRows)
	w, err := newColTable(af, l, wo, newRateSet)
	if err != nil {
		af.abort()
		return nil, err
	}
	return &rateTable{af: af, w: w}, nil
}

// Rate adds one closed rate window to rates.parquet: it is the flow
// table's sink (flows.Config.RateSink), called while the capture is read
// and at flows.Table.Finish. It does not allocate per row; a write error
// is kept and returned by Finish.
func (e *Export) Rate(rw flows.RateWindow) {
	rt := e.rates
	if rt.err != nil {
		return
	}
	w := rt.w
	set, r := w.row()
	set.i32[0][r] = w.flowIndex(rw.Flow)
	i64 := &set.i64
	i64[rateI64TsNs][r] = rw.StartNs
	i64[rateI64Packets][r] = rw.Packets
	i64[rateI64Bytes][r] = rw.Bytes
	i64[rateI64Payload][r] = rw.PayloadBytes
	i64[rateI64ECNCE][r] = rw.ECNCE
	i64[rateI64CNPs][r] = rw.CNPs
	i64[rateI64CNPsReceived][r] = rw.CNPsReceived
	if err := w.added(); err != nil {
		rt.err = fmt.Errorf("writing %s: %w", e.paths.Rates, err)
	}
}

// finishRates completes rates.parquet (not yet renamed) and adds it to the
// files Finish renames, last.
func (e *Export) finishRates() (Written, error) {
	rt := e.rates
	if rt.err != nil {
		return Written{}, rt.err
	}
	if err := rt.w.Close(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Rates, err)
	}
	if err := rt.af.finish(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Rates, err)
	}
	e.temps = append(e.temps, rt.af)
	return Written{TableRates, e.paths.Rates, rt.w.Rows(), rt.af.size}, nil
}
