package analysis

import (
	"cmp"
	"slices"

	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/points"
)

// Finding codes of capture points and of the same traffic in several files
// (contract "Capture points", "Same traffic in several files").
const (
	CodeLostBetweenPoints   = "lost_between_points"           // error: the fabric between two points dropped RoCE frames
	CodeCaptureMissedFrames = "capture_missed_frames"         // warning: frames seen downstream, not upstream
	CodeSameTraffic         = "same_traffic_in_several_files" // warning: plain FILE arguments share frames
)

// PointReport is one capture point of the report ("points"), in argument
// order.
type PointReport struct {
	Name        string   `json:"name"`
	Files       []string `json:"files"`
	Packets     int64    `json:"packets"`
	RoCEPackets int64    `json:"roce_packets"`
	FirstTsNs   int64    `json:"first_ts_ns"`
	LastTsNs    int64    `json:"last_ts_ns"`
}

// HopReport is one flow between two points that both saw it ("hops"),
// oriented along the flow; Delay = time at To - time at From over the
// matched frames (clock offsets included).
type HopReport struct {
	From           string         `json:"from"`
	To             string         `json:"to"`
	Flow           string         `json:"flow"`
	Matched        int64          `json:"matched"`
	Lost           int64          `json:"lost"`
	UnseenUpstream int64          `json:"unseen_upstream"`
	Delay          LatencySummary `json:"delay"`
}

// Point is what AddPoints needs of one point: its name and the capture
// summary of its own engine.
type Point struct {
	Name    string
	Summary CaptureSummary
}

// AddPoints adds to r (the reference point's report, built from table t)
// the points, the hops (points.Matcher.Finish, point indexes into pts),
// one hop_loss event per lost frame the matcher kept, and the findings
// lost_between_points and capture_missed_frames (one per hop and count > 0).
func AddPoints(r *Report, t *flows.Table, pts []Point, hops []points.Hop) {
	r.Materialize() // the hop_loss events merge into Events
	r.Points = make([]PointReport, 0, len(pts))
	for _, p := range pts {
		files := p.Summary.Files
		if files == nil {
			files = []string{}
		}
		r.Points = append(r.Points, PointReport{Name: p.Name, Files: files, Packets: p.Summary.Packets,
			RoCEPackets: p.Summary.RoCEPackets, FirstTsNs: p.Summary.FirstTsNs, LastTsNs: p.Summary.LastTsNs})
	}
	r.Hops = make([]HopReport, 0, len(hops))
	var evs []EventReport
	ids := map[flows.Key]*string{}
	pf := pointFinder{}
	for _, h := range hops {
		id := ids[h.Flow]
		if id == nil {
			id = ptr(h.Flow.String())
			ids[h.Flow] = id
		}
		from, to := pts[h.From].Name, pts[h.To].Name
		r.Hops = append(r.Hops, HopReport{From: from, To: to, Flow: *id, Matched: h.Matched, Lost: h.Lost,
			UnseenUpstream: h.UnseenUpstream, Delay: LatencySummary(h.Delay)})
		for _, f := range h.LostFrames {
			evs = append(evs, EventReport{Kind: flows.EventHopLoss.String(), TsNs: f.TsNs, Flow: id,
				From: ptr(from), To: ptr(to), PSN: ptr(f.PSN), OpcodeName: ptr(f.Opcode.String())})
		}
		pf.hop(id, from, to, h)
	}
	order := flowOrder(t)
	r.Events = mergeEvents(r.Events, evs, order)
	r.Findings = append(r.Findings, pf.out...)
	sortFindingsBy(r.Findings, order)
}

// flowOrder maps flow ids to first-seen indexes in t.
func flowOrder(t *flows.Table) map[string]int {
	order := make(map[string]int, len(t.Flows()))
	for _, f := range t.Flows() {
		order[f.ID()] = f.Index()
	}
	return order
}

// flowRank is the sort rank of a flow id: capture-wide (nil) first, then the
// reference point's first-seen order, then flows it does not have.
func flowRank(order map[string]int, id *string) int {
	if id == nil {
		return -1
	}
	if i, ok := order[*id]; ok {
		return i
	}
	return len(order)
}

// mergeEvents inserts the hop_loss events into evs, keeping the order
// ts_ns, flow (first-seen; flows the reference lacks, then pause events with
// no flow, last), kind (hop_loss after every other kind).
func mergeEvents(evs, add []EventReport, order map[string]int) []EventReport {
	if len(add) == 0 {
		return evs
	}
	rank := func(e *EventReport) int {
		if e.Flow == nil {
			return len(order) + 1
		}
		return flowRank(order, e.Flow)
	}
	slices.SortStableFunc(add, func(a, b EventReport) int {
		if c := cmp.Compare(a.TsNs, b.TsNs); c != 0 {
			return c
		}
		return cmp.Compare(rank(&a), rank(&b))
	})
	out := make([]EventReport, 0, len(evs)+len(add))
	i := 0
	for j := range add {
		a := &add[j]
		for i < len(evs) && (evs[i].TsNs < a.TsNs || evs[i].TsNs == a.TsNs && rank(&evs[i]) <= rank(a)) {
			out = append(out, evs[i])
			i++
		}
		out = append(out, *a)
	}
	return append(out, evs[i:]...)
}

// sortFindingsBy sorts findings as Build does (severity, flow, code), with
// flow ranks from order.
func sortFindingsBy(out []Finding, order map[string]int) {
	sortFindingsRanked(out, func(flow *string) int { return flowRank(order, flow) })
}
