package engine

import (
	"context"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/points"
)

// Points analyses several capture points in one pass: the files of every
// point are read in one time-ordered merge (one Inputs), each frame goes to
// its point's own Engine (the files of one point are merged as always) and
// to a points.Matcher that correlates the points' frames.
type Points struct {
	Names   []string   // point names, argument order
	Files   [][]string // each point's files
	Engines []*Engine  // one per point; Engines[0] is the reference
	Matcher *points.Matcher
	pointOf []int // by file index of the Inputs: the point
}

// NewPoints returns the engines of the points names, whose files are files
// (the Inputs to Run must be opened on the concatenation of files, in this
// order).
func NewPoints(cfg Config, names []string, files [][]string) *Points {
	ps := &Points{Names: names, Files: files, Matcher: points.NewMatcher(len(names), 0)}
	for i, fs := range files {
		ps.Engines = append(ps.Engines, New(cfg))
		for range fs {
			ps.pointOf = append(ps.pointOf, i)
		}
	}
	return ps
}

// Paths returns the files of every point, concatenated: the paths to open.
func (ps *Points) Paths() []string {
	var out []string
	for _, fs := range ps.Files {
		out = append(out, fs...)
	}
	return out
}

// PointObserver is an Observer that is told the frame's point.
type PointObserver func(point int, p *decode.Packet, f *flows.Flow) error

// Run reads in (opened on Paths), observes each frame on its point's
// engine, matches it, and passes it to obs (nil: none). Errors as Engine.Run;
// the reference engine's Config.Idle is called as Engine.Run calls it.
func (ps *Points) Run(ctx context.Context, in *Inputs, obs PointObserver) error {
	var obsErr error
	sctx := &stopContext{Context: ctx}
	err := batches(sctx, in, ps.Engines[0].cfg.Decode, func(batch []decode.Packet, _ []uint64) {
		for i := range batch {
			p := &batch[i]
			pt := ps.pointOf[p.File]
			f, kept := ps.Engines[pt].Observe(p)
			if !kept {
				continue
			}
			ps.Matcher.Observe(pt, p)
			if obs == nil || obsErr != nil {
				continue
			}
			if obsErr = obs(pt, p, f); obsErr != nil {
				sctx.stop.Store(true)
			}
		}
	}, ps.Engines[0].cfg.Idle)
	if obsErr != nil {
		return obsErr
	}
	return err
}

// Frames returns the frames every engine counted or filtered out.
func (ps *Points) Frames() int64 {
	var n int64
	for _, e := range ps.Engines {
		n += e.Frames() + e.Filtered()
	}
	return n
}

// Report builds the reference point's report and adds the points, hops,
// hop_loss events and their findings (analysis.AddPoints). interrupted is
// the Inputs' Interrupted.
func (ps *Points) Report(interrupted bool, opts analysis.Options) analysis.Report {
	pts := make([]analysis.Point, len(ps.Engines))
	for i, e := range ps.Engines {
		pts[i] = analysis.Point{Name: ps.Names[i], Summary: e.Summary(ps.Files[i])}
	}
	ref := pts[0].Summary
	ref.Interrupted = interrupted
	rep := ps.Engines[0].Report(ref, opts)
	analysis.AddPoints(&rep, ps.Engines[0].Table(), pts, ps.Matcher.Finish())
	return rep
}

// SameTraffic is the Observer part of the same_traffic_in_several_files
// check for plain FILE arguments (more than one file): Observe every kept
// frame, then Add to the report.
type SameTraffic struct {
	s     *points.Shared
	files []string
}

// NewSameTraffic returns the check for the files (nil when there is only
// one: nothing to compare).
func NewSameTraffic(files []string) *SameTraffic {
	if len(files) < 2 {
		return nil
	}
	return &SameTraffic{s: points.NewShared(len(files)), files: files}
}

// Observe is an Observer (it never fails).
func (st *SameTraffic) Observe(p *decode.Packet, _ *flows.Flow) error {
	st.s.Observe(p.File, p)
	return nil
}

// Add adds the findings to rep, built from t; it reports whether there was
// any (the caller then suggests --point on stderr).
func (st *SameTraffic) Add(rep *analysis.Report, t *flows.Table) bool {
	roce, pairs := st.s.Finish()
	return analysis.AddSameTraffic(rep, t, st.files, roce, pairs)
}
