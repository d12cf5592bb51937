//go:build unix

package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// mkfifo makes a FIFO in a temporary directory (the test skips where it
// cannot). At the end of the test it opens the FIFO for writing without
// blocking and closes it, so that an open abandoned by OpenContext, still
// waiting for a writer, returns and its goroutine ends.
func mkfifo(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return fifo
}

// stallingWriter opens fifo for writing on another goroutine, writes data
// and then stalls (keeps it open); it sends the open file (nil when the
// open failed) once data is written. The test closes it.
func stallingWriter(t *testing.T, fifo string, data []byte) <-chan *os.File {
	t.Helper()
	wrote := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			wrote <- nil
			return
		}
		if _, err := w.Write(data); err != nil {
			t.Error(err)
		}
		wrote <- w
	}()
	return wrote
}

// TestOpenContextFIFO: OpenContext blocked opening a FIFO that has no
// writer (alone, or after a capture it opened) returns once its context
// ends, with no model and an error that names the FIFO and matches
// context.Canceled; a context ended before the call is seen at once.
func TestOpenContextFIFO(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool // the capture lossNAK before the FIFO
		after  time.Duration
	}{
		{"fifo, cancelled while blocked", false, 50 * time.Millisecond},
		{"capture then fifo, cancelled while blocked", true, 50 * time.Millisecond},
		{"fifo, cancelled before", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := mkfifo(t)
			paths := []string{fifo}
			if tc.before {
				paths = []string{lossNAK(t), fifo}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.after == 0 {
				cancel()
			} else {
				time.AfterFunc(tc.after, cancel)
			}
			type result struct {
				m   *Model
				err error
			}
			res := make(chan result, 1)
			go func() {
				m, err := OpenContext(ctx, Config{Paths: paths})
				res <- result{m, err}
			}()
			var r result
			select {
			case r = <-res:
			case <-time.After(10 * time.Second): // a hang, not a timing check
				t.Fatal("OpenContext did not return once its context ended")
			}
			if r.m != nil {
				r.m.Close()
				t.Error("a model for an interrupted open")
			}
			want := "interrupted after 0 frames (" + fifo + ", byte offset 0)"
			if !errors.Is(r.err, context.Canceled) || r.err.Error() != want {
				t.Errorf("error %v, want %q matching context.Canceled", r.err, want)
			}
		})
	}
}

// TestQuitWhileReadBlocked: with the UI up over a FIFO whose writer wrote
// a capture and then stalls (the loader is blocked reading it), q and
// Ctrl-C end Run: the blocked read is woken, loading ends as cancelled.
func TestQuitWhileReadBlocked(t *testing.T) {
	data, err := os.ReadFile(lossNAK(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		key  tcell.Key
		r    rune
	}{
		{"q", tcell.KeyRune, 'q'},
		{"Ctrl-C", tcell.KeyCtrlC, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := mkfifo(t)
			wrote := stallingWriter(t, fifo, data) // the whole capture
			m, err := Open(Config{Paths: []string{fifo}})
			if err != nil {
				t.Fatal(err)
			}
			if w := <-wrote; w != nil {
				defer w.Close()
			}
			ra := startModel(t, context.Background(), m)
			time.Sleep(100 * time.Millisecond) // the loader reads all and blocks
			start := time.Now()
			ra.key(tc.key, tc.r)
			ra.wait()
			t.Logf("Run returned %v after the key", time.Since(start))
			if ra.err != nil {
				t.Fatal(ra.err)
			}
			if p := m.Snapshot().Progress; !p.Done || !p.Canceled {
				t.Errorf("progress %+v: want loading done, cancelled (the writer never ended)", p)
			}
		})
	}
}
