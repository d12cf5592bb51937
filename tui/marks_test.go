package tui

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/pcapio"
)

// readPcap returns the timestamps and wire lengths of a pcap file's
// records.
func readPcap(t *testing.T, path string) (ts []int64, lens []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapio.NewReader(f, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rec pcapio.Record
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			return ts, lens
		}
		if err != nil {
			t.Fatal(err)
		}
		ts, lens = append(ts, rec.TsNs), append(lens, rec.Len)
	}
}

// writeTo presses w, replaces the proposed file name by path and presses
// Enter.
func (hs *harness) writeTo(path string) {
	hs.t.Helper()
	hs.key(tcell.KeyRune, 'w')
	hs.key(tcell.KeyCtrlU, 0)
	hs.keys(path)
	hs.key(tcell.KeyEnter, 0)
}

// Marks: m marks, ' goes to the next mark (wrapping), w writes the marked
// frames; with none marked, w writes the frames listed (here filtered).
// loss_nak_replay: t0 = 1767323045000000000 ns; frame 5 (B's NAK) at +4.5
// µs, frame 14 (B's ACK) at +35 µs: A's replay 9-13 at +28..+32 µs, the
// ACK 2 µs after the last step (+33 + 2); both 62 bytes on the wire.
func TestMarksAndWrite(t *testing.T) {
	const t0 = int64(1767323045000000000)
	dir := t.TempDir()
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	hs.typeFilter("14")
	hs.key(tcell.KeyRune, 'm')
	hs.typeFilter("5")
	hs.key(tcell.KeyRune, 'm')
	hs.contains("Packets (23, 2 marked)")
	hs.contains("*5 ")
	hs.key(tcell.KeyRune, '\'') // from frame 5: frame 14
	hs.contains("Headers of frame 14")
	hs.contains("*14 ")
	hs.key(tcell.KeyRune, '\'') // after the last mark: the first
	hs.contains("Headers of frame 5")

	marked := filepath.Join(dir, "marked.pcap")
	hs.writeTo(marked)
	hs.contains("wrote 2 marked frames to " + marked)
	ts, lens := readPcap(t, marked)
	if len(ts) != 2 || ts[0] != t0+4_500 || ts[1] != t0+35_000 || lens[0] != 62 || lens[1] != 62 {
		t.Fatalf("marked.pcap: ts %v lens %v", ts, lens)
	}

	// m again unmarks; with no mark left, w writes the listed frames: the
	// filter qp:0x11 lists frames 5, 14 and 23 (the last ACK, 62 bytes).
	hs.key(tcell.KeyRune, 'm')
	hs.key(tcell.KeyRune, '\'')
	hs.contains("Headers of frame 14")
	hs.key(tcell.KeyRune, 'm')
	hs.contains("Packets (23)")
	hs.typeFilter("qp:0x11")
	listed := filepath.Join(dir, "listed.pcap")
	hs.writeTo(listed)
	hs.contains("wrote 3 frames listed to " + listed)
	ts, lens = readPcap(t, listed)
	if len(ts) != 3 || ts[0] != t0+4_500 || ts[1] != t0+35_000 || lens[2] != 62 {
		t.Fatalf("listed.pcap: ts %v lens %v", ts, lens)
	}
	// Esc in the file prompt writes nothing.
	hs.key(tcell.KeyRune, 'w')
	hs.key(tcell.KeyEscape, 0)
	hs.contains("Packets │")
}
