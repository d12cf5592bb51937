package export

import (
	"fmt"
	"sync"

	"github.com/rocetrace/rocetrace/export/internal/colenc"
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
// by a colTable, so no sample is kept in memory beyond two sets of
// PageRows rows and the current row group's compressed pages.
type latencyTable struct {
	af  *atomicFile
	w   *colTable[*latSet]
	err error // the first error: later samples are dropped, Finish returns it
}

// Planes of latency.parquet's sets (latSet).
const (
	latI32Flow = iota // flow's dictionary indexes (colTable: plane 0)
	latI32Kind        // kind's (colTable: plane 1)
	latI32PSN
	numLatI32
)

const (
	latI64Request  = iota
	latI64Response // ts too: the same values
	latI64Latency
	numLatI64
)

// latencyColumns declares latency.parquet's columns (LatencyRow's fields).
func latencyColumns() []colenc.Column {
	return []colenc.Column{
		{Name: "flow", Slot: latI32Flow, Def: req},
		{Name: "kind", Slot: latI32Kind, Def: req},
		{Name: "psn", Slot: latI32PSN, Def: req, RawDelta: true},
		{Name: "request_ts_ns", Slot: latI64Request, Def: req},
		{Name: "response_ts_ns", Slot: latI64Response, Def: req},
		{Name: "latency_ns", Slot: latI64Latency, Def: req},
		{Name: "ts", Alias: "response_ts_ns", Def: req},
	}
}

var latencyLayout = sync.OnceValues(func() (*colenc.Layout, error) {
	return rowLayout[LatencyRow]("latency.parquet", latencyColumns(), colenc.Planes{Int32: numLatI32, Int64: numLatI64})
})

// latSet is a page's worth of latency.parquet's rows.
type latSet struct {
	i32   [numLatI32]colenc.Int32Plane
	i64   [numLatI64]colenc.Int64Plane
	pages colenc.Pages
}

func newLatSet() *latSet {
	s := new(latSet)
	s.pages = colenc.NewPages(s.i32[:], s.i64[:], nil, nil)
	return s
}

// Pages returns the set's colenc.Pages.
func (s *latSet) Pages() *colenc.Pages { return &s.pages }

// latencyKindNames names the latency kinds by code.
var latencyKindNames = enumNames(func(i int) string { return flows.LatencyKind(i).String() })

func openLatency(path string, opts Options) (*latencyTable, error) {
	l, err := latencyLayout()
	if err != nil {
		return nil, err
	}
	af, err := createAtomic(path, opts)
	if err != nil {
		return nil, err
	}
	w, err := newColTable(af, l, writerOptions(TableLatency, opts), newLatSet)
	if err != nil {
		af.abort()
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
	w := l.w
	set, r := w.row()
	set.i32[latI32Flow][r] = w.flowIndex(s.Flow)
	set.i32[latI32Kind][r] = w.kind.index(uint8(s.Kind), &latencyKindNames)
	set.i32[latI32PSN][r] = int32(s.PSN)
	set.i64[latI64Request][r] = s.RequestTsNs
	set.i64[latI64Response][r] = s.ResponseTsNs
	set.i64[latI64Latency][r] = s.LatencyNs()
	if err := w.added(); err != nil {
		l.err = fmt.Errorf("writing %s: %w", e.paths.Latency, err)
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
