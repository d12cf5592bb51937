package export

import (
	"fmt"

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

// rateTable is rates.parquet while windows stream in.
type rateTable struct {
	af  *atomicFile
	w   *Writer[RateRow]
	err error // the first write error
}

func openRates(path string, opts Options) (*rateTable, error) {
	af, w, err := openTable[RateRow](path, TableRates, opts)
	if err != nil {
		return nil, err
	}
	return &rateTable{af: af, w: w}, nil
}

// Rate adds one closed rate window to rates.parquet: it is the flow
// table's sink (flows.Config.RateSink), called while the capture is read
// and at flows.Table.Finish. It does not allocate per row (rows are batched
// in a reused buffer); a write error is kept and returned by Finish.
func (e *Export) Rate(w flows.RateWindow) {
	rt := e.rates
	if rt.err != nil {
		return
	}
	r, err := rt.w.Next()
	if err != nil {
		rt.err = fmt.Errorf("writing %s: %w", e.paths.Rates, err)
		return
	}
	*r = RateRow{
		Flow: w.Flow.ID(), TsNs: w.StartNs, Ts: w.StartNs,
		Packets: w.Packets, Bytes: w.Bytes, PayloadBytes: w.PayloadBytes,
		ECNCE: w.ECNCE, CNPs: w.CNPs, CNPsReceived: w.CNPsReceived,
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
