package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// readAll reads every record of a capture file, failing on damage.
func readAll(t *testing.T, path string) []synth.Frame {
	t.Helper()
	out, err := readFrames(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// readWhole is readAll for a file the Writer may be flushing into right
// now: the flush is one write(2), but the kernel extends a regular file a
// page at a time, so a reader can see a record cut by the end of the file
// for the moment the write is in progress. Such a cut must heal by itself
// within 2 ms, well before the next flush (the test's FlushInterval is
// 5 ms), so a Writer that left part of a record on disk until its next
// flush still fails; any other damage fails at once.
func readWhole(t *testing.T, path string) []synth.Frame {
	t.Helper()
	for try := 0; ; try++ {
		out, err := readFrames(path)
		var dmg *pcapio.DamageError
		if err == nil {
			return out
		}
		if !errors.As(err, &dmg) || try == 20 {
			t.Fatalf("%s: %v", path, err)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// readFrames reads the frames of the capture at path.
func readFrames(path string) ([]synth.Frame, error) {
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []synth.Frame
	var rec pcapio.Record
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if rec.LinkType != pcapio.LinkTypeEthernet {
			return out, fmt.Errorf("link type %v", rec.LinkType)
		}
		out = append(out, synth.Frame{TsNs: rec.TsNs, Data: append([]byte(nil), rec.Data...), Len: rec.Len})
	}
}

func sameFrames(t *testing.T, got, want []synth.Frame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].TsNs != want[i].TsNs || got[i].Len != want[i].Len || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("frame %d differs: ts %d len %d caplen %d, want ts %d len %d caplen %d",
				i+1, got[i].TsNs, got[i].Len, len(got[i].Data), want[i].TsNs, want[i].Len, len(want[i].Data))
		}
	}
}

func writeFrames(t *testing.T, w *Writer, frames []synth.Frame) {
	t.Helper()
	for _, f := range frames {
		rec := pcapio.Record{Data: f.Data, TsNs: f.TsNs, CapLen: len(f.Data), Len: f.Len}
		if err := w.WriteRecord(&rec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriterFormats(t *testing.T) {
	frames := synth.MirrorERSPAN().Frames // snaplen 192: caplen < len
	frames = append(frames, synth.PFCPauseStorm().Frames[:50]...)
	frames[3].TsNs += 123 // an odd nanosecond survives
	for _, name := range []string{"out.pcapng", "out.pcap", "out"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := NewWriter(WriterOptions{Path: path, Interface: "eth9", Stats: func() (uint64, uint64) { return 7, 2 }})
			if err != nil {
				t.Fatal(err)
			}
			writeFrames(t, w, frames)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			sameFrames(t, readAll(t, path), frames)
			b, _ := os.ReadFile(path)
			isNG := bytes.HasPrefix(b, []byte{0x0A, 0x0D, 0x0D, 0x0A})
			if isNG != (name != "out.pcap") {
				t.Errorf("pcapng=%v for %s", isNG, name)
			}
			if w.Frames() != uint64(len(frames)) || len(w.Files()) != 1 || w.Files()[0] != path {
				t.Errorf("Frames %d Files %v", w.Frames(), w.Files())
			}
			if err := w.WriteRecord(&pcapio.Record{}); !errors.Is(err, ErrWriterClosed) {
				t.Errorf("write after close: %v", err)
			}
		})
	}
}

// TestWriterValidAtAnyMoment reads the file while the writer is still
// open: after the flush interval every record written so far is there,
// and the file never ends in part of a record.
func TestWriterValidAtAnyMoment(t *testing.T) {
	frames := synth.LossNAKReplay().Frames
	for _, name := range []string{"live.pcapng", "live.pcap"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := NewWriter(WriterOptions{Path: path, FlushInterval: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if got := readWhole(t, path); len(got) != 0 {
			t.Fatalf("%d frames in a new file", len(got))
		}
		for i := range frames {
			writeFrames(t, w, frames[i:i+1])
			// Whatever is on disk now is a valid capture (a prefix).
			got := readWhole(t, path)
			sameFrames(t, got, frames[:len(got)])
		}
		deadline := time.Now().Add(5 * time.Second)
		for len(readWhole(t, path)) < len(frames) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		sameFrames(t, readWhole(t, path), frames)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriterRotation(t *testing.T) {
	frames := synth.CongestionCNP().Frames
	dir := t.TempDir()
	path := filepath.Join(dir, "ring.pcapng")
	w, err := NewWriter(WriterOptions{Path: path, RotateSize: 4096, RotateCount: 3, Stats: func() (uint64, uint64) { return 1, 0 }})
	if err != nil {
		t.Fatal(err)
	}
	writeFrames(t, w, frames)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) != 3 {
		t.Fatalf("files %v, want 3", files)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Fatalf("%d files in the directory, want 3", len(ents))
	}
	// The kept files are the newest, in order, and hold the last frames.
	var got []synth.Frame
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		fr := readAll(t, f)
		if len(fr) > 1 && st.Size() > 4096 {
			t.Errorf("%s: %d bytes, over the rotate size", f, st.Size())
		}
		if i > 0 && f <= files[i-1] {
			t.Errorf("files out of order: %v", files)
		}
		got = append(got, fr...)
	}
	sameFrames(t, got, frames[len(frames)-len(got):])
	if filepath.Base(files[2]) <= "ring-000003.pcapng" {
		t.Errorf("last file %s: expected a later sequence number", files[2])
	}

	// Without a count every file stays.
	dir2 := t.TempDir()
	w, err = NewWriter(WriterOptions{Path: filepath.Join(dir2, "all.pcap"), RotateSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	writeFrames(t, w, frames)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range w.Files() {
		got = append(got, readAll(t, f)...)
	}
	sameFrames(t, got, frames)
	if filepath.Base(w.Files()[0]) != "all-000001.pcap" {
		t.Errorf("first file %s", w.Files()[0])
	}
}

func TestWriterErrors(t *testing.T) {
	if _, err := NewWriter(WriterOptions{Path: filepath.Join(t.TempDir(), "x.pcap"), RotateCount: 2}); err == nil {
		t.Error("rotate count without size accepted")
	}
	if _, err := NewWriter(WriterOptions{Path: filepath.Join(t.TempDir(), "no", "such", "dir.pcap")}); err == nil {
		t.Error("file in a missing directory accepted")
	}
	if _, err := NewWriter(WriterOptions{}); err == nil {
		t.Error("empty path accepted")
	}
}

// Offset tells where each record goes: the offsets a reader finds the
// records at, in pcap and pcapng, before and after a flush.
func TestWriterOffset(t *testing.T) {
	frames := synth.LossNAKReplay().Frames
	for _, ext := range []string{".pcap", ".pcapng"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w"+ext)
			w, err := NewWriter(WriterOptions{Path: path, FlushInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			var offs []int64
			for i, f := range frames {
				offs = append(offs, w.Offset())
				rec := pcapio.Record{Data: f.Data, TsNs: f.TsNs, CapLen: len(f.Data), Len: f.Len}
				if err := w.WriteRecord(&rec); err != nil {
					t.Fatal(err)
				}
				if i == len(frames)/2 {
					if err := w.Flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := pcapio.OpenFile(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var rec pcapio.Record
			for i := 0; ; i++ {
				err := r.Next(&rec)
				if errors.Is(err, io.EOF) {
					if i != len(offs) {
						t.Fatalf("%d records read, %d written", i, len(offs))
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if rec.Offset != offs[i] {
					t.Fatalf("record %d at offset %d, Offset said %d", i+1, rec.Offset, offs[i])
				}
			}
		})
	}
}
