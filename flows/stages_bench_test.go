package flows_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/stagebench"
	"github.com/rocetrace/rocetrace/pcapio"
)

// stagePackets decodes a bulk capture of n frames (see decode's
// BenchmarkStageRead) into packets.
func stagePackets(b *testing.B, n, snaplen int) []decode.Packet {
	b.Helper()
	r, err := pcapio.NewReader(bytes.NewReader(stagebench.Bulk(b, n, snaplen)), "bench.pcap", 0)
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

// BenchmarkStageFlows measures Table.Observe over 100k decoded frames of
// the bulk capture (1000 QPs): a new table per pass, so every pass creates
// the 2000 flows and the events; allocs/op are per pass, not per frame.
func BenchmarkStageFlows(b *testing.B) {
	const n = 100_000
	ps := stagePackets(b, n, 128)
	b.ReportAllocs()
	cpu0 := stagebench.CPUNs()
	for b.Loop() {
		t := flows.NewTable(flows.Config{})
		for i := range ps {
			t.Observe(&ps[i])
		}
	}
	stagebench.PerFrame(b, len(ps), cpu0)
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
	cpu0 := stagebench.CPUNs()
	for b.Loop() {
		shift = ps[len(ps)-1].TsNs - ps[0].TsNs + 1
		for i := range ps {
			ps[i].TsNs += shift
			t.Observe(&ps[i])
		}
	}
	stagebench.PerFrame(b, len(ps), cpu0)
}

// BenchmarkStageFlowsFeed measures the flow table as a pipeline feeds it,
// a new table per pass over 500k frames (2000 flows; the packets do not fit
// in a cache, as when they come from the other core), with each frame's
// FlowHash computed beforehand, as the producer does (ObserveFlowHash).
func BenchmarkStageFlowsFeed(b *testing.B) {
	const n = 500_000
	ps := stagePackets(b, n, 128)
	hs := make([]uint64, len(ps))
	for i := range ps {
		hs[i] = flows.FlowHash(&ps[i])
	}
	b.Run("hash", func(b *testing.B) {
		cpu0 := stagebench.CPUNs()
		for b.Loop() {
			t := flows.NewTable(flows.Config{})
			for i := range ps {
				t.ObserveFlowHash(&ps[i], hs[i])
			}
		}
		stagebench.PerFrame(b, len(ps), cpu0)
	})
}
