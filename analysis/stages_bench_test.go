package analysis_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// BenchmarkStageCount measures Counter.Observe, the capture-wide counting,
// over 100k decoded frames of the bulk capture of bench/ (snaplen 128). It
// must not allocate.
func BenchmarkStageCount(b *testing.B) {
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: 100_000, Snaplen: 128, Seed: 1}); err != nil {
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
	b.ReportAllocs()
	var c analysis.Counter
	for b.Loop() {
		for i := range ps {
			c.Observe(&ps[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ps)), "ns/frame")
}
