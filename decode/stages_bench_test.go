package decode_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/stagebench"
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

// stageRecords reads every record of file into owned copies.
func stageRecords(b *testing.B, file []byte) []pcapio.Record {
	b.Helper()
	r, err := pcapio.NewReader(bytes.NewReader(file), "bench.pcap", 0)
	if err != nil {
		b.Fatal(err)
	}
	var recs []pcapio.Record
	slab := make([]byte, 0, len(file))
	for {
		var rec pcapio.Record
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		start := len(slab)
		slab = append(slab, rec.Data...)
		rec.Data = slab[start:len(slab):len(slab)]
		recs = append(recs, rec)
	}
	return recs
}

// BenchmarkStageDecode measures Decoder.DecodeRecord (ICRC included for
// whole frames) over records already in memory.
func BenchmarkStageDecode(b *testing.B) {
	for _, s := range stageShapes {
		b.Run(s.name, func(b *testing.B) {
			recs := stageRecords(b, stagebench.Bulk(b, stageFrames, s.snaplen))
			d := decode.NewDecoder(decode.Config{})
			var p decode.Packet
			b.ReportAllocs()
			cpu0 := stagebench.CPUNs()
			for b.Loop() {
				for i := range recs {
					d.DecodeRecord(&recs[i], &p)
				}
			}
			stagebench.PerFrame(b, len(recs), cpu0)
		})
	}
}

// DecodeRecordDeferICRC followed by FinishICRC (by another Decoder, over a
// copy of the IP packet) gives the packet DecodeRecord gives, for every
// frame of the bulk capture, whole and cut, with good and bad ICRCs.
func TestDecodeDeferICRCMatches(t *testing.T) {
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: 20_000, QPs: 50, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	r, err := pcapio.NewReader(&buf, "bulk.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	d, fin := decode.NewDecoder(decode.Config{}), decode.NewDecoder(decode.Config{})
	var rec pcapio.Record
	deferred, bad := 0, 0
	for i := 0; r.Next(&rec) == nil; i++ {
		data := append([]byte(nil), rec.Data...)
		if i%3 == 0 && len(data) > 100 {
			data[len(data)-1-i%60] ^= 0x10 // payload or ICRC
		}
		for _, snap := range []int{len(data), min(len(data), 128)} {
			rec.Data = data[:snap]
			var want, got decode.Packet
			d.DecodeRecord(&rec, &want)
			for _, minLen := range []int{1, 256} {
				ip, udpOff := d.DecodeRecordDeferICRC(&rec, &got, minLen)
				if ip != nil {
					deferred++
					fin.FinishICRC(&got, append([]byte(nil), ip...), udpOff)
				}
				if got != want {
					t.Fatalf("frame %d cut at %d, minLen %d: deferred ICRC gives\n%+v\nwant\n%+v", i+1, snap, minLen, got, want)
				}
			}
			if want.ICRCStatus == decode.ICRCBad {
				bad++
			}
		}
	}
	if deferred == 0 || bad == 0 {
		t.Fatalf("%d checks deferred, %d bad ICRCs: the test covers nothing", deferred, bad)
	}
}
