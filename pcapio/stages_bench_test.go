package pcapio_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
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

var (
	stageMu    sync.Mutex
	stageFiles = map[int][]byte{}
)

// stageCapture returns the bulk capture of stageFrames frames cut to snaplen.
func stageCapture(b *testing.B, snaplen int) []byte {
	b.Helper()
	stageMu.Lock()
	defer stageMu.Unlock()
	if f, ok := stageFiles[snaplen]; ok {
		return f
	}
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: stageFrames, Snaplen: snaplen, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	stageFiles[snaplen] = buf.Bytes()
	return buf.Bytes()
}

// cpuNs returns the CPU time (user and system, all threads) the process
// has used so far, in nanoseconds.
func cpuNs() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// perFrame reports wall-clock and CPU time per frame. On a shared, busy
// machine the CPU time (cpu-ns/frame) is the steadier of the two.
func perFrame(b *testing.B, frames int, cpu0 int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N)/float64(frames), "cpu-ns/frame")
}

// BenchmarkStageRead measures Reader.Next over an in-memory pcap (the copy
// from the io.Reader into the Reader's buffer included).
func BenchmarkStageRead(b *testing.B) {
	for _, s := range stageShapes {
		b.Run(s.name, func(b *testing.B) {
			file := stageCapture(b, s.snaplen)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			var rec pcapio.Record
			n := 0
			cpu0 := cpuNs()
			for b.Loop() {
				r, err := pcapio.NewReader(bytes.NewReader(file), "bench.pcap", 0)
				if err != nil {
					b.Fatal(err)
				}
				for n = 0; r.Next(&rec) == nil; n++ {
				}
			}
			perFrame(b, n, cpu0)
		})
	}
}

// BenchmarkStageReadFile measures reading the capture from a file (in the
// page cache) with OpenFile (read calls into a buffer) and OpenFileMapped
// (mapped; it maps only the snaplen-128 capture), system time included.
func BenchmarkStageReadFile(b *testing.B) {
	for _, s := range stageShapes {
		path := filepath.Join(b.TempDir(), s.name+".pcap")
		file := stageCapture(b, s.snaplen)
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
				cpu0 := cpuNs()
				for b.Loop() {
					r, err := m.open(path, 0)
					if err != nil {
						b.Fatal(err)
					}
					if m.name == "mapped" && r.Mapped() != (s.snaplen != 0) {
						b.Fatalf("mapped: %v", r.Mapped())
					}
					for n = 0; r.Next(&rec) == nil; n++ {
						sum += int(rec.Data[len(rec.Data)-1]) // touch the record, as a decoder does
					}
					r.Close()
				}
				perFrame(b, n, cpu0)
				_ = sum
			})
		}
	}
}
