package engine

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/stagebench"
)

// BenchmarkConsumeFile measures the pipeline's consumer stage alone, as
// Engine.Run's report path runs it (Counter.Observe and
// Table.ObserveFlowHash per frame, a new Engine per pass), over the frames
// of the capture named by $ROCETRACE_BENCH_FILE, decoded and hashed once
// beforehand (their ICRCs checked: FinishICRC is not in it). The packets
// do not fit in a cache, as when they come from the other core. Skipped
// when the variable is unset. min-ns/frame is the fastest pass's time (on
// a shared machine, the least disturbed one):
//
//	ROCETRACE_BENCH_FILE=/tmp/rocetrace-bench/bulk-1m-128.pcap go test -run '^$' \
//	    -bench ConsumeFile -benchtime 10x ./engine
func BenchmarkConsumeFile(b *testing.B) {
	path := benchFile(b)
	in := Open([]string{path})
	var ps []decode.Packet
	var hs []uint64
	err := batches(context.Background(), in, testCfg.Decode, func(bp []decode.Packet, bh []uint64) {
		ps = append(ps, bp...)
		hs = append(hs, bh...)
	}, nil)
	in.Close()
	if err != nil || in.Failed() || len(ps) == 0 {
		b.Fatalf("read: %v %v", err, in.Errors())
	}
	b.ReportAllocs()
	cpu0 := stagebench.CPUNs()
	best := time.Duration(math.MaxInt64)
	for b.Loop() {
		t0 := time.Now()
		consumeAll(New(testCfg), ps, hs)
		best = min(best, time.Since(t0))
	}
	stagebench.PerFrame(b, len(ps), cpu0)
	b.ReportMetric(float64(best.Nanoseconds())/float64(len(ps)), "min-ns/frame")
}

// consumeAll is Engine.Run's report loop over ps (hs their hashes): a
// function of its own, for callgrind's --toggle-collect.
//
//go:noinline
func consumeAll(e *Engine, ps []decode.Packet, hs []uint64) {
	for i := range ps {
		e.counter.Observe(&ps[i])
		e.table.ObserveFlowHash(&ps[i], hs[i])
	}
}
