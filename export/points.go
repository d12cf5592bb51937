package export

import (
	"path/filepath"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Tables of an export with capture points (--point), after the four.
const (
	TablePoints = "points"
	TableHops   = "hops"
)

// PointRow is one row of points.parquet: a capture point ("points" of the
// report).
type PointRow struct {
	Name        string   `parquet:"name,dict"`
	Files       []string `parquet:"files,list"`
	Packets     int64    `parquet:"packets"`
	RoCEPackets int64    `parquet:"roce_packets"`
	FirstTsNs   int64    `parquet:"first_ts_ns"`
	LastTsNs    int64    `parquet:"last_ts_ns"`
}

// HopRow is one row of hops.parquet: a flow between two points ("hops" of
// the report), its delay summary flattened into delay_* columns.
type HopRow struct {
	From           string `parquet:"from,dict"`
	To             string `parquet:"to,dict"`
	Flow           string `parquet:"flow,dict"`
	Matched        int64  `parquet:"matched"`
	Lost           int64  `parquet:"lost"`
	UnseenUpstream int64  `parquet:"unseen_upstream"`
	DelayCount     int64  `parquet:"delay_count"`
	DelayMinNs     int64  `parquet:"delay_min_ns"`
	DelayP50Ns     int64  `parquet:"delay_p50_ns"`
	DelayP99Ns     int64  `parquet:"delay_p99_ns"`
	DelayMaxNs     int64  `parquet:"delay_max_ns"`
}

// WithPoints returns p with points.parquet and hops.parquet in dir.
func (p Paths) WithPoints(dir string) Paths {
	p.Points = filepath.Join(dir, TablePoints+".parquet")
	p.Hops = filepath.Join(dir, TableHops+".parquet")
	return p
}

// PacketAt is PacketEvents for a frame of a capture point: point fills the point
// column. Frames of other points than the reference (ref false) are given
// their flow by id (their flows come from another table than the
// reference's, whose first-seen indexes would collide in the flow cache).
func (e *Export) PacketAt(point string, ref bool, p *decode.Packet, f *flows.Flow, ev flows.EventMask) error {
	if !Wanted(p) {
		return nil
	}
	var file string
	if p.File >= 0 && p.File < len(e.files) {
		file = e.files[p.File]
	}
	e.pw.curPoint = point
	if ref || f == nil {
		return e.pw.addFlow(p, file, f, ev)
	}
	return e.pw.addRow(p, file, nil, f.ID(), ev)
}

// pointTables returns the writers of points.parquet and hops.parquet from r
// when the paths ask for them.
func (e *Export) pointTables(r *analysis.Report) []func() (Written, error) {
	if e.paths.Points == "" {
		return nil
	}
	points := make([]PointRow, len(r.Points))
	for i, p := range r.Points {
		points[i] = PointRow{Name: p.Name, Files: p.Files, Packets: p.Packets, RoCEPackets: p.RoCEPackets,
			FirstTsNs: p.FirstTsNs, LastTsNs: p.LastTsNs}
	}
	hops := make([]HopRow, len(r.Hops))
	for i, h := range r.Hops {
		hops[i] = HopRow{From: h.From, To: h.To, Flow: h.Flow, Matched: h.Matched, Lost: h.Lost,
			UnseenUpstream: h.UnseenUpstream, DelayCount: h.Delay.Count, DelayMinNs: h.Delay.MinNs,
			DelayP50Ns: h.Delay.P50Ns, DelayP99Ns: h.Delay.P99Ns, DelayMaxNs: h.Delay.MaxNs}
	}
	return []func() (Written, error){
		smallTable(e, TablePoints, e.paths.Points, points),
		smallTable(e, TableHops, e.paths.Hops, hops),
	}
}
