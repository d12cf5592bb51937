//go:build unix

package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// streamFrames is how many records the stalled writers of the tests write.
const streamFrames = 5

// streamCapture returns a pcap header and n records of 60 bytes.
func streamCapture(n int) []byte {
	data := pcapio.AppendPcapHeader(nil, pcapio.PcapHeader{Snaplen: 65535, LinkType: pcapio.LinkTypeEthernet, Nanos: true})
	frame := make([]byte, 60)
	for i := range n {
		data = pcapio.AppendPcapRecord(data, true, int64(i+1)*1000, frame, 60)
	}
	return data
}

// stallWriter opens fifo for writing (on a goroutine: the open blocks
// until the reader opens it), writes data through wrap (nil: as is),
// flushes it and stays open: the writer of a live `tcpdump -w -` between
// two packets. It returns the writer, to be closed by the test (the
// compressor, then the FIFO).
func stallWriter(t *testing.T, fifo string, data []byte, wrap func(io.Writer) io.WriteCloser) <-chan io.Closer {
	t.Helper()
	ch := make(chan io.Closer, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			ch <- nil
			return
		}
		var out io.Writer = w
		var z io.WriteCloser
		if wrap != nil {
			z = wrap(w)
			out = z
		}
		if _, err := out.Write(data); err != nil {
			t.Error(err)
		}
		if f, ok := z.(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil {
				t.Error(err)
			}
		}
		ch <- &stalled{z: z, w: w}
	}()
	return ch
}

// stalled is the writer of stallWriter.
type stalled struct {
	z io.Closer // the compressor, nil for none
	w *os.File
}

func (s *stalled) Close() error {
	var err error
	if s.z != nil {
		err = s.z.Close()
	}
	return errors.Join(err, s.w.Close())
}

// TestStreamPartialBatch: a pipe or FIFO whose writer wrote a few records
// and stalls (it stays open): engine.Run's Observer sees them while the
// writer is still open, not only once 256 have come (a batch) or the
// stream ends; Config.Idle is called once they are observed. Plain, gzip
// and zstd streams (decompressed as they are read). The wait for the
// frames is bounded only to fail instead of hanging: not a timing check.
func TestStreamPartialBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(io.Writer) io.WriteCloser
	}{
		{"plain", nil},
		{"gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
		{"zstd", func(w io.Writer) io.WriteCloser {
			z, err := zstd.NewWriter(w)
			if err != nil {
				t.Fatal(err)
			}
			return z
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			wrote := stallWriter(t, fifo, streamCapture(streamFrames), tc.wrap)
			in := Open([]string{fifo})
			defer in.Close()
			w := <-wrote
			if w == nil {
				t.FailNow()
			}
			defer w.Close() // on failure: before in.Close
			var seen, idleSeen atomic.Int64
			var idles atomic.Int64
			cfg := testCfg
			cfg.Idle = func() time.Duration {
				idles.Add(1)
				idleSeen.Store(seen.Load())
				return 0
			}
			e := New(cfg)
			done := make(chan error, 1)
			go func() {
				done <- e.Run(context.Background(), in, func(*decode.Packet, *flows.Flow) error {
					seen.Add(1)
					return nil
				})
			}()
			waitFor(t, func() bool { return seen.Load() == streamFrames },
				func() string { return "the observer saw " + itoa(seen.Load()) + " frames" })
			waitFor(t, func() bool { return idleSeen.Load() == streamFrames },
				func() string {
					return "Idle called " + itoa(idles.Load()) + " times, after " + itoa(idleSeen.Load()) + " frames"
				})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil || len(in.Errors()) > 0 {
				t.Fatalf("Run: %v, inputs %v", err, in.Errors())
			}
			if n := seen.Load(); n != streamFrames || e.Frames() != streamFrames {
				t.Errorf("%d frames observed, %d counted; want %d (each once)", n, e.Frames(), streamFrames)
			}
		})
	}
}

// TestStreamIdleAgain: an Idle that asks to be called again is, while the
// input still waits (the writer stays open and quiet).
func TestStreamIdleAgain(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	wrote := stallWriter(t, fifo, streamCapture(streamFrames), nil)
	in := Open([]string{fifo})
	defer in.Close()
	w := <-wrote
	if w == nil {
		t.FailNow()
	}
	defer w.Close()
	var idles atomic.Int64
	cfg := testCfg
	cfg.Idle = func() time.Duration {
		if idles.Add(1) < 3 {
			return time.Millisecond
		}
		return 0
	}
	done := make(chan error, 1)
	go func() { done <- New(cfg).Run(context.Background(), in, nil) }()
	waitFor(t, func() bool { return idles.Load() >= 3 },
		func() string { return "Idle called " + itoa(idles.Load()) + " times" })
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRegularFileNoIdle: a regular file never waits: no Idle.
func TestRegularFileNoIdle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.pcap")
	if err := os.WriteFile(path, streamCapture(1000), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Open([]string{path})
	defer in.Close()
	cfg := testCfg
	idles := 0
	cfg.Idle = func() time.Duration { idles++; return 0 }
	e := New(cfg)
	if err := e.Run(context.Background(), in, nil); err != nil || e.Frames() != 1000 || idles != 0 {
		t.Errorf("Run: %v, %d frames, %d idles; want 1000 frames, no idle", err, e.Frames(), idles)
	}
}

// waitFor polls cond until it holds, and fails (with what's message) when
// it does not within 10 s: a bound against a hang, not a timing check.
func waitFor(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s (the writer is still open): %s", what())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
