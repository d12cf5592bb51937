package export

import (
	"fmt"

	"github.com/rocetrace/rocetrace/flows"
)

// TableLatency is the name of the latency table (latency.parquet).
const TableLatency = "latency"

// LatencyRow is one row of latency.parquet: one response-latency sample
// ("latency" in docs/interface.md). flow is the request flow, psn the
// request's PSN, ts the response's time.
type LatencyRow struct {
	Flow         string `parquet:"flow,dict"`
	Kind         string `parquet:"kind,dict"`
	PSN          uint32 `parquet:"psn"`
	RequestTsNs  int64  `parquet:"request_ts_ns"`
	ResponseTsNs int64  `parquet:"response_ts_ns"`
	LatencyNs    int64  `parquet:"latency_ns"`
	Ts           int64  `parquet:"ts,timestamp(nanosecond:utc)"`
}

// latencyTable streams latency.parquet: rows are written as the flow table
// takes the samples (Export.Latency, the table's flows.Config.LatencySink),
// so no sample is kept in memory beyond the writer's batch and row group.
type latencyTable struct {
	af  *atomicFile
	w   *Writer[LatencyRow]
	err error // the first error: later samples are dropped, Finish returns it
}

func openLatency(path string, opts Options) (*latencyTable, error) {
	af, w, err := openTable[LatencyRow](path, TableLatency, opts)
	if err != nil {
		return nil, err
	}
	return &latencyTable{af: af, w: w}, nil
}

// Latency adds one latency sample to latency.parquet. Use it as the flow
// table's flows.Config.LatencySink; a write error is kept and returned by
// Finish.
func (e *Export) Latency(s flows.LatencySample) {
	l := e.lat
	if l == nil || l.err != nil {
		return
	}
	r, err := l.w.Next()
	if err != nil {
		l.err = fmt.Errorf("writing %s: %w", e.paths.Latency, err)
		return
	}
	*r = LatencyRow{
		Flow: s.Flow.ID(), Kind: s.Kind.String(), PSN: uint32(s.PSN),
		RequestTsNs: s.RequestTsNs, ResponseTsNs: s.ResponseTsNs, LatencyNs: s.LatencyNs(), Ts: s.ResponseTsNs,
	}
}

// finishLatency completes latency.parquet (not yet renamed into place) and
// adds it to e.temps.
func (e *Export) finishLatency() (Written, error) {
	l := e.lat
	if l.err != nil {
		return Written{}, l.err
	}
	if err := l.w.Close(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Latency, err)
	}
	if err := l.af.finish(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Latency, err)
	}
	e.temps = append(e.temps, l.af)
	e.lat = nil // in e.temps now
	return Written{TableLatency, e.paths.Latency, l.w.Rows(), l.af.size}, nil
}
