package tui

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestLargeCapture measures the TUI on a large synthesized capture: the
// time to the first screen, to the first analysed screen, and to the end
// of loading; how fast keys act while it loads; and the memory per frame.
// It runs only when asked:
//
//	ROCETRACE_TUI_BIG=10000000 go test ./tui -run LargeCapture -v -timeout 60m
//	ROCETRACE_TUI_BIG_FILE=/tmp/big.pcap go test ./tui -run LargeCapture -v
//
// ROCETRACE_TUI_BIG writes that many frames (synth.WriteBulk, 1000 QPs,
// snaplen 128) to a temp dir first.
func TestLargeCapture(t *testing.T) {
	path := os.Getenv("ROCETRACE_TUI_BIG_FILE")
	if path == "" {
		n, _ := strconv.Atoi(os.Getenv("ROCETRACE_TUI_BIG"))
		if n <= 0 {
			t.Skip("set ROCETRACE_TUI_BIG=FRAMES or ROCETRACE_TUI_BIG_FILE=CAPTURE to measure a large capture")
		}
		path = filepath.Join(t.TempDir(), "big.pcap")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		gen := time.Now()
		st, err := synth.WriteBulk(f, synth.BulkConfig{Frames: n, Snaplen: 128, Seed: 1})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("generated %d frames in %v", st.Frames, time.Since(gen).Round(time.Millisecond))
	}
	if st, err := os.Stat(path); err == nil {
		t.Logf("capture %s: %s", path, fmtBytes(st.Size()))
	}

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	start := time.Now()
	m, err := Open(Config{Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	ra := startModel(t, context.Background(), m)
	firstDraw := time.Since(start)

	var firstReport, firstShown, keyLatency, done time.Duration
	var framesAtFirstReport int64
	keySent := time.Time{}
	for {
		s := m.Snapshot()
		now := time.Since(start)
		if firstReport == 0 && s.Report != nil {
			firstReport, framesAtFirstReport = now, s.ReportFrames
		}
		text := ra.screen.shown()
		if firstShown == 0 && (strings.Contains(text, "analysed so far") || strings.Contains(text, "frames loaded")) {
			firstShown = now
			if !s.Progress.Done {
				// Keys while loading: switch to Packets, go to the end.
				ra.key(tcell.KeyRune, '4')
				ra.key(tcell.KeyRune, 'G')
				keySent = time.Now()
			}
		}
		if !keySent.IsZero() && keyLatency == 0 && strings.Contains(text, "Headers of frame") {
			keyLatency = time.Since(keySent)
		}
		if s.Progress.Done {
			done = now
			break
		}
		if now > 30*time.Minute {
			t.Fatal("loading takes more than 30 minutes")
		}
		time.Sleep(2 * time.Millisecond)
	}
	ra.waitFor("frames loaded")
	shownDone := time.Since(start)
	s := m.Snapshot()

	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	frames := s.Progress.Frames
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)

	t.Logf("frames %s, flows %d, events %d", fmtCount(frames), len(s.Report.Flows), len(s.Report.Events))
	t.Logf("first screen (progress bar) after %v", firstDraw.Round(time.Millisecond))
	t.Logf("first report after %v (%s frames analysed); shown on the overview after %v",
		firstReport.Round(time.Millisecond), fmtCount(framesAtFirstReport), firstShown.Round(time.Millisecond))
	if keyLatency > 0 {
		t.Logf("while loading, keys 4 G showed the last frame read so far after %v", keyLatency.Round(time.Millisecond))
	}
	t.Logf("loading finished after %v (final report shown after %v): %.0f ns/frame, %.1f Mframes/s",
		done.Round(time.Millisecond), shownDone.Round(time.Millisecond),
		float64(done.Nanoseconds())/float64(frames), float64(frames)/done.Seconds()/1e6)
	t.Logf("heap after loading: %s, %.1f bytes/frame (index, frame lists, report, caches)", fmtBytes(heap), float64(heap)/float64(frames))

	ra.key(tcell.KeyRune, 'q')
	ra.wait()
}

// BenchmarkLoadFile measures the TUI's full load (Open, Start, Done: every
// frame indexed and the final report built) of the capture named by
// $ROCETRACE_BENCH_FILE, to compare with engine's BenchmarkPipelineFile
// (`rocetrace report --json`) on the same file; skipped when unset:
//
//	ROCETRACE_BENCH_FILE=/tmp/rocetrace-bench/bulk-10m-128.pcap go test -run '^$' -bench LoadFile -benchtime 3x ./tui
func BenchmarkLoadFile(b *testing.B) {
	path := os.Getenv("ROCETRACE_BENCH_FILE")
	if path == "" {
		b.Skip("ROCETRACE_BENCH_FILE not set")
	}
	b.ReportAllocs()
	var frames int
	for b.Loop() {
		m, err := Open(Config{Paths: []string{path}})
		if err != nil {
			b.Fatal(err)
		}
		m.Start(context.Background())
		<-m.Done()
		s := m.Snapshot()
		m.Close()
		if len(s.Errors) != 0 || s.Report == nil {
			b.Fatalf("load: %v", s.Errors)
		}
		frames = s.Index.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
}
