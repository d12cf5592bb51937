package pcapio

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// fuzzSeeds returns the test-built captures (whole and damaged) used as
// seeds.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	for _, tc := range damageCases() {
		seeds = append(seeds, tc.data)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, ng := range []bool{false, true} {
		file, _ := mixedCapture(rng, ng, false)
		if len(file) < 64<<10 {
			seeds = append(seeds, file)
		}
	}
	var w ngWriter
	w.shb(le)
	w.idb(1, 0, optU8(ngOptTsResol, 6), ngOpt{2, []byte("eth0")})
	w.idb(276, 0, optU8(ngOptTsResol, 9))
	w.idb(113, 0, optU8(ngOptTsResol, 0x80|10), w.optI64(ngOptTsOffset, 100))
	w.epb(0, 1, payload(0, 1, 61), 0)
	w.epb(1, 2, payload(0, 2, 64), 9000)
	w.block(5, make([]byte, 28))
	w.epb(2, 3, payload(0, 3, 3), 0)
	w.spb(payload(0, 4, 70), 0)
	w.pb(1, 42, payload(0, 5, 33), 0)
	w.shb(be)
	w.idb(1, 64)
	w.epb(0, 7, payload(0, 6, 10), 0)
	w.spb(payload(0, 7, 100), 0)
	seeds = append(seeds, w.b)
	for _, nano := range []bool{false, true} {
		for _, bo := range []bOrder{le, be} {
			file, _ := pcapFile(bo, nano, 65535, 1,
				tRec{sec: 1, frac: 2, data: payload(0, 1, 60)},
				tRec{sec: 3, frac: 4, data: payload(0, 2, 100), orig: 50})
			seeds = append(seeds, file)
		}
	}
	return seeds
}

// FuzzReader checks that no input makes a Reader panic, loop, allocate more
// than about twice the input, deliver records out of order or outside the
// input, or recover after an error.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	// Small real captures, when present.
	if files, err := os.ReadDir("../../shared/pcaps"); err == nil {
		for _, e := range files {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() < 64<<10 {
				if b, err := os.ReadFile("../../shared/pcaps/" + e.Name()); err == nil {
					f.Add(b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const bufSize = 512
		r, err := newReaderSize(bytes.NewReader(data), "fuzz", 7, bufSize)
		if err != nil {
			if r != nil {
				t.Fatal("NewReader returned a reader and an error")
			}
			var de *DamageError
			if !errors.Is(err, ErrNotCapture) && !errors.As(err, &de) {
				t.Fatalf("NewReader error of unexpected kind: %v", err)
			}
			return
		}
		var rec Record
		lastOff := int64(-1)
		var frame uint64
		for {
			err := r.Next(&rec)
			if len(r.buf) > max(bufSize, 2*len(data)) {
				t.Fatalf("buffer of %d bytes for %d bytes of input", len(r.buf), len(data))
			}
			if err != nil {
				var de *DamageError
				if err != io.EOF {
					if !errors.As(err, &de) {
						t.Fatalf("error of unexpected kind: %v", err)
					}
					if de.Offset <= lastOff || de.Offset >= int64(len(data)) || de.File != "fuzz" {
						t.Fatalf("damage at %d after a record at %d (input %d bytes): %v", de.Offset, lastOff, len(data), err)
					}
				}
				for range 3 {
					if err2 := r.Next(&rec); err2 != err {
						t.Fatalf("Next after %v returned %v", err, err2)
					}
				}
				return
			}
			frame++
			if rec.Offset <= lastOff || rec.Offset >= int64(len(data)) {
				t.Fatalf("record offset %d after %d (input %d bytes)", rec.Offset, lastOff, len(data))
			}
			if rec.Frame != frame || rec.File != 7 {
				t.Fatalf("Frame %d File %d, want %d 7", rec.Frame, rec.File, frame)
			}
			if len(rec.Data) != rec.CapLen || cap(rec.Data) != rec.CapLen || rec.Len < rec.CapLen {
				t.Fatalf("len(Data)=%d cap=%d CapLen=%d Len=%d", len(rec.Data), cap(rec.Data), rec.CapLen, rec.Len)
			}
			if rec.Offset+int64(rec.CapLen) > int64(len(data)) {
				t.Fatalf("record at %d with %d bytes overruns the %d-byte input", rec.Offset, rec.CapLen, len(data))
			}
			// The data is the input's, at its place in the record: after a
			// pcap record header, or an EPB, PB or SPB block's fixed fields.
			at := data[rec.Offset:]
			dataAt := func(k int) bool { return len(at) >= k && bytes.HasPrefix(at[k:], rec.Data) }
			if r.Format() == "pcap" && !dataAt(16) || r.Format() == "pcapng" && !dataAt(28) && !dataAt(12) {
				t.Fatalf("record data is not the input's at offset %d", rec.Offset)
			}
			lastOff = rec.Offset
		}
	})
}
