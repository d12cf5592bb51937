package flows_test

import (
	"bytes"
	"io"
	"syscall"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// stagePackets decodes a bulk capture of n frames (see decode's
// BenchmarkStageRead) into packets.
func stagePackets(b *testing.B, n, snaplen int) []decode.Packet {
	b.Helper()
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: n, Snaplen: snaplen, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	r, err := pcapio.NewReader(&buf, "bench.pcap", 0)
	if err != nil {
		b.Fatal(err)
	}
	d := decode.NewDecoder(decode.Config{})
	var ps []decode.Packet
	var rec pcapio.Record
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, decode.Packet{})
		d.DecodeRecord(&rec, &ps[len(ps)-1])
	}
	return ps
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

// BenchmarkStageFlows measures Table.Observe over 100k decoded frames of
// the bulk capture (1000 QPs): a new table per pass, so every pass creates
// the 2000 flows and the events; allocs/op are per pass, not per frame.
func BenchmarkStageFlows(b *testing.B) {
	const n = 100_000
	ps := stagePackets(b, n, 128)
	b.ReportAllocs()
	cpu0 := cpuNs()
	for b.Loop() {
		t := flows.NewTable(flows.Config{})
		for i := range ps {
			t.Observe(&ps[i])
		}
	}
	perFrame(b, len(ps), cpu0)
}

// BenchmarkStageFlowsWarm is BenchmarkStageFlows on a table that already
// holds every flow: the steady state of a long capture. Passes after the
// first see PSNs going back and so find replays; the cost per frame is what
// counts.
func BenchmarkStageFlowsWarm(b *testing.B) {
	const n = 100_000
	ps := stagePackets(b, n, 128)
	t := flows.NewTable(flows.Config{})
	for i := range ps {
		t.Observe(&ps[i])
	}
	var shift int64
	b.ReportAllocs()
	cpu0 := cpuNs()
	for b.Loop() {
		shift = ps[len(ps)-1].TsNs - ps[0].TsNs + 1
		for i := range ps {
			ps[i].TsNs += shift
			t.Observe(&ps[i])
		}
	}
	perFrame(b, len(ps), cpu0)
}
