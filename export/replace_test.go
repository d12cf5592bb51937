package export

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// hookCtx is a context whose Err calls hook with the number of the call
// (0, 1, ...): hook's error, if any, is Err's.
type hookCtx struct {
	context.Context
	n    atomic.Int64
	hook func(call int) error
}

func (c *hookCtx) Err() error { return c.hook(int(c.n.Add(1) - 1)) }

// dirFiles returns every file of dir (hidden ones too) with its contents.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range listDir(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

// changed names the files of want whose contents in got differ.
func changed(got, want map[string]string) string {
	var out []string
	for name, b := range want {
		if g, ok := got[name]; ok && g != b {
			out = append(out, name+" replaced")
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// finishForce runs an export with Force of d into dir up to Finish, with
// ctx, and returns Finish's results.
func finishForce(t *testing.T, d *decoded, dir string, ctx context.Context) ([]Written, error) {
	t.Helper()
	e, err := createFed(t, d, FilePaths(dir), Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Abort()
	r := testReport(d)
	return e.Finish(ctx, &r)
}

// TestForceReplaceInterrupted: an export with Force into a directory that
// holds an older export (all six files, or only some), interrupted at each
// of Finish's 11 looks at its context (the last 6 before a rename), leaves
// the directory exactly as it was: the replaced files are back, with their
// contents, the new ones gone, no temporary file or backup left. Not
// interrupted, it holds the six new files and nothing else.
func TestForceReplaceInterrupted(t *testing.T) {
	d := decodeCapture(t, synth.LossNAKReplay())
	all := []string{"events.parquet", "flows.parquet", "latency.parquet", "packets.parquet", "pfc.parquet", "rates.parquet"}
	for _, old := range [][]string{
		all,
		{"packets.parquet", "pfc.parquet"}, // the first and a middle rename replace, the others add
		{"rates.parquet", "notes.txt"},     // another file in the directory is never touched
	} {
		for n := range 12 {
			dir := t.TempDir()
			before := map[string]string{}
			for _, name := range old {
				before[name] = "old " + name
				if err := os.WriteFile(filepath.Join(dir, name), []byte(before[name]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx := &countdownCtx{Context: context.Background()}
			ctx.n.Store(int64(n))
			written, err := finishForce(t, d, dir, ctx)
			got := dirFiles(t, dir)
			if n < 11 {
				if !errors.Is(err, context.Canceled) || len(written) != 0 || !maps.Equal(got, before) {
					t.Errorf("old %v, interrupted at look %d: %v, written %v, files %v (%s); want context.Canceled and the old files",
						old, n+1, err, written, slices.Sorted(maps.Keys(got)), changed(got, before))
				}
				continue
			}
			if err != nil || len(written) != len(Tables) {
				t.Fatalf("old %v, not interrupted: %v, written %v", old, err, written)
			}
			want := slices.Clone(all)
			if slices.Contains(old, "notes.txt") {
				want = append(want, "notes.txt")
				slices.Sort(want)
			}
			if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, want) {
				t.Errorf("old %v, not interrupted: files %v, want %v", old, names, want)
			}
			for name, b := range got {
				if strings.HasSuffix(name, ".parquet") && !strings.HasPrefix(b, "PAR1") {
					t.Errorf("old %v: %s is not the new file: %.20q", old, name, b)
				}
			}
		}
	}
}

// TestForceReplaceRenameFails: a rename that fails half-way (its temporary
// file gone) takes back the renames before it: the old export is whole
// again, the error says why, and no temporary file or backup is left.
func TestForceReplaceRenameFails(t *testing.T) {
	d := decodeCapture(t, synth.LossNAKReplay())
	// Finish's looks 6..11 come before the six renames: fail the 1st, 3rd, 6th.
	for _, look := range []int{5, 7, 10} {
		dir := t.TempDir()
		before := map[string]string{}
		for _, name := range []string{"events.parquet", "flows.parquet", "packets.parquet"} {
			before[name] = "old " + name
			if err := os.WriteFile(filepath.Join(dir, name), []byte(before[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx := &hookCtx{Context: context.Background()}
		ctx.hook = func(call int) error {
			if call == look { // remove the temporary file about to be renamed
				commitOrder := []string{"packets", "flows", "events", "pfc", "rates", "latency"}
				tmps, _ := filepath.Glob(filepath.Join(dir, "."+commitOrder[look-5]+".parquet.tmp-*"))
				for _, p := range tmps {
					_ = os.Remove(p)
				}
				if len(tmps) != 1 {
					t.Errorf("look %d: temporary files %v", look, tmps)
				}
			}
			return nil
		}
		written, err := finishForce(t, d, dir, ctx)
		if err == nil || !errors.Is(err, os.ErrNotExist) || len(written) != 0 {
			t.Errorf("look %d: %v, written %v; want the failed rename's error and nothing written", look, err, written)
		}
		if got := dirFiles(t, dir); !maps.Equal(got, before) {
			t.Errorf("look %d: files %v (%s), want the old ones %v", look, slices.Sorted(maps.Keys(got)), changed(got, before), before)
		}
	}
}

// TestRemoveTemps: RemoveTemps (the watchdog's hook) while an export runs
// removes its temporary files; the export then creates no more and fails,
// leaving nothing (and a second call does no harm).
func TestRemoveTemps(t *testing.T) {
	d := decodeCapture(t, synth.LossNAKReplay())
	dir := t.TempDir()
	e, err := createFed(t, d, FilePaths(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Abort()
	// packets, latency and rates are open from Create on.
	if got := listDir(t, dir); len(got) != 3 {
		t.Fatalf("temporary files %v, want 3", got)
	}
	done := make(chan struct{})
	go func() { // as the watchdog: another goroutine
		e.RemoveTemps()
		close(done)
	}()
	<-done
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("after RemoveTemps: %v", got)
	}
	r := testReport(d)
	written, err := e.Finish(context.Background(), &r)
	if !errors.Is(err, errTempsRemoved) || len(written) != 0 {
		t.Errorf("Finish after RemoveTemps: %v, written %v; want errTempsRemoved", err, written)
	}
	e.RemoveTemps()
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("after Finish: %v", got)
	}
}
