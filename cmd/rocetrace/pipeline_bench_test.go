package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
)

// BenchmarkPipelineFile runs the whole `report --json` path (analyse and
// WriteJSON) over the capture named by $ROCETRACE_BENCH_FILE, e.g. one made
// by bench/gen.sh; it is skipped when the variable is unset. Use it for
// profiles of real-size captures:
//
//	ROCETRACE_BENCH_FILE=/tmp/b10m-128.pcap go test -run '^$' \
//	    -bench PipelineFile -benchtime 1x -cpuprofile cpu.out ./cmd/rocetrace
func BenchmarkPipelineFile(b *testing.B) {
	path := os.Getenv("ROCETRACE_BENCH_FILE")
	if path == "" {
		b.Skip("ROCETRACE_BENCH_FILE not set")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	c := common{pmtuVal: 0, linkBps: 100e9, rocePort: 4791}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var frames int64
	for b.Loop() {
		in := openInputs([]string{path})
		rep, err := analyse(context.Background(), in, &c, analysis.Options{})
		in.close()
		if err != nil || len(in.errs) != 0 {
			b.Fatalf("analyse: %v %v", err, in.errs)
		}
		var out bytes.Buffer
		if err := analysis.WriteJSON(&out, rep, true); err != nil {
			b.Fatal(err)
		}
		frames = rep.Capture.Packets
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
}
