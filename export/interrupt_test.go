package export

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// countdownCtx is a context whose Err reports cancellation from its
// (n+1)-th call on: an interruption at a known point of Finish.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestFinishInterrupted: Finish looks at its context after packets.parquet
// (1 look), after each of the three small tables and rates.parquet (4) and
// before each of the six renames (6; latency.parquet is finished without a
// look of its own): interrupted at any of those 11 looks, nothing stays in
// place and no temporary file is left; with 11 looks passed, all six files
// are written.
func TestFinishInterrupted(t *testing.T) {
	d := decodeCapture(t, synth.LossNAKReplay())
	for n := range 12 {
		dir := t.TempDir()
		paths := FilePaths(dir)
		e, err := createFed(t, d, paths, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := testReport(d)
		ctx := &countdownCtx{Context: context.Background()}
		ctx.n.Store(int64(n))
		written, err := e.Finish(ctx, &r)
		got := listDir(t, dir)
		if n < 11 {
			if !errors.Is(err, context.Canceled) || len(written) != 0 || len(got) != 0 {
				t.Errorf("interrupted at look %d: %v, written %v, files %v; want context.Canceled and nothing", n+1, err, written, got)
			}
			continue
		}
		want := []string{"events.parquet", "flows.parquet", "latency.parquet", "packets.parquet", "pfc.parquet", "rates.parquet"}
		if err != nil || len(written) != len(Tables) || !slices.Equal(got, want) {
			t.Errorf("not interrupted: %v, written %v, files %v", err, written, got)
		}
	}
}

// TestRemoveStale: the temporary files of exports that no longer run are
// removed (a PID that has ended; no PID and older than the export), those
// of running exports (a live PID, or no PID but newer) and other files
// are kept.
func TestRemoveStale(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no process to wait for: %v", err)
	}
	dead := strconv.Itoa(cmd.Process.Pid) // ended: reaped by Run
	dir := t.TempDir()
	since := time.Now()
	old := since.Add(-time.Hour)
	files := []struct {
		name    string
		mtime   time.Time
		removed bool
	}{
		{".packets.parquet.tmp-" + dead + "-123", since, true},                  // a PID that ended
		{".flows.parquet.tmp-1-456", old, false},                                // PID 1 runs
		{".events.parquet.tmp-" + strconv.Itoa(os.Getpid()) + "-7", old, false}, // this process
		{".rates.parquet.tmp-" + dead + "-9.old", since, true},                  // a backup of --force's renames, PID ended
		{".pfc.parquet.tmp-98765432", old, true},                                // no PID, older than the export
		{".pfc.parquet.tmp-12345678", since.Add(time.Second), false},            // no PID, newer
		{".other.parquet.tmp-" + dead + "-1", old, false},                       // not a name of this export
		{"packets.parquet.tmp-" + dead + "-1", old, false},                      // not hidden: not ours
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.mtime, f.mtime); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveStale(FilePaths(dir), since)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		_, statErr := os.Stat(filepath.Join(dir, f.name))
		if gone := errors.Is(statErr, os.ErrNotExist); gone != f.removed {
			t.Errorf("%s: removed %v, want %v", f.name, gone, f.removed)
		}
		if f.removed {
			want = append(want, filepath.Join(dir, f.name))
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("RemoveStale returned %v, want %v", removed, want)
	}
}
