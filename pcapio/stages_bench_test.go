package pcapio_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/internal/stagebench"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Per-stage benchmarks over the bulk capture of bench/ (internal/synth
// WriteBulk: 1000 QPs, WRITE/SEND/READ, ACKs, CE/CNP, NAKs, PFC, VLAN, IPv6),
// in the two shapes of BENCHMARKS.md: mirror-style snaplen 128 and whole
// frames (PMTU 1024). Each reports ns/frame and allocs per pass; a pass over
// stageFrames frames must allocate nothing per frame.

const stageFrames = 100_000

var stageShapes = []struct {
	name    string
	snaplen int
}{{"snap128", 128}, {"full", 0}}

// BenchmarkStageRead measures Reader.Next over an in-memory pcap (the copy
// from the io.Reader into the Reader's buffer included).
func BenchmarkStageRead(b *testing.B) {
	for _, s := range stageShapes {
		b.Run(s.name, func(b *testing.B) {
			file := stagebench.Bulk(b, stageFrames, s.snaplen)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			var rec pcapio.Record
			n := 0
			cpu0 := stagebench.CPUNs()
			for b.Loop() {
				r, err := pcapio.NewReader(bytes.NewReader(file), "bench.pcap", 0)
				if err != nil {
					b.Fatal(err)
				}
				for n = 0; r.Next(&rec) == nil; n++ {
				}
			}
			stagebench.PerFrame(b, n, cpu0)
		})
	}
}

// BenchmarkStageReadFile measures reading the capture from a file (in the
// page cache) with OpenFile (read calls into a buffer) and OpenFileMapped
// (mapped: both captures are over its 4 MiB), system time included.
func BenchmarkStageReadFile(b *testing.B) {
	for _, s := range stageShapes {
		path := filepath.Join(b.TempDir(), s.name+".pcap")
		file := stagebench.Bulk(b, stageFrames, s.snaplen)
		if err := os.WriteFile(path, file, 0o644); err != nil {
			b.Fatal(err)
		}
		for _, m := range []struct {
			name string
			open func(string, int) (*pcapio.Reader, error)
		}{{"buffered", pcapio.OpenFile}, {"mapped", pcapio.OpenFileMapped}} {
			b.Run(s.name+"/"+m.name, func(b *testing.B) {
				b.SetBytes(int64(len(file)))
				b.ReportAllocs()
				var rec pcapio.Record
				n, sum := 0, 0
				cpu0 := stagebench.CPUNs()
				for b.Loop() {
					r, err := m.open(path, 0)
					if err != nil {
						b.Fatal(err)
					}
					if m.name == "mapped" && !r.Mapped() {
						b.Fatalf("mapped: %v", r.Mapped())
					}
					for n = 0; r.Next(&rec) == nil; n++ {
						sum += int(rec.Data[len(rec.Data)-1]) // touch the record, as a decoder does
					}
					r.Close()
				}
				stagebench.PerFrame(b, n, cpu0)
				_ = sum
			})
		}
	}
}
