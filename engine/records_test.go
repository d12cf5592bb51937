package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// mergedRecords is the reference for Inputs.Each: the records a plain
// pcapio.Merger over the files gives, described one a line, and its errors
// (damage passed over, any other error the end), read with no fast path.
func mergedRecords(t *testing.T, paths []string) (recs []string, errs []string) {
	t.Helper()
	var readers []*pcapio.Reader
	for i, p := range paths {
		r, err := pcapio.OpenFile(p, i)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r)
	}
	m := pcapio.NewMerger(readers)
	var rec pcapio.Record
	for {
		err := m.Next(&rec)
		if err == io.EOF {
			return recs, errs
		}
		if err != nil {
			errs = append(errs, err.Error())
			var de *pcapio.DamageError
			if errors.As(err, &de) {
				continue
			}
			return recs, errs
		}
		recs = append(recs, describeRecord(&rec))
	}
}

// describeRecord is every field of rec and its data, as a line.
func describeRecord(rec *pcapio.Record) string {
	return fmt.Sprintf("%d %d %d %d %d %d %d %x", rec.File, rec.Frame, rec.Offset, rec.TsNs, rec.CapLen, rec.Len, rec.LinkType, rec.Data)
}

// TestEachMatchesMerger: Each (and so the pipeline's producer, which reads
// with the same records, through Reader.NextBuffered for a single pcap
// file) gives the records and errors of a plain Merger, in its order:
// one file buffered or mapped, with its layouts tracked or not, damaged
// part-way or at the end, and two files merged.
func TestEachMatchesMerger(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, seed uint64, edit func([]byte) []byte) string {
		var buf bytes.Buffer
		if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: 5000, QPs: 20, Snaplen: 128, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		if edit != nil {
			data = edit(data)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole := write("whole.pcap", 1, nil)
	other := write("other.pcap", 2, nil)
	cutEnd := write("cut-end.pcap", 3, func(b []byte) []byte { return b[:len(b)-9] })
	// The 3000th record's captured length past any limit: damage, and the
	// file's end there.
	badLen := write("bad-length.pcap", 4, func(b []byte) []byte {
		off := 24
		for range 2999 {
			off += 16 + int(binary.LittleEndian.Uint32(b[off+8:]))
		}
		b[off+11] = 0x7F
		return b
	})
	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"one file", []string{whole}},
		{"cut at the end", []string{cutEnd}},
		{"bad captured length", []string{badLen}},
		{"two files", []string{whole, other}},
		{"two files, one damaged", []string{badLen, other}},
	} {
		want, wantErrs := mergedRecords(t, tc.paths)
		if damaged := tc.paths[0] != whole; damaged != (len(wantErrs) == 1) {
			t.Fatalf("%s: errors %q", tc.name, wantErrs)
		}
		for _, open := range []struct {
			name string
			fn   func(string, int) (*pcapio.Reader, error)
		}{{"buffered", pcapio.OpenFile}, {"mapped", pcapio.OpenFileMapped}} {
			for _, track := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/track=%v", tc.name, open.name, track), func(t *testing.T) {
					in := OpenWith(tc.paths, open.fn)
					defer in.Close()
					if track {
						in.TrackLayouts()
					}
					var got []string
					if err := in.Each(context.Background(), func(rec *pcapio.Record) error {
						got = append(got, describeRecord(rec))
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("%d records, want %d", len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("record %d:\n%.200s\nwant\n%.200s", i, got[i], want[i])
						}
					}
					var errs []string
					for _, err := range in.Errors() {
						errs = append(errs, err.Error())
					}
					if fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
						t.Errorf("errors %q, want %q", errs, wantErrs)
					}
					if in.Interrupted() {
						t.Errorf("interrupted")
					}
					if track && len(in.Layouts()[0]) != 1 {
						t.Errorf("layouts %v, want one for the first file", in.Layouts())
					}
				})
			}
		}
	}
}

// TestClearChunk: fresh clears a batch clearChunk packets at a time, under
// 2 KiB (the runtime's vector loop), and clears every packet.
func TestClearChunk(t *testing.T) {
	if n := clearChunk * reflect.TypeFor[decode.Packet]().Size(); n >= 2048 {
		t.Errorf("clearChunk packets are %d bytes, want under 2048: make clearChunk smaller", n)
	}
	b := new(packetBatch)
	for i := range b.p {
		b.p[i].Frame, b.p[i].Problem, b.p[i].StopArg = uint64(i+1), "x", 1
	}
	b.n = len(b.p)
	fresh(b)
	for i := range b.p {
		if b.p[i] != (decode.Packet{}) {
			t.Fatalf("packet %d not cleared: %+v", i, b.p[i])
		}
	}
}
