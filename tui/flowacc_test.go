package tui

import (
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// flowSeriesWant is the flows' series worked out from the capture alone on
// the final snapshot's grid: bytes (FrameLen of the flow's RoCE and CNP
// frames) and the largest ack and read latency sample per flow bucket.
type flowSeriesWant struct {
	bytes, ack, read map[int]*FlowRate
}

// wantFlowSeries reads path with its own decoder and flow table and sums
// each flow's series in the flow buckets of tl.
func wantFlowSeries(t *testing.T, path string, tl Timeline) flowSeriesWant {
	t.Helper()
	w := flowSeriesWant{map[int]*FlowRate{}, map[int]*FlowRate{}, map[int]*FlowRate{}}
	fb := func(ts int64) int { return int((ts-tl.OriginNs)/tl.WidthNs) / flowBucketRatio }
	at := func(m map[int]*FlowRate, i int) *FlowRate {
		if m[i] == nil {
			m[i] = new(FlowRate)
		}
		return m[i]
	}
	table := flows.NewTable(flows.Config{LatencySink: func(s flows.LatencySample) {
		m := w.ack
		switch s.Kind {
		case flows.LatencyAck:
		case flows.LatencyRead:
			m = w.read
		default:
			return
		}
		r, b := at(m, s.Flow.Index()), fb(s.ResponseTsNs)
		r[b] = max(r[b], s.LatencyNs())
	}})
	rd, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	dec := decode.NewDecoder(decode.Config{})
	var (
		rec pcapio.Record
		p   decode.Packet
	)
	for {
		if err := rd.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		dec.DecodeRecord(&rec, &p)
		f := table.ObserveFlow(&p)
		if f != nil && (p.Kind == decode.KindRoCE || p.Kind == decode.KindCNP) {
			at(w.bytes, f.Index())[fb(p.TsNs)] += int64(p.FrameLen)
		}
	}
	return w
}

// The per-flow series (rates, ack and read latency maxima) hold, bucket by
// bucket, what the capture says, however the sums of a window of flow
// buckets were flushed (frames and samples crossing bucket and window
// boundaries, the grid widening as the capture grows, snapshots while
// loading).
func TestFlowSeriesPerBucket(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  synth.BulkConfig
	}{
		{"few-flows", synth.BulkConfig{Frames: 40_000, QPs: 3, Seed: 1}},
		{"many-flows", synth.BulkConfig{Frames: 60_000, QPs: 150, Snaplen: 128, Seed: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeBulk(t, t.TempDir(), "bulk.pcap", c.cfg)
			_, s := load(t, Config{Paths: []string{path}})
			w := wantFlowSeries(t, path, s.Timeline)
			if len(w.bytes) < 2*c.cfg.QPs || len(w.ack) == 0 || len(w.read) == 0 {
				t.Fatalf("capture too plain: %d flows with bytes, %d with ack, %d with read samples",
					len(w.bytes), len(w.ack), len(w.read))
			}
			for i := range s.Report.Flows {
				var ack, read *FlowRate
				if fm := s.FlowMarksOf(i); fm != nil {
					ack, read = fm.AckMaxNs, fm.ReadMaxNs
				}
				for _, g := range []struct {
					what      string
					got, want *FlowRate
				}{{"bytes", s.FlowRate(i), w.bytes[i]}, {"ack", ack, w.ack[i]}, {"read", read, w.read[i]}} {
					var got, want FlowRate // nil: no series, all zero
					if g.got != nil {
						got = *g.got
					}
					if g.want != nil {
						want = *g.want
					}
					if got != want {
						t.Errorf("flow %d %s:\n got %v\nwant %v", i, g.what, got, want)
					}
				}
			}
		})
	}
}
