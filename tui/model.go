package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Config configures a Model.
type Config struct {
	Paths    []string // capture files, merged in timestamp order
	Decode   decode.Config
	Flows    flows.Config
	Analysis analysis.Options
	// PublishEvery is the least time between two snapshots while loading
	// (default 200 ms).
	PublishEvery time.Duration
	// Live, when set, makes the model show a live capture instead of
	// Paths; snapshots then come at least every second (PublishEvery at
	// most 1 s).
	Live *Live

	// Tests: publish every publishFrames frames, building the report on
	// the loader goroutine (deterministic snapshots).
	publishFrames int

	// Keep is the read filter (-R; engine.Config.Keep), nil for none.
	Keep func(p *decode.Packet) bool
	// DisplayFilter is the packets view's filter at start (-Y), in the
	// filter language (pktfilter.go).
	DisplayFilter string
	// Points, when set, are capture points (--point; Paths must then be
	// empty: Open sets it to every point's files, in order). The model runs
	// engine.Points: the reference (first) point drives the report and the
	// views, every point's frames are in the packet index (pointsmodel.go).
	Points []PointFiles
}

// Progress tells how far loading is.
type Progress struct {
	Frames     int64 // frames read
	Bytes      int64 // bytes of input read (up to the last record read)
	TotalBytes int64 // size of the inputs, 0 when unknown
	Done       bool  // every input has ended (or failed), the final report is built
	Canceled   bool  // loading stopped early (the UI quit)
	Started    time.Time
	Elapsed    time.Duration // time spent loading so far (in all when Done)
}

// Fraction returns how much of the input is read, 0..1.
func (p Progress) Fraction() float64 {
	if p.Done {
		return 1
	}
	if p.TotalBytes <= 0 {
		return 0
	}
	return min(1, float64(p.Bytes)/float64(p.TotalBytes))
}

// Snapshot is what the loader publishes: an immutable view of the capture
// read so far. Everything in it may be read from any goroutine; nothing in
// it changes after publication.
type Snapshot struct {
	Seq      uint64
	Files    []string
	Progress Progress
	// Report is the analysis of the first ReportFrames frames (nil before
	// the first one is built). While loading, it is built from a copy of the
	// flow table (flows.Table.Clone), so that the real table goes on; once
	// Done it is the final report, the same `rocetrace report` prints.
	Report       *analysis.Report
	ReportFrames int64
	FlowIndex    map[string]int // Report flow id -> index in Report.Flows
	Index        IndexView      // every frame read
	PFCFrames    FrameList      // PFC and PAUSE frames (Index positions)
	Timeline     Timeline
	FlowRates    []*FlowRate // per flow; nil for flows past maxFlowRates
	Errors       []error     // input errors so far: files that could not be opened, damage
	LinkBps      int64       // link speed used for PFC quanta
	// Live capture: Live is set; Progress.Frames counts the frames
	// captured, Done means the capture has stopped, KernelDrops is what
	// the capture lost so far.
	Live        bool
	KernelDrops int64
	layouts     [][]engine.LayoutPoint
	// FrameEvents are the frames that show events (Index positions,
	// ascending) with their kinds: the `events` packet field (EventsAt).
	FrameEvents []FrameEvent
	// Capture points (Config.Points; nil without): their names, and per
	// point after the reference its flows' frames (pointsmodel.go).
	PointNames  []string
	PointFrames [][]FrameList // [point][flow index at that point] Index positions; [0] is nil (FlowFramesOf)
	pointFlows  []map[string]int
	// FlowMarks are per flow (as FlowRates) the CNPs that target it and its
	// latency over time (flowmarks.go); nil for flows without any.
	FlowMarks []*FlowMarks

	// Each frame's flow (frameflows.go), the flows seen, the frame lists
	// made from them (FlowFramesOf).
	frameFlows frameFlows
	flows      int
	flowLists  *flowLists
}

// FlowFramesOf returns the frames (Index positions) of flow i (first-seen
// order, as Report.Flows); empty when unknown. The list is made from the
// frames' flow ids when first asked for (frameflows.go) and cached.
func (s *Snapshot) FlowFramesOf(i int) FrameList {
	if i < 0 || i >= s.flows || s.flowLists == nil {
		return FrameList{}
	}
	return s.flowLists.get(s.frameFlows, i)
}

// FlowRate returns flow i's rate timeline, or nil.
func (s *Snapshot) FlowRate(i int) *FlowRate {
	if i < 0 || i >= len(s.FlowRates) {
		return nil
	}
	return s.FlowRates[i]
}

// Model reads the captures in a background goroutine (Start) and publishes
// Snapshots. It computes nothing itself: frames go through decode, flows
// and analysis exactly as in `rocetrace report`; the model only keeps the
// packet index, the frame lists and the timeline counters a viewer needs.
type Model struct {
	cfg   Config
	in    *engine.Inputs // files: the opened inputs (nil live)
	files []*os.File     // second handle per file, for random access

	liveLayout *pcapio.Layout // live: the recording's layout
	flushErr   bool           // live: a recording flush failed (reported once)

	ready func() // tests: called once the UI has drawn its first screen

	cur    atomic.Pointer[Snapshot]
	notify atomic.Pointer[func()]
	done   chan struct{}
	start  sync.Once

	closeOnce sync.Once
	closeErr  error
}

// Open opens every capture. A file that cannot be opened is reported in
// the snapshots' Errors and left out; Open fails only when none can be
// opened (or when there are more files than the index can name).
func Open(cfg Config) (*Model, error) { return OpenContext(context.Background(), cfg) }

// OpenContext is Open that gives up when ctx ends while a file is being
// opened (engine.OpenContext: the open(2) of a FIFO that has no writer, the
// header of a stalled pipe): it then returns no model and an error that
// says where ("interrupted after 0 frames (FILE, byte offset 0)") and
// matches ctx's (errors.Is(err, context.Canceled)).
func OpenContext(ctx context.Context, cfg Config) (*Model, error) {
	if cfg.Live != nil {
		return openLive(cfg)
	}
	if cfg.Points != nil {
		cfg.Paths = pointPaths(cfg.Points)
	}
	if len(cfg.Paths) > maxFiles {
		return nil, errTooManyFiles
	}
	if cfg.PublishEvery <= 0 {
		cfg.PublishEvery = 200 * time.Millisecond
	}
	m := &Model{
		cfg:   cfg,
		files: make([]*os.File, len(cfg.Paths)),
		done:  make(chan struct{}),
	}
	// The same inputs as `rocetrace report`: memory-mapped where that
	// pays; and a second handle per regular file for the packets pane (a
	// pipe or FIFO cannot be read again: opened a second time, a FIFO
	// whose writer has gone would block for ever).
	m.in = engine.OpenContext(ctx, cfg.Paths)
	if m.in.Interrupted() {
		err := &openInterrupted{msg: m.in.Interruption(0), err: ctx.Err()}
		m.Close()
		return nil, err
	}
	for i, path := range cfg.Paths {
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue // recorded by the inputs' own open
		}
		m.files[i] = f
	}
	m.in.TrackLayouts()
	if m.in.Opened() == 0 {
		openErrs := m.in.Errors()
		m.Close()
		return nil, errors.Join(openErrs...)
	}
	bps := cfg.Flows.LinkSpeedBps
	if bps <= 0 {
		bps = flows.DefaultLinkSpeedBps
	}
	m.cur.Store(&Snapshot{
		Files:    cfg.Paths,
		Progress: Progress{TotalBytes: m.in.Size()},
		Errors:   m.in.Errors(),
		LinkBps:  bps,
		// Capture points: the views know them from the first snapshot.
		PointNames: pointNames(cfg.Points),
	})
	return m, nil
}

// openInterrupted is the error of an OpenContext that ctx ended: its
// message is the inputs' Interruption, it unwraps to ctx's error.
type openInterrupted struct {
	msg string
	err error
}

func (e *openInterrupted) Error() string { return e.msg }
func (e *openInterrupted) Unwrap() error { return e.err }

// SetNotify sets a function the model calls (from its goroutines) after
// each new snapshot. It must not block.
func (m *Model) SetNotify(f func()) { m.notify.Store(&f) }

func (m *Model) notifyUI() {
	if f := m.notify.Load(); f != nil {
		(*f)()
	}
}

// Snapshot returns the latest snapshot.
func (m *Model) Snapshot() *Snapshot { return m.cur.Load() }

// Start starts loading in a background goroutine; it stops early when ctx
// is cancelled. Start does nothing the second time.
func (m *Model) Start(ctx context.Context) {
	m.start.Do(func() { go m.load(ctx) })
}

// Done is closed when loading has ended and the last snapshot is
// published.
func (m *Model) Done() <-chan struct{} { return m.done }

// Close closes the files. Call it after Done; a second call does nothing
// and returns the first's result.
func (m *Model) Close() error {
	m.closeOnce.Do(func() { m.closeErr = m.close() })
	return m.closeErr
}

func (m *Model) close() error {
	var errs []error
	if m.in != nil {
		if err := m.in.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range m.files {
		if f != nil {
			if err := f.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// readersAt returns the random-access handles by file index.
func (m *Model) readersAt() []io.ReaderAt {
	out := make([]io.ReaderAt, len(m.files))
	for i, f := range m.files {
		if f != nil {
			out[i] = f
		}
	}
	return out
}

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

	// Background report builds.
	latest     atomic.Pointer[built]
	building   atomic.Bool
	buildWG    sync.WaitGroup
	buildEvery atomic.Int64 // ns between build starts, adapted to their cost
	lastBuild  time.Time

	frameEvents []FrameEvent // the frames that show events (Snapshot.FrameEvents)

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
	l.eng = engine.New(engine.Config{Decode: m.cfg.Decode, Flows: fcfg, Keep: m.cfg.Keep})
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
	if l.ps != nil {
		err = l.ps.Run(ctx, l.m.in, l.observePoint)
	} else {
		err = l.eng.Run(ctx, l.m.in, l.observe)
	}
	canceled := err != nil && err != errIndexFull && ctx.Err() != nil
	l.buildWG.Wait()
	l.publish(true, canceled)
}

// observe indexes one frame of the files and publishes a snapshot when it
// is time: every publishFrames frames (tests), or every PublishEvery
// (checked every 1024 frames).
func (l *loader) observe(p *decode.Packet, f *flows.Flow) error {
	if l.index.n >= 1<<32-1 {
		l.errs = append(l.errs, fmt.Errorf("more than %d frames: the rest is not shown", l.index.n))
		return errIndexFull
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

// frame adds one frame, already analysed, to the index, the frames' flow
// ids (frameflows.go) and the timelines.
func (l *loader) frame(p *decode.Packet, fl *flows.Flow) {
	pos := uint32(l.index.n)
	l.index.add(p.File, p.Offset)
	if ev := l.eng.Table().FrameEvents(); ev != 0 {
		l.frameEvents = append(l.frameEvents, FrameEvent{Pos: pos, Events: ev})
	}
	l.read[p.File] = p.Offset + int64(p.CapLen) + 16

	ts := p.TsNs
	b := l.tl.bucket(ts)
	l.tl.tl.EndNs = max(l.tl.tl.EndNs, ts)
	v := &l.tl.tl.V
	v[SeriesBytes][b] += int64(p.Len)
	v[SeriesPackets][b]++
	var id uint32 // the frame's flow index + 1, 0 none
	switch p.Kind {
	case decode.KindRoCE, decode.KindCNP:
		if p.ECN == 3 && p.IPVersion != 0 {
			v[SeriesCE][b]++
		}
		if p.Kind == decode.KindCNP {
			v[SeriesCNP][b]++
		}
		if fl != nil {
			i := fl.Index()
			id = uint32(i) + 1
			l.flows = max(l.flows, i+1)
			l.tl.addFlowAt(i, b, int64(p.FrameLen))
		}
	case decode.KindPFC, decode.KindPause:
		l.pfcFrames.add(pos)
	case decode.KindOther:
	}
	l.frameFlows.add(id)
	if t := l.eng.Table(); t.NumEvents() > l.nEvents {
		for i := l.nEvents; i < t.NumEvents(); i++ {
			l.event(t.Event(i))
		}
		l.nEvents = t.NumEvents()
	}
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
		l.maybeBuild()
		if b := l.latest.Load(); b != nil {
			s.Report, s.FlowIndex, s.ReportFrames = b.report, b.flowIndex, b.frames
		} else {
			s.Report, s.FlowIndex, s.ReportFrames = l.prev.Report, l.prev.FlowIndex, l.prev.ReportFrames
		}
	}
	l.publishPoints(s, final && !canceled)
	s.Timeline = l.tl.tl
	s.FlowRates = l.tl.publishFlows(l.prev.FlowRates)
	s.FlowMarks = l.tl.publishMarks(l.prev.FlowMarks)
	l.prev = s
	m.cur.Store(s)
	m.notifyUI()
}

// buildSpacing is the least time between the starts of two interim report
// builds, in multiples of what the last one took (the table's copy on the
// loader goroutine and the build on another): builds take at most 1/16 of
// the loading time. Both cores run the pipeline, so a build's time is taken
// from it (at a ninth, 8, the builds of a 10M-frame capture cost ~1.2 s of
// CPU against ~4 s for the whole of `report`).
const buildSpacing = 16

// maybeBuild starts a background build of the report so far.
func (l *loader) maybeBuild() {
	if l.index.n == 0 || l.building.Load() {
		return
	}
	if l.m.cfg.publishFrames > 0 {
		r := analysis.Build(l.eng.Table().Clone(), l.summary(), l.m.cfg.Analysis)
		l.latest.Store(&built{report: &r, flowIndex: flowIndex(&r), frames: int64(l.index.n)})
		return
	}
	if time.Since(l.lastBuild) < time.Duration(l.buildEvery.Load()) {
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

// totalBytes returns the size of the inputs (0 live).
func (m *Model) totalBytes() int64 {
	if m.in == nil {
		return 0
	}
	return m.in.Size()
}

func flowIndex(r *analysis.Report) map[string]int {
	m := make(map[string]int, len(r.Flows))
	for i := range r.Flows {
		m[r.Flows[i].ID] = i
	}
	return m
}
