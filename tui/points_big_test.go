package tui

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestPointsNCCL: the three hosts' taps of one NCCL run
// (../shared/pcaps/rxe_tut_nccl_ring2_node{0,1,2}.pcap) as points. As with
// `report --point` (cmd/rocetrace TestNCCLRing2Points): no retransmission
// at the reference, every hop matched with lost = 0, so Enter on a hop
// says that nothing was lost; the packets view lists the three files'
// frames (every point's).
func TestPointsNCCL(t *testing.T) {
	dir := testenv.SharedPcapsDir(t)
	var pts []PointFiles
	frames := 0
	for i := range 3 {
		name := "node" + strconv.Itoa(i)
		pts = append(pts, PointFiles{Name: name, Files: []string{filepath.Join(dir, "rxe_tut_nccl_ring2_"+name+".pcap")}})
	}
	hs := newPointsHarness(t, 120, 40, pts)
	r := hs.u.snap.Report
	for _, p := range r.Points {
		frames += int(p.Packets)
	}
	if hs.u.snap.Index.Len() != frames || len(r.Hops) == 0 {
		t.Fatalf("index %d frames, points %d; %d hops", hs.u.snap.Index.Len(), frames, len(r.Hops))
	}
	for _, e := range r.Events {
		if e.Kind == "retransmission" || e.Kind == "hop_loss" {
			t.Errorf("a %s event at the reference", e.Kind)
		}
	}
	for _, h := range r.Hops {
		if h.Lost != 0 || h.Matched == 0 {
			t.Errorf("hop %s>%s %s: matched %d lost %d", h.From, h.To, h.Flow, h.Matched, h.Lost)
		}
	}
	hs.key(tcell.KeyRune, '7')
	if hs.u.points.table.GetRowCount()-1 != len(r.Hops) {
		t.Errorf("%d rows, want %d hops", hs.u.points.table.GetRowCount()-1, len(r.Hops))
	}
	hs.key(tcell.KeyEnter, 0)
	hs.contains("no frame was lost between")
}

// TestLargePoints measures loading two points (the same bulk capture at
// both: every frame matches) against one, when asked:
//
//	ROCETRACE_TUI_BIG_POINTS=1000000 go test ./tui -run LargePoints -v
func TestLargePoints(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ROCETRACE_TUI_BIG_POINTS"))
	if n <= 0 {
		t.Skip("set ROCETRACE_TUI_BIG_POINTS=FRAMES to measure")
	}
	path := filepath.Join(t.TempDir(), "big.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteBulk(f, synth.BulkConfig{Frames: n, Snaplen: 128, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, cfg := range []Config{
		{Paths: []string{path}},
		{Points: []PointFiles{{Name: "a", Files: []string{path}}, {Name: "b", Files: []string{path}}}},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		m, err := Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Start(context.Background())
		<-m.Done()
		elapsed := time.Since(start)
		s := m.Snapshot()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("points %d: %s frames in %v, heap %s (%.1f bytes a frame), %d hops",
			len(cfg.Points), fmtCount(s.Progress.Frames), elapsed.Round(time.Millisecond), fmtBytes(heap),
			float64(heap)/float64(s.Progress.Frames), len(s.Report.Hops))
		m.Close()
		runtime.KeepAlive(s)
	}
}
