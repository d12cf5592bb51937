package pcapio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressRecs is a pcap of n records of 100 bytes each: 24 bytes of file
// header, then 16 + 100 = 116 bytes a record, so record k (0-based) starts
// at byte 24 + 116k of the decompressed stream.
func compressRecs(from, n int) []tRec {
	var recs []tRec
	for i := from; i < from+n; i++ {
		recs = append(recs, tRec{sec: uint32(10 + i), frac: uint32(i), data: payload(0, i, 100)})
	}
	return recs
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// readFile opens data written to a temporary file with OpenFile and
// OpenFileMapped's rules and reads it all.
func readFile(t *testing.T, data []byte, mapped bool) ([]Record, *Reader, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	open := OpenFile
	if mapped {
		open = func(p string, f int) (*Reader, error) { return openFileMapped(p, f, 1) }
	}
	r, err := open(path, 3)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { r.Close() })
	recs, err := readAll(t, r)
	return recs, r, err
}

// TestCompressedMatchesPlain: a gzip or zstd file gives the records of the
// plain file, offsets included (those of the decompressed stream), and is
// never mapped, whatever its name says.
func TestCompressedMatchesPlain(t *testing.T) {
	plain, offs := pcapFile(le, true, 65535, 1, compressRecs(0, 5)...)
	want, _, err := readFile(t, plain, false)
	if err != nil || len(want) != 5 {
		t.Fatalf("plain: %d records, %v", len(want), err)
	}
	// Two gzip members (as `cat a.gz b.gz` makes) read as one stream.
	twoMembers := append(gzipBytes(t, plain[:200]), gzipBytes(t, plain[200:])...)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"gzip", gzipBytes(t, plain)},
		{"gzip two members", twoMembers},
		{"zstd", zstdBytes(t, plain)},
		{"zstd two frames", append(zstdBytes(t, plain[:300]), zstdBytes(t, plain[300:])...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mapped := range []bool{false, true} {
				got, r, err := readFile(t, tc.data, mapped)
				if err != nil {
					t.Fatalf("mapped=%v: %v", mapped, err)
				}
				if r.Mapped() {
					t.Error("a compressed file is mapped")
				}
				// Offsets of the decompressed stream cannot be read again in
				// the file: ReadRecordAt says so rather than misread.
				var rec Record
				if _, err := ReadRecordAt(bytes.NewReader(tc.data), r.Layout(nil), offs[0], &rec, nil); !errors.Is(err, ErrCompressed) {
					t.Errorf("ReadRecordAt on a compressed file: %v, want ErrCompressed", err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d records, want %d", len(got), len(want))
				}
				for i := range got {
					checkRecord(t, got[i], want[i])
					if got[i].Offset != offs[i] {
						t.Errorf("record %d offset %d, want %d", i, got[i].Offset, offs[i])
					}
				}
			}
		})
	}
}

// TestCompressedDamage: damage in the compressed stream is a *DamageError
// at the decompressed offset of the first record not read, after every
// record of the intact part.
func TestCompressedDamage(t *testing.T) {
	first, _ := pcapFile(le, false, 65535, 1, compressRecs(0, 3)...)
	rest := pcapFile2Records(compressRecs(3, 2))
	gzFirst, gzRest := gzipBytes(t, first), gzipBytes(t, rest)
	zFirst, zRest := zstdBytes(t, first), zstdBytes(t, rest)
	badMagic := bytes.Clone(zRest)
	badMagic[1] ^= 0xFF
	for _, tc := range []struct {
		name string
		data []byte
	}{
		// The second member is cut right after its 10-byte gzip header:
		// the 3 records of the first member are whole, the 4th starts at
		// 24 + 3*116 = 372.
		{"gzip truncated", append(bytes.Clone(gzFirst), gzRest[:10]...)},
		// The same cut inside the deflate data of the second member.
		{"gzip truncated in deflate data", append(bytes.Clone(gzFirst), gzRest[:len(gzRest)/2]...)},
		// A second zstd frame whose magic is corrupt.
		{"zstd damaged frame", append(bytes.Clone(zFirst), badMagic...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := readFile(t, tc.data, false)
			var de *DamageError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *DamageError", err)
			}
			if len(got) < 3 {
				t.Fatalf("%d records before the damage, want at least the first member's 3", len(got))
			}
			// Damage at the start of the first record not delivered.
			if want := int64(24 + 116*len(got)); de.Offset != want || de.File == "" {
				t.Errorf("damage %v, want offset %d", de, want)
			}
			if tc.name != "gzip truncated in deflate data" && (len(got) != 3 || de.Offset != 372) {
				t.Errorf("%d records, damage at %d; want 3 and 372", len(got), de.Offset)
			}
		})
	}
}

// TestCompressedOpenDamage: a stream that starts like gzip or zstd but is
// not one is damage at byte 0, its reason naming the format once (the
// fuzz target's find: "gzip: gzip: invalid header"), mapped or not.
func TestCompressedOpenDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		reason string
	}{
		{"gzip header that is none", []byte{0x1F, 0x8B, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 1, 2, 3}, "gzip: invalid header"},
		{"fuzz find", []byte("\x1f\x8b\x8b\x8b\x8b\x8b\x8b\x8b\x8bF&"), "gzip: invalid header"},
		{"gzip magic alone", []byte{0x1F, 0x8B}, "gzip: stream cut short in its header (unexpected EOF)"},
		{"zstd magic, frame cut", []byte{0x28, 0xB5, 0x2F, 0xFD, 0}, "decompressing: compressed stream cut short (unexpected EOF)"},
	} {
		for _, mapped := range []bool{false, true} {
			_, _, err := readFile(t, tc.data, mapped)
			var de *DamageError
			if !errors.As(err, &de) || de.Offset != 0 || de.Reason != tc.reason {
				t.Errorf("%s (mapped=%v): %v, want damage at 0: %s", tc.name, mapped, err, tc.reason)
			}
		}
	}
}

// pcapFile2Records is records without a file header (the rest of a file).
func pcapFile2Records(recs []tRec) []byte {
	var b []byte
	for _, r := range recs {
		b = append(b, pcapRecord(le, r)...)
	}
	return b
}

func TestSniffCompression(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		want int
	}{
		{[]byte{0x1F, 0x8B, 8, 0}, compressGzip},
		{[]byte{0x28, 0xB5, 0x2F, 0xFD}, compressZstd},
		{[]byte{0x5E, 0x2A, 0x4D, 0x18}, compressZstd},
		{[]byte{0xD4, 0xC3, 0xB2, 0xA1}, compressNone},
		{[]byte{0x1F}, compressNone},
		{nil, compressNone},
	} {
		if got := sniffCompression(tc.b); got != tc.want {
			t.Errorf("sniff(% x) = %d, want %d", tc.b, got, tc.want)
		}
	}
}

// FuzzDecompressReader: no compressed input makes the reader panic, and
// records come in order within the decompressed input; every error after
// the header is damage or a read error naming the file.
func FuzzDecompressReader(f *testing.F) {
	plain, _ := pcapFile(le, true, 65535, 1, compressRecs(0, 4)...)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	f.Add(gz.Bytes())
	zw, _ := zstd.NewWriter(nil)
	f.Add(zw.EncodeAll(plain, nil))
	zw.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := newCompressedReader(bytes.NewReader(data), "f", 0)
		if err != nil {
			return
		}
		defer r.Close()
		var prev int64 = -1
		for n := 0; n < 1<<16; n++ {
			var rec Record
			err := r.Next(&rec)
			if err != nil {
				break
			}
			if rec.Offset <= prev {
				t.Fatalf("offset %d after %d", rec.Offset, prev)
			}
			prev = rec.Offset
		}
	})
}
