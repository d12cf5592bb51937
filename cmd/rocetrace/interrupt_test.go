package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
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

// TestExportForceInterruptedEverywhere: export --force over an earlier
// export, interrupted by SIGINT at each point where it looks for it (the
// renames included), leaves the earlier export exactly as it was: every
// file with its old contents, no temporary file or backup; it exits 130.
// With no interruption, every file is the new export's.
func TestExportForceInterruptedEverywhere(t *testing.T) {
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	// The earlier export: its six files, told apart from any new one.
	old := map[string][]byte{}
	var oldNames []string
	for _, table := range export.Tables {
		old[table+".parquet"] = []byte("the earlier " + table + ".parquet")
		oldNames = append(oldNames, table+".parquet")
	}
	slices.Sort(oldNames)
	renames := 0
	for n := int64(0); ; n++ {
		if n > 100 {
			t.Fatal("the export never ran to its end")
		}
		dir := t.TempDir()
		for name, b := range old {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errOut := expRun(newSigCountdown(n), "export", "--force", "-o", dir, in)
		got := expFiles(t, dir)
		if !slices.Equal(got, oldNames) {
			t.Errorf("look %d (exit %d): files %v, want %v", n+1, code, got, oldNames)
			continue
		}
		var same, differ []string
		for _, name := range got {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(b, old[name]) {
				same = append(same, name)
			} else {
				differ = append(differ, name)
			}
		}
		if code == exitOK {
			if len(same) != 0 {
				t.Errorf("not interrupted: %v are still the old files", same)
			}
			break
		}
		if code != exitSIGINT || !strings.Contains(errOut, "rocetrace: export interrupted after ") {
			t.Errorf("look %d: exit %d, stderr %q; want 130 and the interruption", n+1, code, errOut)
		}
		if len(differ) != 0 {
			t.Errorf("look %d: %v replaced; want the old export intact", n+1, differ)
		}
		if strings.Contains(errOut, "interrupted after 50 frames") {
			renames++ // a look in the write phase (the last six: before each rename)
		}
	}
	if renames < len(export.Tables) {
		t.Errorf("%d looks in the write phase, want at least the %d before the renames", renames, len(export.Tables))
	}
}
