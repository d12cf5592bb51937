package tui

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// loadAll loads paths to the end and returns the final snapshot; with
// perFrame the loader takes the per-frame path (engine.Run's Observer)
// instead of the batch path (a publishFrames that never comes).
func loadAll(t *testing.T, paths []string, perFrame bool) *Snapshot {
	t.Helper()
	cfg := Config{Paths: paths}
	if perFrame {
		cfg.publishFrames = 1 << 40
	}
	_, s := load(t, cfg)
	return s
}

// The batch path (observeBatch) indexes the frames as the per-frame path
// (observe, frame) does: the same index, frame events, flow ids, PFC
// frames, timelines, flow rates and marks and report, for one file and for
// two merged.
func TestLoadBatchMatchesPerFrame(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, cfg := range []synth.BulkConfig{{Frames: 30_000, QPs: 40, Seed: 7}, {Frames: 20_000, QPs: 30, Seed: 8, Snaplen: 128}} {
		paths = append(paths, writeBulk(t, dir, "bulk"+string(rune('a'+i))+".pcap", cfg))
	}
	for _, ps := range [][]string{paths[:1], paths} {
		a, b := loadAll(t, ps, true), loadAll(t, ps, false)
		n := a.Index.Len()
		if n == 0 || b.Index.Len() != n || a.Progress.Frames != b.Progress.Frames || a.Progress.Bytes != b.Progress.Bytes {
			t.Fatalf("%d files: per frame %d frames (%+v), batch %d (%+v)", len(ps), n, a.Progress, b.Index.Len(), b.Progress)
		}
		for i := range n {
			fa, oa := a.Index.At(i)
			fb, ob := b.Index.At(i)
			if fa != fb || oa != ob || a.Index.Frame(i) != b.Index.Frame(i) || idAt(a.frameFlows, i) != idAt(b.frameFlows, i) {
				t.Fatalf("%d files, frame %d: per frame (%d, %d, flow %d), batch (%d, %d, flow %d)",
					len(ps), i, fa, oa, idAt(a.frameFlows, i), fb, ob, idAt(b.frameFlows, i))
			}
		}
		check := func(what string, x, y any) {
			t.Helper()
			if !reflect.DeepEqual(x, y) {
				t.Errorf("%d files: %s differ", len(ps), what)
			}
		}
		check("frame events", a.FrameEvents, b.FrameEvents)
		check("PFC frames", listOf(a.PFCFrames), listOf(b.PFCFrames))
		check("timelines", a.Timeline, b.Timeline)
		check("flow rates", a.FlowRates, b.FlowRates)
		check("flow marks", a.FlowMarks, b.FlowMarks)
		ja, _ := json.Marshal(a.Report)
		jb, _ := json.Marshal(b.Report)
		check("reports", string(ja), string(jb))
		if len(a.FrameEvents) == 0 || listOf(a.PFCFrames) == nil {
			t.Errorf("%d files: %d frame events, %d PFC frames: the test checks little", len(ps), len(a.FrameEvents), a.PFCFrames.Len())
		}
	}
}

// listOf returns the positions of l.
func listOf(l FrameList) []uint32 {
	var out []uint32
	for i := range l.Len() {
		out = append(out, l.At(i))
	}
	return out
}

// idAt returns frame i's flow id in x.
func idAt(x frameFlows, i int) uint32 {
	c := x.chunks[i>>idChunkBits]
	if c.u32 != nil {
		return c.u32[i&idChunkMask]
	}
	return uint32(c.u16[i&idChunkMask])
}

// endsWithin extrapolates the load's speed so far; an unknown total or
// nothing read yet never ends.
func TestEndsWithin(t *testing.T) {
	for _, c := range []struct {
		elapsed     time.Duration
		read, total int64
		d           time.Duration
		want        bool
	}{
		{time.Second, 90, 100, 200 * time.Millisecond, true},  // 0.11 s left
		{time.Second, 50, 100, 200 * time.Millisecond, false}, // 1 s left
		{time.Second, 0, 100, time.Hour, false},
		{time.Second, 100, 0, time.Hour, false}, // a pipe: size unknown
		{time.Second, 100, 100, time.Hour, false},
	} {
		if got := endsWithin(c.elapsed, c.read, c.total, c.d); got != c.want {
			t.Errorf("endsWithin(%v, %d, %d, %v) = %v, want %v", c.elapsed, c.read, c.total, c.d, got, c.want)
		}
	}
}

// While files load, publish copies the per-flow series at most every
// flowsEvery, and at once after the grid widened or for the final
// snapshot.
func TestFlowsDue(t *testing.T) {
	l := &loader{m: &Model{}}
	l.tl.tl.WidthNs = 1000
	if !l.flowsDue(false) {
		t.Fatal("first copy not due")
	}
	l.flowsPub, l.flowsWidth = time.Now(), 1000
	if l.flowsDue(false) {
		t.Error("due again at once")
	}
	if !l.flowsDue(true) {
		t.Error("final snapshot not due")
	}
	l.tl.tl.WidthNs = 2000
	if !l.flowsDue(false) {
		t.Error("not due after the grid widened")
	}
	l.flowsWidth, l.flowsPub = 2000, time.Now().Add(-flowsEvery)
	if !l.flowsDue(false) {
		t.Error("not due after flowsEvery")
	}
}
