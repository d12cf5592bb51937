package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// The demo capture the interruption tests read: 50 frames, 40860 bytes
// (its size is the offset of the next record once all of it is read).
const (
	sigCapture       = "pcaps/congestion_cnp.pcap"
	sigCaptureFrames = 50
	sigCaptureBytes  = 40860
)

// sigCountdown is a context that a "signal" (SIGINT, as main's cause)
// cancels at the (n+1)-th call of Err: an interruption at every point
// where rocetrace looks for it, in turn.
type sigCountdown struct {
	context.Context
	cancel context.CancelCauseFunc
	n      atomic.Int64
	// beforeCancel, when set, runs once, just before the "signal" (in the
	// Err call that sees the countdown end; the context is not yet ended).
	beforeCancel func()
	once         sync.Once
}

func newSigCountdown(n int64) *sigCountdown {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &sigCountdown{Context: ctx, cancel: cancel}
	c.n.Store(n)
	return c
}

func (c *sigCountdown) Err() error {
	if c.n.Add(-1) < 0 {
		c.once.Do(func() {
			if c.beforeCancel != nil {
				c.beforeCancel()
			}
			c.cancel(signalError{syscall.SIGINT})
		})
	}
	return c.Context.Err()
}

// TestExportInterruptedEverywhere: SIGINT at each point where export looks
// for it, from the opening to the last rename, leaves no file in the
// output directory (nothing renamed, no temporary file), says where it
// stopped and exits 130; some of those points are in the write phase,
// after all 50 frames were read. With no interruption the export writes
// its files (one per table).
func TestExportInterruptedEverywhere(t *testing.T) {
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	writePhase := false
	for n := int64(0); ; n++ {
		if n > 100 {
			t.Fatal("the export never ran to its end")
		}
		dir := t.TempDir()
		code, out, errOut := expRun(newSigCountdown(n), "export", "-o", dir, in)
		if code == exitOK {
			if got := expFiles(t, dir); len(got) != len(export.Tables) {
				t.Errorf("not interrupted: files %v", got)
			}
			break
		}
		if code != exitSIGINT || out != "" || !strings.Contains(errOut, "rocetrace: export interrupted after ") {
			t.Errorf("look %d: exit %d, stdout %q, stderr %q; want 130 and the interruption", n+1, code, out, errOut)
		}
		if got := expFiles(t, dir); len(got) != 0 {
			t.Errorf("look %d: files left %v", n+1, got)
		}
		if strings.Contains(errOut, "interrupted after 50 frames ("+in+", byte offset 40860); nothing written to ") {
			writePhase = true
		}
	}
	if !writePhase {
		t.Error("no interruption in the write phase")
	}
}

// TestExportRemovesStale: an export removes the temporary files that a
// killed export left (here one with a PID that no longer runs, one of the
// older naming) and says so; it writes its files.
func TestExportRemovesStale(t *testing.T) {
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	dir := t.TempDir()
	stale := []string{
		filepath.Join(dir, ".packets.parquet.tmp-999999999-1234"), // above Linux's PID limit: never runs
		filepath.Join(dir, ".flows.parquet.tmp-5678"),
	}
	for _, p := range stale {
		if err := os.WriteFile(p, []byte("PAR1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour) // before the export starts
	if err := os.Chtimes(stale[1], old, old); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := expRun(context.Background(), "export", "-o", dir, in)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range stale {
		if !strings.Contains(errOut, "rocetrace: removed stale temporary file "+p+"\n") {
			t.Errorf("stderr %q does not name %s", errOut, p)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", p, err)
		}
	}
	want := []string{"events.parquet", "flows.parquet", "latency.parquet", "packets.parquet", "pfc.parquet", "rates.parquet"}
	if got := expFiles(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
}
