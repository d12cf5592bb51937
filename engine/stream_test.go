//go:build unix

package engine

import (
	"bytes"
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

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
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

// TestStreamBurstsMatchFile: a capture written to a FIFO in bursts of
// 1 to 513 records, each written once the frames before are observed (so
// most batches go over part-full, some full, on both sides of 256): every
// frame is observed once, in order, and the report is the one of the same
// capture read from a regular file.
func TestStreamBurstsMatchFile(t *testing.T) {
	dir := t.TempDir()
	path := writeBulk(t, dir, "bulk.pcap", synth.BulkConfig{Frames: 3000, QPs: 20, Seed: 7})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The record boundaries.
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int64
	var rec pcapio.Record
	for r.Next(&rec) == nil {
		starts = append(starts, rec.Offset)
	}
	r.Close()
	starts = append(starts, int64(len(data)))
	want, _, err := reportJSON(t, testCfg, []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var seen atomic.Int64
	bursts := []int{1, 7, 300, 37, 256, 2, 513, 255, 1}
	go func() { // the writer: the header and the first record, then bursts
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer w.Close()
		deadline := time.Now().Add(20 * time.Second) // against a hang
		at, n, late := 0, 0, false
		for i := 0; n < len(starts)-1; i++ {
			next := min(n+bursts[i%len(bursts)], len(starts)-1)
			if _, err := w.Write(data[at:starts[next]]); err != nil {
				t.Error(err)
				return
			}
			at, n = int(starts[next]), next
			for seen.Load() < int64(n) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if seen.Load() < int64(n) && !late {
				late = true
				t.Errorf("%d of the %d frames written observed (the writer waits, for 20 s)", seen.Load(), n)
			}
		}
	}()
	in := Open([]string{fifo})
	defer in.Close()
	e := New(testCfg)
	last := int64(-1)
	err = e.Run(context.Background(), in, func(p *decode.Packet, _ *flows.Flow) error {
		if p.Offset <= last {
			t.Errorf("frame at offset %d after %d", p.Offset, last)
		}
		last = p.Offset
		seen.Add(1)
		return nil
	})
	if err != nil || len(in.Errors()) > 0 {
		t.Fatalf("Run: %v, inputs %v", err, in.Errors())
	}
	if n := seen.Load(); n != int64(len(starts)-1) {
		t.Fatalf("%d frames observed, want %d", n, len(starts)-1)
	}
	var got bytes.Buffer
	if err := analysis.WriteJSON(&got, e.Report(e.Summary([]string{path}), analysis.Options{}), true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the report of the FIFO differs from the file's")
	}
}
