package tui

import (
	"context"
	"errors"
	"fmt"

	"os"
	"sync"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Live describes a live capture for the model to show instead of files.
// Every record the source yields is first written to a recording (a
// capture file, e.g. capture.Writer's) and then analysed; the packet index
// points into the recording, so the packets pane reads frames back from it
// as it does from a capture file.
type Live struct {
	// Name names the input in the status bar and the report, e.g.
	// "live:eth1".
	Name string
	// Source yields the captured records. Its Next blocks until a record
	// arrives and returns io.EOF once stopped and drained.
	Source pcapio.RecordSource
	// Stop makes Source end (Next returns io.EOF); it is called from
	// another goroutine than Next's when the model's context ends.
	Stop func()
	// Recorder records every record before it is analysed.
	Recorder Recorder
	// RecordingPath is the file the Recorder writes (one file: no
	// rotation). Its header must be on disk when Open is called.
	RecordingPath string
	// KernelDrops, when set, returns the frames the capture lost (they go
	// into the report's capture summary, as `rocetrace capture` does).
	KernelDrops func() uint64
}

// Recorder writes the records of a live capture to a file; capture.Writer
// is one.
type Recorder interface {
	// Offset returns the byte offset the next record will be written at.
	Offset() int64
	// WriteRecord appends the record.
	WriteRecord(rec *pcapio.Record) error
	// Flush writes what is buffered to the file.
	Flush() error
}

// liveRefresh is the longest time between two snapshots of a live capture.
const liveRefresh = time.Second

// openLive opens the model of a live capture: the recording is opened for
// random access and its header read for the record layout.
func openLive(cfg Config) (*Model, error) {
	lv := cfg.Live
	switch {
	case lv.Source == nil || lv.Stop == nil:
		return nil, errors.New("live capture: no source")
	case lv.Recorder == nil || lv.RecordingPath == "":
		return nil, errors.New("live capture: no recording")
	}
	if cfg.PublishEvery <= 0 || cfg.PublishEvery > liveRefresh {
		cfg.PublishEvery = liveRefresh
	}
	if lv.Name == "" {
		lv2 := *lv
		lv2.Name = "live"
		cfg.Live = &lv2
	}
	r, err := pcapio.OpenFile(lv.RecordingPath, 0)
	if err != nil {
		return nil, fmt.Errorf("live capture: reading the recording's header: %w", err)
	}
	lay := r.Layout(nil)
	r.Close()
	f, err := os.Open(lv.RecordingPath)
	if err != nil {
		return nil, err
	}
	bps := cfg.Flows.LinkSpeedBps
	if bps <= 0 {
		bps = flows.DefaultLinkSpeedBps
	}
	m := &Model{
		cfg:        cfg,
		files:      []*os.File{f},
		done:       make(chan struct{}),
		liveLayout: lay,
	}
	m.cur.Store(&Snapshot{Files: m.names(), Live: true, LinkBps: bps})
	return m, nil
}

// names returns the input names: the files, or the live capture's name.
func (m *Model) names() []string {
	if m.cfg.Live != nil {
		return []string{m.cfg.Live.Name}
	}
	return m.cfg.Paths
}

// pagerNames returns the names of the files the packets pane reads.
func (m *Model) pagerNames() []string {
	if m.cfg.Live != nil {
		return []string{m.cfg.Live.RecordingPath}
	}
	return m.cfg.Paths
}

// kernelDrops returns the live capture's kernel drops (0 offline).
func (m *Model) kernelDrops() int64 {
	if lv := m.cfg.Live; lv != nil && lv.KernelDrops != nil {
		return int64(lv.KernelDrops())
	}
	return 0
}

// summary is the capture summary of the frames so far.
func (l *loader) summary() analysis.CaptureSummary {
	names := l.names()
	if l.ps != nil {
		names = l.ps.Files[0] // the reference point's summary, as report --point
	}
	s := l.eng.Summary(names)
	s.KernelDrops = l.m.kernelDrops()
	return s
}

// runLive is the loader of a live capture. The capture goroutine (this
// one) reads, records and analyses each record on the engine (RunLive); a
// ticker publishes a snapshot every PublishEvery whether frames arrive or
// not. mu keeps the two apart. When ctx ends the source is stopped; what it
// still holds is analysed, then the last snapshot is published.
func (l *loader) runLive(ctx context.Context) {
	m := l.m
	lv := m.cfg.Live
	l.layouts[0] = []engine.LayoutPoint{{Off: 0, Layout: m.liveLayout}}
	var mu sync.Mutex
	l.publish(false, false)

	ended := make(chan struct{})
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		t := time.NewTicker(m.cfg.PublishEvery)
		defer t.Stop()
		for {
			select {
			case <-ended:
				return
			case <-ctx.Done():
				lv.Stop()
				<-ended
				return
			case <-t.C:
				mu.Lock()
				l.publish(false, false)
				mu.Unlock()
			}
		}
	}()

	var tapErr error
	err := l.eng.RunLive(lv.Source, engine.Live{Lock: &mu, Tap: func(rec *pcapio.Record) error {
		tapErr = l.record(rec)
		return tapErr
	}}, func(p *decode.Packet, f *flows.Flow) error {
		l.frame(p, f)
		return nil
	})
	if err != nil && err != tapErr {
		mu.Lock()
		l.errs = append(l.errs, fmt.Errorf("capture ended early: %w", err))
		mu.Unlock()
	}
	close(ended)
	<-tickerDone
	l.buildWG.Wait()
	l.publish(true, ctx.Err() != nil)
}

// record writes a live record to the recording before it is analysed, so
// that the packet index points at it; an error stops the capture.
func (l *loader) record(rec *pcapio.Record) error {
	lv := l.m.cfg.Live
	if l.index.n >= 1<<32-1 {
		l.errs = append(l.errs, fmt.Errorf("more than %d frames: capture stopped", l.index.n))
		lv.Stop()
		return errIndexFull
	}
	rec.File = 0
	rec.Offset = lv.Recorder.Offset()
	if err := lv.Recorder.WriteRecord(rec); err != nil {
		err = fmt.Errorf("recording %s: %w: capture stopped", lv.RecordingPath, err)
		l.errs = append(l.errs, err)
		lv.Stop()
		return err
	}
	return nil
}
