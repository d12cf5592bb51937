package tui

import (
	"context"
	"errors"
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
	// FlowRates (and FlowMarks) are on Timeline's grid; while files load
	// they may be up to a second (flowsEvery) older than Timeline.
	FlowRates []*FlowRate // per flow; nil for flows past maxFlowRates
	Errors    []error     // input errors so far: files that could not be opened, damage
	LinkBps   int64       // link speed used for PFC quanta
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
