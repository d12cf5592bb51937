package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestExitHooks: run calls the functions added and not taken back, each
// once per run; a nil *exitHooks does nothing; a function that blocks is
// waited for at most the given time.
func TestExitHooks(t *testing.T) {
	var h exitHooks
	var a, b, c atomic.Int64
	h.add(func() { a.Add(1) })
	removeB := h.add(func() { b.Add(1) })
	h.add(func() { c.Add(1) })
	removeB()
	if !h.run(time.Second) {
		t.Fatal("run timed out")
	}
	if a.Load() != 1 || b.Load() != 0 || c.Load() != 1 {
		t.Errorf("calls a %d b %d c %d, want 1 0 1", a.Load(), b.Load(), c.Load())
	}

	var nilHooks *exitHooks
	nilHooks.add(func() { t.Error("a nil exitHooks ran a function") })()
	if !nilHooks.run(time.Second) {
		t.Error("nil run timed out")
	}

	block := make(chan struct{})
	defer close(block)
	h.add(func() { <-block })
	start := time.Now()
	if h.run(50 * time.Millisecond) {
		t.Error("run did not time out on a blocked function")
	}
	if d := time.Since(start); d > 5*time.Second { // a hang, not a timing check
		t.Errorf("run waited %v", d)
	}
}

// TestWatchSignals: the first signal cancels the context with its cause;
// with the watchdog, a second signal (or a second's wait) runs the hooks,
// then says so on stderr and exits with the signal's status; without it,
// nothing more happens.
func TestWatchSignals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sig   os.Signal
		watch bool
		code  int // -1: no exit
	}{
		{"SIGINT watchdog", syscall.SIGINT, true, 130},
		{"SIGTERM watchdog", syscall.SIGTERM, true, 143},
		{"SIGINT no watchdog (tui, capture)", syscall.SIGINT, false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			sigs := make(chan os.Signal, 2)
			var hooks exitHooks
			var order []string
			hooks.add(func() { order = append(order, "hook") })
			var stderr bytes.Buffer
			code := -1
			exit := func(c int) { order = append(order, "exit"); code = c }
			done := make(chan struct{})
			go func() {
				watchSignals(sigs, cancel, tc.watch, &hooks, &stderr, exit)
				close(done)
			}()
			sigs <- tc.sig
			<-ctx.Done()
			var se signalError
			if !errors.As(context.Cause(ctx), &se) || se.sig != tc.sig {
				t.Errorf("cause %v, want the signal %v", context.Cause(ctx), tc.sig)
			}
			if tc.watch {
				sigs <- tc.sig // a second signal: no second's wait
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("watchSignals did not return")
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if !tc.watch {
				if len(order) != 0 || stderr.Len() != 0 {
					t.Errorf("without the watchdog: %v, stderr %q", order, stderr.String())
				}
				return
			}
			if strings.Join(order, " ") != "hook exit" {
				t.Errorf("order %v, want the hooks before the exit", order)
			}
			if want := "rocetrace: " + se.Error() + "; did not stop within 1s: exiting\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
		})
	}
}

// TestExportWatchdogHooks: while an export runs, the watchdog's hooks
// remove its temporary files. At each look for a signal before the renames,
// the hooks are run (as the watchdog would, the command not having
// returned): the output directory is then empty at once, before the
// export itself returns; the export exits 130, nothing left. At a look
// during the renames the hooks wait for them (the commit's lock): the
// export takes them back and nothing is left either.
func TestExportWatchdogHooks(t *testing.T) {
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	checked, committing := 0, false
	for n := int64(0); !committing; n++ {
		if n > 100 {
			t.Fatal("the export never reached its renames")
		}
		dir := t.TempDir()
		hooks := &exitHooks{}
		ctx := newSigCountdown(n)
		var left []string
		ctx.beforeCancel = func() {
			if !hooks.run(200 * time.Millisecond) {
				committing = true // waiting for the renames: they end first
				return
			}
			left = expFiles(t, dir)
			checked++
		}
		var stdout, stderr bytes.Buffer
		code := runWithHooks(ctx, hooks, []string{"rocetrace", "export", "-o", dir, in}, nil, &stdout, &stderr)
		if code == exitOK {
			t.Fatalf("look %d: not interrupted", n+1)
		}
		if len(left) != 0 {
			t.Errorf("look %d: after the hooks, before the export returned: files %v", n+1, left)
		}
		if code != exitSIGINT || stdout.Len() != 0 {
			t.Errorf("look %d: exit %d, stdout %q", n+1, code, stdout.String())
		}
		if got := expFiles(t, dir); len(got) != 0 {
			t.Errorf("look %d: files left %v", n+1, got)
		}
	}
	t.Logf("hooks checked at %d looks before the renames", checked)
	if checked == 0 {
		t.Error("the hooks never ran before the renames")
	}
}
