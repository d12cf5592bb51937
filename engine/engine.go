package engine

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Config configures an Engine.
type Config struct {
	Decode decode.Config
	Flows  flows.Config
	// Keep is the read filter: a decoded frame for which it returns false
	// is dropped before it is counted or reaches the flow table (counted in
	// Filtered). Nil keeps every frame.
	Keep func(p *decode.Packet) bool
	// NoFlows counts the frames but leaves the flow table empty (Observers
	// get a nil flow): for a command that prints no analysis of its frames.
	NoFlows bool
	// Idle, when set, is called on the observing goroutine when the
	// reading waits for input (a pipe or FIFO whose writer has written
	// nothing more) and every frame read so far has been observed: a
	// viewer shows them there. It returns after how long to call it again
	// should the wait go on (0: not until the input waits anew). Regular
	// files never wait.
	Idle func() time.Duration
}

// Engine is the analysis of one stream of frames (one capture point): it
// counts the frames (analysis.Counter) and feeds them to the flow table
// (flows.Table), in capture order. Engines share nothing: several, each
// with its own Inputs, may run side by side on their own goroutines.
type Engine struct {
	cfg      Config
	table    *flows.Table
	counter  analysis.Counter
	filtered int64
}

// New returns an Engine with an empty flow table.
func New(cfg Config) *Engine {
	return &Engine{cfg: cfg, table: flows.NewTable(cfg.Flows)}
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Table returns the flow table. It is the engine's: read it only while the
// engine does not run, or clone it (flows.Table.Clone) from the goroutine
// that observes.
func (e *Engine) Table() *flows.Table { return e.table }

// Frames returns the number of frames counted so far.
func (e *Engine) Frames() int64 { return e.counter.Summary(nil).Packets }

// Filtered returns the number of frames the read filter dropped.
func (e *Engine) Filtered() int64 { return e.filtered }

// Summary returns the capture summary of the frames counted so far, for the
// inputs names. With a read filter, Packets counts every frame read and
// FilteredOut those it dropped; the other counters count the kept frames.
func (e *Engine) Summary(names []string) analysis.CaptureSummary {
	s := e.counter.Summary(names)
	s.Packets += e.filtered
	s.FilteredOut = e.filtered
	return s
}

// Report finishes the flow table and builds the report with summary (see
// Summary; a caller may add what only it knows, such as kernel drops).
// Observe must not be called after it.
func (e *Engine) Report(summary analysis.CaptureSummary, opts analysis.Options) analysis.Report {
	return analysis.Build(e.table, summary, opts)
}

// Observe counts p and feeds it to the flow table, unless the read filter
// drops it. It returns p's flow (nil for a frame of no flow) and whether p
// was kept. It does not allocate for frames of known flows.
func (e *Engine) Observe(p *decode.Packet) (*flows.Flow, bool) { return e.observe(p, 0) }

// observe is Observe for a frame whose flows.FlowHash is h (0: not known).
func (e *Engine) observe(p *decode.Packet, h uint64) (*flows.Flow, bool) {
	if e.cfg.Keep != nil && !e.cfg.Keep(p) {
		e.filtered++
		return nil, false
	}
	e.counter.Observe(p)
	if e.cfg.NoFlows {
		return nil, true
	}
	return e.table.ObserveFlowHash(p, h), true
}

// Observer sees every frame the engine keeps, after Observe, in capture
// order, with its flow (nil for a frame of no flow). It may use p only until
// it returns. An error stops the reading: the frames already decoded are
// still observed, but not passed to the Observer again, and Run returns
// the error.
type Observer func(p *decode.Packet, f *flows.Flow) error

// Run reads every record of in on the two-core pipeline (Batches),
// observes each frame and passes it to obs (nil: none). It returns ctx's
// error when cancelled, the Observer's first error, or nil; the inputs
// record their own errors (Inputs.Errors).
func (e *Engine) Run(ctx context.Context, in *Inputs, obs Observer) error {
	if obs == nil && e.cfg.Keep == nil && !e.cfg.NoFlows {
		// report's path: Observe written out (it does not inline), one
		// call less per frame.
		return batches(ctx, in, e.cfg.Decode, func(ps []decode.Packet, hs []uint64) {
			for i := range ps {
				e.counter.Observe(&ps[i])
				e.table.ObserveFlowHash(&ps[i], hs[i])
			}
		}, e.cfg.Idle)
	}
	if obs == nil {
		obs = func(*decode.Packet, *flows.Flow) error { return nil }
	}
	var obsErr error
	sctx := &stopContext{Context: ctx}
	err := batches(sctx, in, e.cfg.Decode, func(ps []decode.Packet, hs []uint64) {
		for i := range ps {
			p := &ps[i]
			f, kept := e.observe(p, hs[i])
			if !kept || obsErr != nil {
				continue
			}
			if obsErr = obs(p, f); obsErr != nil {
				sctx.stop.Store(true)
			}
		}
	}, e.cfg.Idle)
	if obsErr != nil {
		return obsErr
	}
	return err
}

// stopContext is ctx whose Err also reports errStopped once stop is set:
// the reading loop polls Err, so an Observer's error stops the reading
// without waiting for the end of the input. (Err, not Done: the loop polls
// it, and a caller's ctx may only implement Err.)
type stopContext struct {
	context.Context
	stop atomic.Bool
}

var errStopped = errors.New("engine: stopped by its observer")

func (c *stopContext) Err() error {
	if c.stop.Load() {
		return errStopped
	}
	return c.Context.Err()
}

// Live configures RunLive.
type Live struct {
	// Limit stops after this many records (0: no limit).
	Limit int64
	// Tap, when set, is called with each record before it is decoded (on
	// the reading goroutine, while rec.Data is valid), e.g. to write it to a
	// file; it may change rec.Offset. An error stops the reading before
	// the record is analysed (the analysis then covers exactly what was
	// tapped), and RunLive returns it.
	Tap func(rec *pcapio.Record) error
	// Lock, when set, is held while each record is tapped, decoded and
	// observed, so that another goroutine may read the engine's state (a
	// viewer's periodic snapshot) between records.
	Lock interface {
		Lock()
		Unlock()
	}
}

// RunLive reads src on this goroutine, one record at a time, until it
// returns io.EOF (it was stopped: see capture.Source.Stop), an error, the
// limit is reached, Tap or obs fails. It returns the error that ended it
// (nil for io.EOF and the limit). A live source blocks on the network, so
// it is not batched: every frame is analysed as soon as it arrives.
func (e *Engine) RunLive(src pcapio.RecordSource, opts Live, obs Observer) error {
	dec := decode.NewDecoder(e.cfg.Decode)
	var (
		rec pcapio.Record
		p   decode.Packet
	)
	for n := int64(0); opts.Limit == 0 || n < opts.Limit; n++ {
		if err := src.Next(&rec); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := e.liveRecord(&rec, &p, dec, &opts, obs); err != nil {
			return err
		}
	}
	return nil
}

// liveRecord is RunLive's work on one record.
func (e *Engine) liveRecord(rec *pcapio.Record, p *decode.Packet, dec *decode.Decoder, opts *Live, obs Observer) error {
	if opts.Lock != nil {
		opts.Lock.Lock()
		defer opts.Lock.Unlock()
	}
	if opts.Tap != nil {
		if err := opts.Tap(rec); err != nil {
			return err
		}
	}
	dec.DecodeRecord(rec, p)
	f, kept := e.Observe(p)
	if kept && obs != nil {
		return obs(p, f)
	}
	return nil
}
