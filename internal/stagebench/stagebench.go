// Package stagebench is what the per-stage benchmarks of pcapio, decode,
// flows and export share: CPU time per frame (steadier than wall time on a
// shared, busy machine) and the bulk capture of bench/ they run over. It is
// for tests only.
package stagebench

import (
	"bytes"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// PerFrame reports wall-clock and CPU time per frame (ns/frame and
// cpu-ns/frame) of a benchmark whose every pass handles frames frames;
// cpu0 is CPUNs() at its start.
func PerFrame(b *testing.B, frames int, cpu0 int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
	b.ReportMetric(float64(CPUNs()-cpu0)/float64(b.N)/float64(frames), "cpu-ns/frame")
}

// Bulk returns the bulk capture of bench/ (synth.WriteBulk: 1000 QPs,
// WRITE/SEND/READ, ACKs, CE/CNP, NAKs, PFC, VLAN, IPv6, seed 1) of frames
// frames cut to snaplen (0: whole frames), as pcap bytes.
func Bulk(b testing.TB, frames, snaplen int) []byte {
	b.Helper()
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: frames, Snaplen: snaplen, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
