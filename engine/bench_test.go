package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// benchCapture writes a bulk capture of n frames to a temp dir.
func benchCapture(b *testing.B, n, snaplen int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := synth.WriteBulk(f, synth.BulkConfig{Frames: n, Snaplen: snaplen, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkPipeline measures read -> decode -> flows -> analysis per frame
// (the whole `rocetrace report` minus printing) on 200k-frame captures of
// 1000 QPs, mirror-style (snaplen 128) and whole frames.
func BenchmarkPipeline(b *testing.B) {
	const frames = 200_000
	for _, snap := range []int{128, 0} {
		name := "snap128"
		if snap == 0 {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			path := benchCapture(b, frames, snap)
			st, _ := os.Stat(path)
			b.ReportAllocs()
			b.SetBytes(st.Size())
			for b.Loop() {
				in := Open([]string{path})
				rep, err := analyse(context.Background(), in, testCfg)
				in.Close()
				if err != nil || in.Failed() || rep.Capture.Packets < frames {
					b.Fatalf("analyse: %v %v", err, in.Errors())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/frames, "ns/frame")
		})
	}
}
