package engine

import (
	"context"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPUNs returns the CPU time of the calling thread.
func threadCPUNs(b *testing.B) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return ts.Nano()
}

// BenchmarkProduceFile measures the pipeline's producer (reading, decoding,
// FlowHash) alone over the capture named by $ROCETRACE_BENCH_FILE: produce
// runs on the benchmark's goroutine, locked to its thread, whose CPU time
// it reports (producer-cpu-ns/frame: no other goroutine's work counts, not
// even the kernel's on other threads). A light consumer reads the hot part
// of every packet, so that the packets' cache lines move between cores as
// in the real pipeline, and keeps ahead of the producer.
func BenchmarkProduceFile(b *testing.B) {
	path := benchFile(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var frames, cpu int64
	sink := 0
	for b.Loop() {
		in := Open([]string{path})
		free := make(chan *packetBatch, pipelineRing)
		full := make(chan *packetBatch, pipelineRing)
		for range pipelineRing {
			free <- new(packetBatch)
		}
		done := make(chan int)
		go func() {
			n, s := 0, 0
			for bt := range full {
				for i := range bt.p[:bt.n] {
					p := &bt.p[i]
					s += p.Len + int(p.BTH.PSN) + int(bt.h[i]) + int(p.DstPort) + int(p.PayloadLen) + int(p.ICRC)
				}
				n += bt.n
				clear(bt.icrc)
				bt.n, bt.icrc, bt.slab = 0, bt.icrc[:0], bt.slab[:0]
				free <- bt
			}
			done <- n + s&1
		}()
		cpu0 := threadCPUNs(b)
		err := produce(context.Background(), in, testCfg.Decode, free, full)
		cpu += threadCPUNs(b) - cpu0
		close(full)
		n := <-done
		in.Close()
		if err != nil || in.Failed() {
			b.Fatalf("produce: %v %v", err, in.Errors())
		}
		frames += int64(n &^ 1)
		sink += n & 1
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
	b.ReportMetric(float64(cpu)/float64(frames), "producer-cpu-ns/frame")
	_ = sink
}
