package tui

import (
	"context"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// BenchmarkLoaderFrame measures what the TUI adds per frame to the
// engine's work (loader.frame: the packet index, the frame's flow id,
// timelines) on 200k mirror-style frames of 1000 QPs, decoded and observed
// once up front.
func BenchmarkLoaderFrame(b *testing.B) {
	e, ps, fs, _ := decodedBulk(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l := &loader{m: &Model{}, eng: e, index: newPacketIndex(1), read: make([]int64, 1), nEvents: e.Table().NumEvents()}
		for i := range ps {
			l.frame(&ps[i], fs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ps)), "ns/frame")
}

// BenchmarkLoaderBatch is BenchmarkLoaderFrame on the batch path
// (observeBatch, 256 frames a call, as engine.RunBatches hands them over),
// publishing nothing.
func BenchmarkLoaderBatch(b *testing.B) {
	e, ps, fs, evs := decodedBulk(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l := &loader{m: &Model{cfg: Config{PublishEvery: time.Hour}}, eng: e, index: newPacketIndex(1),
			read: make([]int64, 1), nEvents: e.Table().NumEvents(), lastPub: time.Now()}
		for i := 0; i < len(ps); i += 256 {
			j := min(i+256, len(ps))
			if err := l.observeBatch(&engine.Batch{Packets: ps[i:j], Flows: fs[i:j], Events: evs[i:j]}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ps)), "ns/frame")
}

// decodedBulk writes 200k mirror-style frames of 1000 QPs and runs them
// through an engine once: the engine, and each frame's packet, flow and
// events.
func decodedBulk(b *testing.B) (*engine.Engine, []decode.Packet, []*flows.Flow, []flows.EventMask) {
	b.Helper()
	path := writeBulk(b, b.TempDir(), "bulk.pcap", synth.BulkConfig{Frames: 200_000, Snaplen: 128, Seed: 1})
	in := engine.Open([]string{path})
	defer in.Close()
	e := engine.New(engine.Config{Decode: decode.Config{RoCEPort: 4791}})
	var ps []decode.Packet
	var fs []*flows.Flow
	var evs []flows.EventMask
	if err := e.Run(context.Background(), in, func(p *decode.Packet, f *flows.Flow) error {
		ps, fs, evs = append(ps, *p), append(fs, f), append(evs, e.Table().FrameEvents())
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return e, ps, fs, evs
}
