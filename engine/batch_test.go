package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// seenFrame is what an observer saw of one frame.
type seenFrame struct {
	off    int64
	file   int
	flow   *flows.Flow
	events flows.EventMask
}

// runBoth runs cfg over p with Run (an Observer that reads the table's
// FrameEvents) and with RunBatches, and returns what each saw.
func runBoth(t *testing.T, cfg Config, p string) (perFrame, batched []seenFrame) {
	t.Helper()
	run := func(batch bool) []seenFrame {
		in := Open([]string{p})
		defer in.Close()
		e := New(cfg)
		var seen []seenFrame
		var err error
		if batch {
			err = e.RunBatches(context.Background(), in, func(b *Batch) error {
				if len(b.Flows) != len(b.Packets) || len(b.Events) != len(b.Packets) || len(b.Packets) == 0 {
					t.Fatalf("batch of %d packets, %d flows, %d events", len(b.Packets), len(b.Flows), len(b.Events))
				}
				for i := range b.Packets {
					seen = append(seen, seenFrame{b.Packets[i].Offset, b.Packets[i].File, b.Flows[i], b.Events[i]})
				}
				return nil
			})
		} else {
			err = e.Run(context.Background(), in, func(p *decode.Packet, f *flows.Flow) error {
				seen = append(seen, seenFrame{p.Offset, p.File, f, e.Table().FrameEvents()})
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	return run(false), run(true)
}

// RunBatches hands over the frames Run's Observer sees, with the same flows
// (by id) and frame events, with and without a read filter.
func TestRunBatchesMatchesRun(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 20_000, QPs: 20, Seed: 4})
	keepCNP := testCfg
	keepCNP.Keep = func(p *decode.Packet) bool { return p.Kind == decode.KindCNP || p.Offset%3 == 0 }
	noFlows := testCfg
	noFlows.NoFlows = true
	for name, cfg := range map[string]Config{"all": testCfg, "keep": keepCNP, "noflows": noFlows} {
		t.Run(name, func(t *testing.T) {
			a, b := runBoth(t, cfg, p)
			if len(a) != len(b) || len(a) == 0 {
				t.Fatalf("Run saw %d frames, RunBatches %d", len(a), len(b))
			}
			events := 0
			for i := range a {
				x, y := a[i], b[i]
				if x.off != y.off || x.file != y.file || x.events != y.events || (x.flow == nil) != (y.flow == nil) ||
					(x.flow != nil && x.flow.ID() != y.flow.ID()) {
					t.Fatalf("frame %d: Run saw %+v, RunBatches %+v", i, x, y)
				}
				if x.events != 0 {
					events++
				}
			}
			if name == "all" && events == 0 {
				t.Error("no frame with events: the test checks nothing of them")
			}
		})
	}
}

// A BatchObserver's error stops the reading and is returned; no batch is
// observed after it, and the frames decoded are still counted.
func TestRunBatchesErrorStops(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 100_000, QPs: 20, Seed: 5})
	in := Open([]string{p})
	defer in.Close()
	e := New(testCfg)
	boom := errors.New("boom")
	calls := 0
	err := e.RunBatches(context.Background(), in, func(*Batch) error {
		if calls++; calls == 4 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Fatalf("RunBatches returned %v, want the observer's error", err)
	}
	if calls != 4 {
		t.Errorf("observer called %d times, want 4 (none after its error)", calls)
	}
	if n := e.Frames(); n < 4*pipelineBatch || n >= 100_000 {
		t.Errorf("%d frames counted: want the reading stopped early", n)
	}
}

// RunBatches allocates nothing per batch once the pipeline runs.
func TestRunBatchesAllocs(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 50_000, QPs: 4, Seed: 2})
	run := func(frames int) float64 {
		return testing.AllocsPerRun(1, func() {
			in := Open([]string{p})
			defer in.Close()
			n := 0
			_ = New(testCfg).RunBatches(context.Background(), in, func(b *Batch) error {
				if n += len(b.Packets); n >= frames {
					return errors.New("enough")
				}
				return nil
			})
		})
	}
	// The 39,000 frames more are ~150 batches more; the table's own
	// allocations (events, latency values) grow by ~60.
	if few, many := run(1000), run(40_000); many-few > 100 {
		t.Errorf("%.0f allocations for 1000 frames, %.0f for 40,000: an allocation a batch?", few, many)
	}
}
