package tui

import (
	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
)

// Capture points in the model (Config.Points, `tui --point`). The loader
// runs engine.Points over one time-ordered merge of every point's files:
// each frame goes to its point's engine and to the matcher. The reference
// (first) point is the model's engine: its frames fill the flow frame
// lists, the PFC list and the timelines, and the report is its report plus
// the points, hops and hop_loss events (engine.Points.Report), exactly as
// `rocetrace report --point`. The packet index holds every point's frames
// in that merged order (the packets view lists them all, "FILE:FRAME"
// naming the file and so the point), each with the events of its own
// point's engine (as packets.parquet's rows with --point). The frames of
// the other points' flows are kept per point (Snapshot.PointFrames,
// delta-encoded FrameLists: about 2 bytes a RoCE frame), so that a hop's lost frames,
// which are frames of its `from` point, can be found (Pager.Resolve).
// Interim reports are the reference's alone: the matcher cannot be copied,
// so the points and hops appear with the final report.

// PointFiles is one capture point: its name and its files.
type PointFiles struct {
	Name  string
	Files []string
}

// pointPaths returns every point's files, concatenated in order (the
// paths engine.Points opens).
func pointPaths(pts []PointFiles) []string {
	var out []string
	for _, p := range pts {
		out = append(out, p.Files...)
	}
	return out
}

// pointNames returns the points' names (nil for none).
func pointNames(pts []PointFiles) []string {
	if len(pts) == 0 {
		return nil
	}
	out := make([]string, len(pts))
	for i, p := range pts {
		out[i] = p.Name
	}
	return out
}

// startPoints makes the loader run engine.Points; the reference point's
// engine becomes the loader's engine.
func (l *loader) startPoints() {
	pts := l.m.cfg.Points
	files := make([][]string, len(pts))
	for i, p := range pts {
		files[i] = p.Files
	}
	ecfg := engine.Config{Decode: l.m.cfg.Decode, Flows: l.m.cfg.Flows, Keep: l.m.cfg.Keep, Idle: l.idle}
	l.ps = engine.NewPoints(ecfg, pointNames(pts), files)
	// The reference point's engine feeds the flows' latency series, as
	// without points (the other points' flows are not the views' flows).
	ref := ecfg
	ref.Flows.LatencySink = l.latencySink(l.m.cfg.Flows.LatencySink)
	l.ps.Engines[0] = engine.New(ref)
	l.eng = l.ps.Engines[0]
	l.pointFrames = make([][]FrameList, len(pts))
}

// observePoint is the engine.PointObserver: observe, told the point.
func (l *loader) observePoint(point int, p *decode.Packet, f *flows.Flow) error {
	l.point = point
	return l.observe(p, f)
}

// otherFrame indexes a frame of a point other than the reference: its
// place in the index, the events its own point's engine found on it, and
// its place in that point's flow frame list. It adds nothing to the
// timelines (they are the reference's, as the report).
func (l *loader) otherFrame(p *decode.Packet, fl *flows.Flow) {
	pos := uint32(l.index.n)
	l.index.add(p.File, p.Offset)
	if ev := l.ps.Engines[l.point].Table().FrameEvents(); ev != 0 {
		l.frameEvents = append(l.frameEvents, FrameEvent{Pos: pos, Events: ev})
	}
	l.read[p.File] = recordEnd(p)
	l.frameFlows.add(0) // not a reference flow's
	if fl == nil || (p.Kind != decode.KindRoCE && p.Kind != decode.KindCNP) {
		return
	}
	lists := l.pointFrames[l.point]
	i := fl.Index()
	for len(lists) <= i {
		lists = append(lists, FrameList{})
	}
	lists[i].add(pos)
	l.pointFrames[l.point] = lists
}

// finalReport is the final report: the engine's, or with points the
// reference's with the points and hops.
func (l *loader) finalReport() analysis.Report {
	if l.ps != nil {
		return l.ps.Report(false, l.m.cfg.Analysis)
	}
	return l.eng.Report(l.summary(), l.m.cfg.Analysis)
}

// publishPoints adds the points' data to snapshot s: the frame lists so
// far and, once the final report is built, each point's flow ids.
func (l *loader) publishPoints(s *Snapshot, final bool) {
	if l.ps == nil {
		return
	}
	s.PointNames = l.ps.Names
	s.PointFrames = make([][]FrameList, len(l.pointFrames))
	for pt, lists := range l.pointFrames {
		if pt == 0 {
			continue
		}
		out := make([]FrameList, len(lists))
		for i := range lists {
			out[i] = lists[i].view()
		}
		s.PointFrames[pt] = out
	}
	if !final {
		return
	}
	s.pointFlows = make([]map[string]int, len(l.ps.Engines))
	for pt, e := range l.ps.Engines {
		if pt == 0 {
			continue
		}
		ids := make(map[string]int, len(e.Table().Flows()))
		for _, f := range e.Table().Flows() {
			ids[f.ID()] = f.Index()
		}
		s.pointFlows[pt] = ids
	}
}

// pointFlowFrames returns the frames of flow id at the point named point
// (the reference's from FlowFramesOf), empty when unknown.
func (s *Snapshot) pointFlowFrames(point, id string) FrameList {
	for pt, name := range s.PointNames {
		if name != point {
			continue
		}
		if pt == 0 {
			i, ok := s.FlowIndex[id]
			if !ok {
				return FrameList{}
			}
			return s.FlowFramesOf(i)
		}
		if pt >= len(s.pointFlows) || pt >= len(s.PointFrames) {
			return FrameList{}
		}
		i, ok := s.pointFlows[pt][id]
		if !ok || i >= len(s.PointFrames[pt]) {
			return FrameList{}
		}
		return s.PointFrames[pt][i]
	}
	return FrameList{}
}
