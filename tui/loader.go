package tui

// The loader: the goroutine that runs the engine over the inputs, indexes
// every frame (index.go, frameflows.go, flowacc.go), builds interim reports
// spaced by their cost, and publishes Snapshots for the views.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
)

// built is a report built in the background.
type built struct {
	report    *analysis.Report
	flowIndex map[string]int
	frames    int64
}

// loader is the state of one loading run (the loader goroutine's alone).
type loader struct {
	m          *Model
	eng        *engine.Engine
	index      *packetIndex
	layouts    [][]engine.LayoutPoint // live only: the recording's (files: the inputs track theirs)
	frameFlows frameFlows             // each frame's flow
	flows      int                    // flows seen
	flowLists  *flowLists             // the frame lists made for the snapshots
	pfcFrames  FrameList
	tl         timelines
	nEvents    int
	read       []int64 // per file: bytes up to the end of the last record
	errs       []error // the loader's own errors (the inputs keep theirs)
	started    time.Time
	prev       *Snapshot
	lastPub    time.Time
	flowsPub   time.Time // when publish last copied the per-flow series (flowsDue)
	flowsWidth int64     // the timeline's bucket width then

	// Background report builds.
	latest     atomic.Pointer[built]
	building   atomic.Bool
	buildWG    sync.WaitGroup
	buildEvery atomic.Int64 // ns between build starts, adapted to their cost
	lastBuild  time.Time

	frameEvents []FrameEvent // the frames that show events (Snapshot.FrameEvents)
	ids         [256]uint32  // frameSeries' flow ids of the frames (index + 1, 0 none); a field: not zeroed a call

	// Capture points (pointsmodel.go): nil without.
	ps          *engine.Points
	point       int           // the point of the frame being observed
	pointFrames [][]FrameList // per point after the reference, per flow index there, its frames
}

func (m *Model) load(ctx context.Context) {
	defer close(m.done)
	n := len(m.cfg.Paths)
	if m.cfg.Live != nil {
		n = 1
	}
	l := &loader{
		m:         m,
		index:     newPacketIndex(n),
		layouts:   make([][]engine.LayoutPoint, n),
		read:      make([]int64, n),
		started:   time.Now(),
		flowLists: new(flowLists),
		prev:      m.cur.Load(),
	}
	fcfg := m.cfg.Flows
	fcfg.LatencySink = l.latencySink(fcfg.LatencySink)
	l.eng = engine.New(engine.Config{Decode: m.cfg.Decode, Flows: fcfg, Keep: m.cfg.Keep, Idle: l.idle})
	l.buildEvery.Store(int64(m.cfg.PublishEvery))
	if m.cfg.Points != nil {
		l.startPoints()
	}
	if m.cfg.Live != nil {
		l.runLive(ctx)
		return
	}
	l.run(ctx)
}

// errIndexFull stops the reading when the packet index cannot take more.
var errIndexFull = errors.New("packet index full")

// run loads the files on the engine's two-core pipeline: the frames reach
// observe on this goroutine, in capture order, already counted and in the
// flow table, as in `rocetrace report`.
func (l *loader) run(ctx context.Context) {
	l.publish(false, false)
	l.lastPub = time.Now()
	var err error
	switch {
	case l.ps != nil:
		err = l.ps.Run(ctx, l.m.in, l.observePoint)
	case l.m.cfg.publishFrames > 0: // tests: snapshots at exact frames
		err = l.eng.Run(ctx, l.m.in, l.observe)
	default:
		err = l.eng.RunBatches(ctx, l.m.in, l.observeBatch)
	}
	canceled := err != nil && err != errIndexFull && ctx.Err() != nil
	if canceled {
		l.buildWG.Wait() // its report stands in for the final one
	}
	// An interim build still running works on its own copy of the table:
	// the final build runs beside it, on the core the pipeline left.
	l.publish(true, canceled)
	l.buildWG.Wait()
}

// observe indexes one frame of the files and publishes a snapshot when it
// is time: every publishFrames frames (tests), or every PublishEvery
// (checked every 1024 frames; see idle for an input that waits).
func (l *loader) observe(p *decode.Packet, f *flows.Flow) error {
	if l.index.n >= maxIndexed {
		return l.indexFull()
	}
	if l.point > 0 {
		l.otherFrame(p, f)
	} else {
		l.frame(p, f)
	}
	i := l.index.n
	if n := l.m.cfg.publishFrames; n > 0 && i%n == 0 {
		l.publish(false, false)
	}
	if i&1023 == 0 && time.Since(l.lastPub) >= l.m.cfg.PublishEvery {
		l.publish(false, false)
		l.lastPub = time.Now()
	}
	return nil
}

// idle publishes the frames not shown yet when the input waits (a pipe or
// FIFO whose writer has written nothing more: engine.Config.Idle), at
// most every PublishEvery: it asks to be called again when that has not
// passed since the last snapshot, and, while the report shown does not
// cover every frame read, until it does (publish starts its build in the
// background, and a later publish shows it).
func (l *loader) idle() time.Duration {
	n := int64(l.index.n)
	if n == l.prev.Progress.Frames && n == l.prev.ReportFrames {
		return 0
	}
	if wait := l.m.cfg.PublishEvery - time.Since(l.lastPub); wait > 0 {
		return wait
	}
	l.flowsPub = time.Time{} // the input waits: the per-flow series too are shown whole
	l.publish(false, false)
	l.lastPub = time.Now()
	if l.prev.ReportFrames != n {
		return l.m.cfg.PublishEvery
	}
	return 0
}

// indexFull records that the index is full and returns errIndexFull.
func (l *loader) indexFull() error {
	l.errs = append(l.errs, fmt.Errorf("more than %d frames: the rest is not shown", l.index.n))
	return errIndexFull
}

// frame adds one frame, already analysed, to the index, the frames' flow
// ids (frameflows.go) and the timelines: observeBatch's work for a batch
// of one (tests' exact publishing, live captures, capture points).
func (l *loader) frame(p *decode.Packet, fl *flows.Flow) {
	pos := uint32(l.index.n)
	l.index.add(p.File, p.Offset)
	if ev := l.eng.Table().FrameEvents(); ev != 0 {
		l.frameEvents = append(l.frameEvents, FrameEvent{Pos: pos, Events: ev})
	}
	l.read[p.File] = recordEnd(p)
	ps, fs := [1]decode.Packet{*p}, [1]*flows.Flow{fl}
	l.frameSeries(ps[:], fs[:], pos)
	l.tl.drainEarly()
	l.newEvents()
}

// event adds an event found by flows to the timelines.
func (l *loader) event(e *flows.Event) {
	switch e.Kind {
	case flows.EventPause:
		l.tl.addSpan(SeriesPaused, e.TsNs, e.EndNs())
	case flows.EventPSNGap, flows.EventRetransmission, flows.EventNAK, flows.EventRNRNAK:
		l.tl.add(SeriesProblems, e.TsNs, 1)
	case flows.EventCNP:
		if e.Target != nil {
			l.tl.addCNP(e.Target.Index(), l.tl.bucket(e.TsNs))
		}
	}
}

func (l *loader) names() []string { return l.m.names() }

// publish stores a new snapshot. While loading it starts a background
// report build when none is running and enough time has passed since the
// last one (buildSpacing times what the last one took, its copy of the
// table included); the final publish builds the final report itself.
func (l *loader) publish(final, canceled bool) {
	m := l.m
	if lv := m.cfg.Live; lv != nil {
		// The index may only point at records that are on disk.
		if err := lv.Recorder.Flush(); err != nil && !m.flushErr {
			m.flushErr = true
			l.errs = append(l.errs, fmt.Errorf("recording %s: %w", lv.RecordingPath, err))
		}
	}
	s := &Snapshot{
		Seq:         l.prev.Seq + 1,
		Live:        m.cfg.Live != nil,
		KernelDrops: m.kernelDrops(),
		Files:       l.names(),
		Index:       l.index.view(),
		PFCFrames:   l.pfcFrames.view(),
		Errors:      l.allErrors(),
		LinkBps:     l.prev.LinkBps,
		FrameEvents: l.frameEvents[:len(l.frameEvents):len(l.frameEvents)],
		frameFlows:  l.frameFlows.view(),
		flows:       l.flows,
		flowLists:   l.flowLists,
	}
	s.layouts = l.currentLayouts()
	var bytesRead int64
	for _, b := range l.read {
		bytesRead += b
	}
	s.Progress = Progress{
		Frames: int64(l.index.n), Bytes: bytesRead, TotalBytes: m.totalBytes(),
		Done: final, Canceled: canceled, Started: l.started, Elapsed: time.Since(l.started),
	}
	if final && canceled {
		// The user quit: the latest report will do, no final build.
		if b := l.latest.Load(); b != nil {
			s.Report, s.FlowIndex, s.ReportFrames = b.report, b.flowIndex, b.frames
		} else {
			s.Report, s.FlowIndex, s.ReportFrames = l.prev.Report, l.prev.FlowIndex, l.prev.ReportFrames
		}
	} else if final {
		r := l.finalReport()
		// Finish closed the open pause and replay episodes and sorted the
		// events: count the event series again from the final list.
		clear(l.tl.tl.V[SeriesPaused][:])
		clear(l.tl.tl.V[SeriesProblems][:])
		l.tl.clearCNPs()
		t := l.eng.Table()
		for i := range t.NumEvents() {
			l.event(t.Event(i))
		}
		s.Report, s.FlowIndex, s.ReportFrames = &r, flowIndex(&r), int64(l.index.n)
		s.Progress.Bytes = max(s.Progress.Bytes, m.totalBytes())
	} else {
		l.maybeBuild(bytesRead, s.Progress.TotalBytes)
		if b := l.latest.Load(); b != nil {
			s.Report, s.FlowIndex, s.ReportFrames = b.report, b.flowIndex, b.frames
		} else {
			s.Report, s.FlowIndex, s.ReportFrames = l.prev.Report, l.prev.FlowIndex, l.prev.ReportFrames
		}
	}
	l.publishPoints(s, final && !canceled)
	s.Timeline = l.tl.tl
	if l.flowsDue(final) {
		s.FlowRates = l.tl.publishFlows(l.prev.FlowRates)
		s.FlowMarks = l.tl.publishMarks(l.prev.FlowMarks)
		l.flowsPub, l.flowsWidth = time.Now(), l.tl.tl.WidthNs
	} else {
		s.FlowRates, s.FlowMarks = l.prev.FlowRates, l.prev.FlowMarks
	}
	l.prev = s
	m.cur.Store(s)
	m.notifyUI()
}

// flowsEvery is the least time between two copies of the per-flow series
// (FlowRates, FlowMarks) into the snapshots while files load: a copy is
// 512 bytes a series, ~4 MB for the 2,000 flows of a bulk capture, and
// copied every PublishEvery it was ~60 MB of garbage on 10M frames.
const flowsEvery = time.Second

// flowsDue reports whether publish copies the per-flow series: always for
// the final snapshot, live captures and tests' exact publishing; while
// files load, at most every flowsEvery (idle's snapshots always), and
// whenever the grid widened since the last copy (a snapshot's series are
// on its Timeline's grid).
func (l *loader) flowsDue(final bool) bool {
	if final || l.m.cfg.Live != nil || l.m.cfg.publishFrames > 0 || l.flowsWidth != l.tl.tl.WidthNs {
		return true
	}
	return time.Since(l.flowsPub) >= flowsEvery
}

// buildSpacing is the least time between the starts of two interim report
// builds, in multiples of what the last one took (the table's copy on the
// loader goroutine and the build on another): builds take at most 1/16 of
// the loading time. Both cores run the pipeline, so a build's time is taken
// from it (at a ninth, 8, the builds of a 10M-frame capture cost ~1.2 s of
// CPU against ~4 s for the whole of `report`).
const buildSpacing = 16

// maybeBuild starts a background build of the report so far, unless the
// files (read bytes of total, 0: unknown) are expected to be read before
// the spacing after it would pass: the final report then comes first, and
// a build started near the end only takes from it the core it would have
// (measured on 10M frames: one started at 96% of the file, slowed by the
// pipeline it shares the cores with, ran 0.5 s, and the final build waited
// for it).
func (l *loader) maybeBuild(read, total int64) {
	if l.index.n == 0 || l.building.Load() {
		return
	}
	if l.m.cfg.publishFrames > 0 {
		r := analysis.Build(l.eng.Table().Clone(), l.summary(), l.m.cfg.Analysis)
		l.latest.Store(&built{report: &r, flowIndex: flowIndex(&r), frames: int64(l.index.n)})
		return
	}
	every := time.Duration(l.buildEvery.Load())
	if time.Since(l.lastBuild) < every || endsWithin(time.Since(l.started), read, total, every) {
		return
	}
	l.building.Store(true)
	start := time.Now()
	l.lastBuild = start
	clone := l.eng.Table().Clone() // on the loader goroutine: part of the cost

	sum := l.summary()
	frames := int64(l.index.n)
	opts := l.m.cfg.Analysis
	l.buildWG.Add(1)
	go func() {
		defer l.buildWG.Done()
		r := analysis.Build(clone, sum, opts)
		l.latest.Store(&built{report: &r, flowIndex: flowIndex(&r), frames: frames})
		l.buildEvery.Store(max(int64(l.m.cfg.PublishEvery), buildSpacing*int64(time.Since(start))))
		l.building.Store(false)
	}()
}

// endsWithin reports whether a load that has read read bytes of total in
// elapsed is expected to end within d, at the same speed.
func endsWithin(elapsed time.Duration, read, total int64, d time.Duration) bool {
	if read <= 0 || total <= read {
		return false
	}
	left := float64(elapsed) * float64(total-read) / float64(read)
	return left < float64(d)
}

// allErrors returns the inputs' errors (files that could not be opened,
// damage), then the loader's own.
func (l *loader) allErrors() []error {
	var errs []error
	if l.m.in != nil {
		errs = l.m.in.Errors()
	}
	return append(errs, l.errs...)
}

// currentLayouts returns the record layouts of the frames indexed so far:
// the recording's (live) or those the inputs tracked.
func (l *loader) currentLayouts() [][]engine.LayoutPoint {
	if l.m.in != nil {
		return l.m.in.Layouts()
	}
	out := make([][]engine.LayoutPoint, len(l.layouts))
	for i, lp := range l.layouts {
		out[i] = lp[:len(lp):len(lp)]
	}
	return out
}
