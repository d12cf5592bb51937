//go:build linux

package pcapio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// openBoth opens path buffered and mapped (whatever its size).
func openBoth(t *testing.T, path string) (buffered, mapped *Reader, errB, errM error) {
	t.Helper()
	buffered, errB = OpenFile(path, 2)
	mapped, errM = openFileMapped(path, 2, 1)
	if errM == nil && !mapped.Mapped() {
		t.Fatalf("%s: not mapped", path)
	}
	return buffered, mapped, errB, errM
}

// readAllMapped reads every record of a mapped reader without copying
// Data: a mapped record stays valid until Close.
func readAllMapped(t *testing.T, r *Reader) ([]Record, error) {
	t.Helper()
	var out []Record
	for {
		var rec Record
		err := r.Next(&rec)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(rec.Data) != rec.CapLen || cap(rec.Data) != rec.CapLen {
			t.Fatalf("record %d: len(Data)=%d cap=%d CapLen=%d", rec.Frame, len(rec.Data), cap(rec.Data), rec.CapLen)
		}
		out = append(out, rec)
	}
}

// sameRecords compares what a buffered and a mapped reader gave.
func sameRecords(t *testing.T, want, got []Record, errW, errG error) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("mapped: %d records, buffered: %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if !bytes.Equal(w.Data, g.Data) {
			t.Fatalf("record %d: data differs", i)
		}
		if w.TsNs != g.TsNs || w.CapLen != g.CapLen || w.Len != g.Len || w.LinkType != g.LinkType ||
			w.File != g.File || w.Frame != g.Frame || w.Offset != g.Offset {
			t.Fatalf("record %d: mapped %+v, buffered %+v", i, g, w)
		}
	}
	var dw, dg *DamageError
	switch {
	case errors.As(errW, &dw) && errors.As(errG, &dg):
		if *dw != *dg {
			t.Errorf("mapped error %+v, buffered %+v", *dg, *dw)
		}
	case (errW == nil) != (errG == nil) || (errW != nil && errW.Error() != errG.Error()):
		t.Errorf("mapped error %v, buffered %v", errG, errW)
	}
}

// TestMappedMatchesBuffered: a mapped reader gives the records and errors
// the buffered one gives, on good and damaged captures of every format, and
// on the shared captures.
func TestMappedMatchesBuffered(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, tc := range damageCases() {
		p := filepath.Join(dir, "damage-"+string(rune('a'+i%26))+string(rune('a'+i/26))+".cap")
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "pcaps")); err == nil {
		paths = append(paths, sharedPcaps(t)...)
	}
	for _, path := range paths {
		b, m, errB, errM := openBoth(t, path)
		if (errB == nil) != (errM == nil) {
			t.Fatalf("%s: open: buffered %v, mapped %v", path, errB, errM)
		}
		if errB != nil {
			if errB.Error() != errM.Error() {
				t.Errorf("%s: open: buffered %v, mapped %v", path, errB, errM)
			}
			continue
		}
		want, errW := readAll(t, b)
		got, errG := readAllMapped(t, m)
		sameRecords(t, want, got, errW, errG)
		if err := m.Close(); err != nil {
			t.Error(err)
		}
		b.Close()
	}
}

// bigPcap writes a pcap with the given snaplen of n records of size bytes
// each (record i filled with byte i) and returns its path.
func bigPcap(t *testing.T, snaplen uint32, n, size int) string {
	t.Helper()
	hdr := pcapHeader(le, true, snaplen, 1)
	buf := bytes.NewBuffer(hdr)
	for i := range n {
		var h [16]byte
		le.PutUint32(h[0:], uint32(i))
		le.PutUint32(h[8:], uint32(size))
		le.PutUint32(h[12:], uint32(size))
		buf.Write(h[:])
		buf.Write(bytes.Repeat([]byte{byte(i)}, size))
	}
	path := filepath.Join(t.TempDir(), "big.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMappedReleaseKeepsRecords: pages behind the read position are given
// back to the kernel as the reader goes on, and records from there still
// read correctly afterwards (the pages come back from the file).
func TestMappedReleaseKeepsRecords(t *testing.T) {
	const n, size = 200_000, 128 // 29 MB: several release steps
	path := bigPcap(t, size, n, size)
	r, err := OpenFileMapped(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Mapped() {
		t.Fatal("a 30 MB file is not mapped")
	}
	recs, err := readAllMapped(t, r)
	if err != nil || len(recs) != n {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if r.released < len(r.buf)-mapReleaseLag-mapReleaseStep-os.Getpagesize() {
		t.Errorf("released %d of %d bytes", r.released, len(r.buf))
	}
	for i, rec := range recs {
		if rec.Offset != int64(24+i*(16+size)) || rec.Data[0] != byte(i) || rec.Data[size-1] != byte(i) {
			t.Fatalf("record %d: offset %d, data %d..%d", i, rec.Offset, rec.Data[0], rec.Data[size-1])
		}
	}
}

// TestMappedFileShrinks: a mapped file cut short by another program while
// it is read gives, under GuardFaults, one *DamageError naming the file and
// the first record not fully read (not the page of the fault), not a
// crash; the records before are intact.
func TestMappedFileShrinks(t *testing.T) {
	// pcap: the file header is 24 bytes, record i starts at 24+i*(16+size).
	// pcapng (SHB 28 bytes, IDB 20, EPBs of 1000 bytes with a comment
	// option: 1048 bytes each): EPB i starts at 48+i*1048.
	ngPath := func(n int) string {
		w := &ngWriter{}
		w.shb(le)
		w.idb(1, 65535)
		for i := range n {
			w.epb(0, uint64(i), bytes.Repeat([]byte{byte(i)}, 1000), 0)
		}
		p := filepath.Join(t.TempDir(), "big.pcapng")
		if err := os.WriteFile(p, w.b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		path string
		cut  int64 // page-aligned: the bytes from there fault
		want int64
	}{
		// Record 1032 at 24+1032*1016 = 1048536: its header is whole, its
		// data crosses the cut (the fault is in fn, at 1048576).
		{"pcap, data cut", bigPcap(t, 65535, 8000, 1000), 1 << 20, 1048536},
		// Record 1057 at 24+1057*992 = 1048568: its header crosses the
		// cut (the fault is in Next).
		{"pcap, header cut", bigPcap(t, 65535, 8000, 976), 1 << 20, 1048568},
		// Record 899 starts at 24+899*1016 = 913408 = 223 pages: the cut
		// falls between two records; record 898 is whole.
		{"pcap, cut between records", bigPcap(t, 65535, 8000, 1000), 913408, 913408},
		// EPB 1000 at 48+1000*1048 = 1048048 crosses the cut (Next reads
		// its trailing length).
		{"pcapng, block cut", ngPath(8000), 1 << 20, 1048048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := openFileMapped(tc.path, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var rec Record
			if err := r.Next(&rec); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(tc.path, tc.cut); err != nil {
				t.Fatal(err)
			}
			var sum int
			last := rec.Offset
			err = GuardFaults(func() error {
				for {
					if err := r.Next(&rec); err != nil {
						return err
					}
					for _, b := range rec.Data {
						sum += int(b)
					}
					last = rec.Offset
				}
			}, r)
			var de *DamageError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T), want *DamageError", err, err)
			}
			if want := (DamageError{File: tc.path, Offset: tc.want, Reason: ReasonShrank}); *de != want {
				t.Errorf("damage %+v, want %+v", *de, want)
			}
			if last >= tc.want || last < tc.want-1100 {
				t.Errorf("last record read whole at %d, want the one before %d", last, tc.want)
			}
		})
	}
}

// TestGuardFaultsAt: on a goroutine that reads kept records, the damage
// names the record at reports; a fault elsewhere in the mapping (at reports
// none) names the page; a panic that is not a fault on the mapping goes on.
func TestGuardFaultsAt(t *testing.T) {
	path := bigPcap(t, 65535, 8000, 1000)
	r, err := openFileMapped(path, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []Record
	for range 1100 {
		var rec Record
		if err := r.Next(&rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := os.Truncate(path, 1<<20); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
		want int64
	}{
		{"record known", true, 1048536}, // record 1032 (see TestMappedFileShrinks)
		{"record unknown", false, 1 << 20},
	} {
		cur, sum := -1, 0
		err := GuardFaultsAt(func() error {
			for cur = range recs {
				for _, b := range recs[cur].Data {
					sum += int(b)
				}
			}
			return nil
		}, func() (int, int64, bool) { return recs[cur].File, recs[cur].Offset, tc.ok }, r)
		var de *DamageError
		if !errors.As(err, &de) || de.Offset != tc.want || de.File != path || cur != 1032 {
			t.Errorf("%s: error %v at record %d (sum %d), want damage at %d in record 1032", tc.name, err, cur, sum, tc.want)
		}
	}
	defer func() {
		if v := recover(); v != "other" {
			t.Errorf("recovered %v, want the other panic", v)
		}
	}()
	_ = GuardFaults(func() error { panic("other") }, r)
}

// TestOpenFileMappedPolicy: OpenFileMapped maps big files, whatever their
// snaplen (see mmap.go).
func TestOpenFileMappedPolicy(t *testing.T) {
	dir := t.TempDir()
	ng := func(snaplens ...uint32) string {
		w := &ngWriter{}
		w.shb(le)
		for _, s := range snaplens {
			w.idb(1, s)
		}
		rec := make([]byte, 100)
		for range 40_000 {
			w.epb(0, 1, rec, 0)
		}
		p := filepath.Join(dir, fmt.Sprintf("ng%d.pcapng", len(snaplens)*1000+int(snaplens[len(snaplens)-1])))
		if err := os.WriteFile(p, w.b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		path   string
		mapped bool
	}{
		{"pcap snaplen 128, 5 MB", bigPcap(t, 128, 40_000, 128), true},
		{"pcap snaplen 512, 5 MB", bigPcap(t, 512, 10_000, 512), true},
		{"pcap snaplen 65535, 5 MB of short records", bigPcap(t, 65535, 40_000, 128), true},
		{"pcap snaplen 65535, 5 MB of 1 KiB records", bigPcap(t, 65535, 5000, 1024), true},
		{"pcap snaplen 0", bigPcap(t, 0, 40_000, 128), true},
		{"pcap snaplen 128, 1 MB", bigPcap(t, 128, 7000, 128), false},
		{"pcapng snaplen 128", ng(128), true},
		{"pcapng snaplens 128 and 0", ng(128, 0), true},
		{"pcapng snaplen 9000", ng(9000), true},
	} {
		r, err := OpenFileMapped(tc.path, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Mapped() != tc.mapped {
			t.Errorf("%s: mapped %v, want %v", tc.name, r.Mapped(), tc.mapped)
		}
		var rec Record
		if err := r.Next(&rec); err != nil || rec.Frame != 1 {
			t.Errorf("%s: first record: %v", tc.name, err)
		}
		r.Close()
	}
}

// FuzzMappedReader checks that a mapped Reader reads any input as the
// buffered one does: the same records, then the same error.
func FuzzMappedReader(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "fuzz.cap")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// A gzip or zstd file is decompressed, never mapped (compress.go):
		// its oracle is the decompressing reader of the same bytes.
		compressed := sniffCompression(data) != compressNone
		var b *Reader
		var errB error
		if compressed {
			b, errB = newCompressedReader(bytes.NewReader(data), path, 2)
		} else {
			b, errB = newReaderSize(bytes.NewReader(data), path, 2, 512)
		}
		m, errM := openFileMapped(path, 2, 1)
		if (errB == nil) != (errM == nil) {
			t.Fatalf("open: buffered %v, mapped %v", errB, errM)
		}
		if errB != nil {
			if errB.Error() != errM.Error() {
				t.Fatalf("open: buffered %v, mapped %v", errB, errM)
			}
			return
		}
		defer m.Close()
		if m.Mapped() == compressed {
			t.Fatalf("mapped %v, compressed %v", m.Mapped(), compressed)
		}
		want, errW := readAll(t, b)
		var got []Record
		var errG error
		if compressed {
			got, errG = readAll(t, m)
		} else {
			got, errG = readAllMapped(t, m)
		}
		sameRecords(t, want, got, errW, errG)
	})
}
