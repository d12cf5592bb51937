package engine

import (
	"context"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Batch is one batch of the frames the engine kept, for a BatchObserver:
// Packets[i], its flow Flows[i] (nil for a frame of no flow) and the
// events the flow table emitted for it, Events[i] (flows.Table.FrameEvents
// right after the frame was observed). The slices are the engine's: an
// observer may use them only until it returns.
type Batch struct {
	Packets []decode.Packet
	Flows   []*flows.Flow
	Events  []flows.EventMask
}

// BatchObserver sees the frames the engine keeps, batch by batch, after
// the whole batch was counted and fed to the flow table, in capture order.
// The table's state (its events, Table.NumEvents) is the one after the
// batch's last frame. An error stops the reading as an Observer's does.
type BatchObserver func(b *Batch) error

// RunBatches is Run with a BatchObserver: one call a batch (up to 256
// frames) instead of one a frame, for an observer whose per-frame work is
// a tight loop (the TUI's indexing). A flows.LatencySink still runs during
// the table's observation, so for a whole batch before obs sees it.
func (e *Engine) RunBatches(ctx context.Context, in *Inputs, obs BatchObserver) error {
	var (
		obsErr error
		fs     [pipelineBatch]*flows.Flow
		evs    [pipelineBatch]flows.EventMask
		batch  Batch // reused: no allocation a batch
	)
	sctx := &stopContext{Context: ctx}
	err := batches(sctx, in, e.cfg.Decode, func(ps []decode.Packet, hs []uint64) {
		n := len(ps)
		if e.cfg.Keep == nil && !e.cfg.NoFlows {
			// Observe written out, as Run's report path.
			fs, evs := fs[:n], evs[:n]
			for i := range ps {
				e.counter.Observe(&ps[i])
				fs[i] = e.table.ObserveFlowHash(&ps[i], hs[i])
				evs[i] = e.table.FrameEvents()
			}
		} else {
			n = e.keepBatch(ps, hs, fs[:], evs[:])
		}
		if obsErr != nil || n == 0 {
			return
		}
		batch = Batch{Packets: ps[:n], Flows: fs[:n], Events: evs[:n]}
		if obsErr = obs(&batch); obsErr != nil {
			sctx.stop.Store(true)
		}
	}, e.cfg.Idle)
	if obsErr != nil {
		return obsErr
	}
	return err
}

// keepBatch observes the frames of ps (flow hashes hs) with the read filter
// or without flows, moves the kept ones to the front of ps (the batch is
// the consumer's until it is recycled) with their flows and events in fs
// and evs, and returns how many were kept.
func (e *Engine) keepBatch(ps []decode.Packet, hs []uint64, fs []*flows.Flow, evs []flows.EventMask) int {
	n := 0
	for i := range ps {
		f, kept := e.observe(&ps[i], hs[i])
		if !kept {
			continue
		}
		if n != i {
			ps[n] = ps[i]
		}
		fs[n] = f
		evs[n] = 0
		if !e.cfg.NoFlows {
			evs[n] = e.table.FrameEvents()
		}
		n++
	}
	return n
}
