package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// fakeSource plays a live capture: it yields frames one by one, pausing
// where told, then blocks until stopped.
type fakeSource struct {
	frames  []synth.Frame
	gate    map[int]chan struct{} // before frame i, wait for the channel
	delay   time.Duration
	i       int
	stop    chan struct{}
	once    sync.Once
	stopped atomic.Bool
}

func newFakeSource(frames []synth.Frame, delay time.Duration) *fakeSource {
	return &fakeSource{frames: frames, delay: delay, gate: map[int]chan struct{}{}, stop: make(chan struct{})}
}

func (f *fakeSource) Next(rec *pcapio.Record) error {
	if f.i >= len(f.frames) {
		<-f.stop
		return io.EOF
	}
	if g := f.gate[f.i]; g != nil {
		select {
		case <-g:
		case <-f.stop:
			return io.EOF
		}
	}
	select {
	case <-f.stop:
		return io.EOF
	case <-time.After(f.delay):
	}
	fr := f.frames[f.i]
	f.i++
	*rec = pcapio.Record{Data: fr.Data, TsNs: fr.TsNs, CapLen: len(fr.Data), Len: max(fr.Len, len(fr.Data)), LinkType: pcapio.LinkTypeEthernet, Frame: uint64(f.i)}
	return nil
}

func (f *fakeSource) Stop() {
	f.once.Do(func() { close(f.stop); f.stopped.Store(true) })
}

// liveModel opens a live model over src recording to a temporary pcapng.
func liveModel(t *testing.T, src *fakeSource, drops func() uint64, every time.Duration) (*Model, *capture.Writer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.pcapng")
	w, err := capture.NewWriter(capture.WriterOptions{Path: path, Interface: "fake0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	m, err := Open(Config{
		PublishEvery: every,
		Live: &Live{Name: "live:fake0", Source: src, Stop: src.Stop, Recorder: w,
			RecordingPath: path, KernelDrops: drops},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, w
}

// offline analyses frames as `rocetrace report` would a file of them.
func offline(frames []synth.Frame, name string, drops int64) analysis.Report {
	dec := decode.NewDecoder(decode.Config{})
	table := flows.NewTable(flows.Config{})
	var (
		c analysis.Counter
		p decode.Packet
	)
	for i, fr := range frames {
		rec := pcapio.Record{Data: fr.Data, TsNs: fr.TsNs, CapLen: len(fr.Data), Len: max(fr.Len, len(fr.Data)), LinkType: pcapio.LinkTypeEthernet, Frame: uint64(i + 1)}
		dec.DecodeRecord(&rec, &p)
		c.Observe(&p)
		table.Observe(&p)
	}
	s := c.Summary([]string{name})
	s.KernelDrops = drops
	return analysis.Build(table, s, analysis.Options{})
}

func waitSnap(t *testing.T, m *Model, what string, ok func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := m.Snapshot()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot with %s (last: seq %d, %d frames, report of %d, done %v)",
				what, s.Seq, s.Progress.Frames, s.ReportFrames, s.Progress.Done)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A live capture publishes snapshots while it runs, every PublishEvery
// even when no frame arrives; when the source ends, the final snapshot
// holds the offline analysis of the same frames, kernel drops included,
// and the packets pane reads every frame back from the recording.
func TestLiveModel(t *testing.T) {
	c := synth.LossNAKReplay()
	c.Sort()
	frames := c.Frames
	half := len(frames) / 2
	src := newFakeSource(frames, time.Millisecond)
	gate := make(chan struct{})
	src.gate[half] = gate
	var drops atomic.Uint64
	m, _ := liveModel(t, src, func() uint64 { return drops.Load() }, 20*time.Millisecond)
	defer m.Close()
	if s := m.Snapshot(); !s.Live || s.Files[0] != "live:fake0" {
		t.Fatalf("first snapshot: live %v, files %v", s.Live, s.Files)
	}
	m.Start(context.Background())

	// Half the frames, then silence: the ticker still publishes, and the
	// background build catches up with the frames.
	s := waitSnap(t, m, "half the frames analysed", func(s *Snapshot) bool { return s.ReportFrames == int64(half) })
	if s.Progress.Done || s.Report.Capture.Packets != int64(half) {
		t.Fatalf("while capturing: done %v, report of %d packets", s.Progress.Done, s.Report.Capture.Packets)
	}
	seq := s.Seq
	drops.Store(2)
	s = waitSnap(t, m, "more ticks while idle", func(s *Snapshot) bool { return s.Seq >= seq+3 })
	if s.Progress.Frames != int64(half) || s.KernelDrops != 2 {
		t.Fatalf("idle: %d frames, %d drops", s.Progress.Frames, s.KernelDrops)
	}

	close(gate)
	waitSnap(t, m, "every frame captured", func(s *Snapshot) bool { return s.Progress.Frames == int64(len(frames)) })
	if m.Snapshot().Progress.Done {
		t.Fatal("done before the source stopped")
	}
	src.Stop() // the capture ends (count, duration): a final report
	select {
	case <-m.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the loader did not end")
	}
	s = m.Snapshot()
	if !s.Progress.Done || s.Progress.Canceled || len(s.Errors) != 0 {
		t.Fatalf("final: done %v canceled %v errors %v", s.Progress.Done, s.Progress.Canceled, s.Errors)
	}
	want := offline(frames, "live:fake0", 2)
	if !reflect.DeepEqual(*s.Report, want) {
		t.Fatalf("final live report differs from the offline one:\ngot  %+v\nwant %+v", s.Report.Capture, want.Capture)
	}
	if want.Capture.KernelDrops != 2 {
		t.Fatal("kernel drops not in the summary")
	}

	// The packets pane reads the frames back from the recording.
	pg := NewPager(m.readersAt(), m.pagerNames(), decode.Config{}, s.LinkBps, nil)
	for i := range frames {
		var (
			rec pcapio.Record
			p   decode.Packet
		)
		if _, err := pg.read(s, i, &rec, &p, nil); err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		if !bytes.Equal(rec.Data, frames[i].Data) || rec.TsNs != frames[i].TsNs || rec.Frame != uint64(i+1) {
			t.Fatalf("frame %d read back differs", i+1)
		}
	}
}

// The terminal UI over a live capture: the status bar says so, counts
// frames and drops; q stops the source and Run returns with no error.
func TestLiveRunQuit(t *testing.T) {
	c := synth.LossNAKReplay()
	c.Sort()
	src := newFakeSource(c.Frames, 0)
	m, _ := liveModel(t, src, func() uint64 { return 1 }, 0)
	ra := startModel(t, context.Background(), m)
	ra.waitFor("live: fake0", "capturing 23 frames, 1 kernel drop", "10.0.0.1>10.0.0.2:qp0x000022")
	if src.stopped.Load() {
		t.Fatal("stopped early")
	}
	ra.key(tcell.KeyRune, 'q')
	ra.wait()
	if ra.err != nil || len(ra.errs) != 0 {
		t.Fatalf("Run: %v, errors %v", ra.err, ra.errs)
	}
	if !src.stopped.Load() {
		t.Fatal("quitting did not stop the source")
	}
	if s := m.Snapshot(); !s.Progress.Done || s.Progress.Frames != 23 {
		t.Fatalf("after quit: done %v, %d frames", s.Progress.Done, s.Progress.Frames)
	}
}

// Open refuses a live config without a source or a recording.
func TestLiveOpenErrors(t *testing.T) {
	src := newFakeSource(nil, 0)
	for _, lv := range []*Live{
		{Name: "x", Stop: src.Stop, Recorder: nopRecorder{}, RecordingPath: "x"},
		{Name: "x", Source: src, Stop: src.Stop},
		{Name: "x", Source: src, Stop: src.Stop, Recorder: nopRecorder{}, RecordingPath: filepath.Join(t.TempDir(), "missing.pcapng")},
	} {
		if _, err := Open(Config{Live: lv}); err == nil {
			t.Errorf("Open(%+v) succeeded", lv)
		}
	}
}

// A recording that fails stops the capture with an error.
func TestLiveRecordingFails(t *testing.T) {
	c := synth.LossNAKReplay()
	src := newFakeSource(c.Frames, 0)
	m, w := liveModel(t, src, nil, 0)
	defer m.Close()
	w.Close() // every WriteRecord fails now
	m.Start(context.Background())
	select {
	case <-m.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the loader did not end")
	}
	s := m.Snapshot()
	if !src.stopped.Load() || len(s.Errors) == 0 || !errors.Is(s.Errors[0], capture.ErrWriterClosed) || s.Progress.Frames != 0 {
		t.Fatalf("stopped %v, errors %v, %d frames", src.stopped.Load(), s.Errors, s.Progress.Frames)
	}
}

type nopRecorder struct{}

func (nopRecorder) Offset() int64                    { return 0 }
func (nopRecorder) WriteRecord(*pcapio.Record) error { return nil }
func (nopRecorder) Flush() error                     { return nil }
