package main

import (
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestRatesWorkedByHand: goodput_bps and peak_bps of a synthesized capture
// at two bin sizes. A sends six SEND Onlies of 1000 payload bytes, each
// 1058 bytes on the wire (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + 1000 +
// ICRC 4), at T0 + 0, 400 µs, 900 µs, 1000 µs, 1500 µs and 3000.007 µs;
// B sends one ACK (62 bytes: 14 + 20 + 8 + 12 + AETH 4 + ICRC 4) at
// T0 + 2 ms.
//
// goodput(A) = floor(6000 × 8 × 10^9 / 3 000 007 ns) = floor(15 999 962.67)
// = 15 999 962 b/s; B has one frame: goodput null.
//
// W = 1 ms (T0 is a multiple of it): A's windows hold 0/400/900 µs (3174
// bytes), 1000/1500 µs (2116: the frame exactly at 1 ms opens window 1) and
// 3000.007 µs (1058): peak = floor(3174 × 8e9 / 1e6) = 25 392 000. B: 62 ×
// 8e9 / 1e6 = 496 000.
//
// W = 300 µs: windows count from the epoch, and T0 mod 300 µs = 200 µs,
// so the frames fall at phases 200, 600, 1100, 1200, 1700 and 3200.007 µs:
// windows 0, 2, 3, 4 (1200 µs is exactly 4 × 300 µs: window 4, not 3), 5
// and 10, one frame each: peak = floor(1058 × 8e9 / 3e5) = floor(28 213
// 333.3) = 28 213 333 (a window of two frames would give 56 426 666). B:
// floor(62 × 8e9 / 3e5) = floor(1 653 333.3) = 1 653 333.
func TestRatesWorkedByHand(t *testing.T) {
	c := &synth.Capture{}
	conn := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 100, 500)
	for _, at := range []int64{0, 400_000, 900_000, 1_000_000, 1_500_000, 3_000_007} {
		conn.Request(synth.A, T0+at, decode.OpSendOnly, 1000, nil)
	}
	conn.Ack(synth.B, T0+2_000_000, 105)
	path := filepath.Join(t.TempDir(), "rates.pcap")
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	const ab, ba = "10.0.0.1>10.0.0.2:qp0x000022", "10.0.0.2>10.0.0.1:qp0x000011"
	tests := []struct {
		bin                string
		peakAB, peakBA     float64
		goodputAB, bytesAB float64
	}{
		{"1ms", 25_392_000, 496_000, 15_999_962, 6348},
		{"300us", 28_213_333, 1_653_333, 15_999_962, 6348},
	}
	for _, tc := range tests {
		t.Run(tc.bin, func(t *testing.T) {
			m := reportJSON(t, "--bin", tc.bin, path)
			got := map[string]map[string]any{}
			for _, f := range m["flows"].([]any) {
				fm := f.(map[string]any)
				got[fm["id"].(string)] = fm
			}
			a, b := got[ab], got[ba]
			if a == nil || b == nil {
				t.Fatalf("flows %v", got)
			}
			if a["bytes"] != tc.bytesAB || a["goodput_bps"] != tc.goodputAB || a["peak_bps"] != tc.peakAB {
				t.Errorf("%s: bytes %v goodput %v peak %v, want %v %v %v", ab, a["bytes"], a["goodput_bps"], a["peak_bps"],
					tc.bytesAB, tc.goodputAB, tc.peakAB)
			}
			if b["bytes"] != 62.0 || b["goodput_bps"] != nil || b["peak_bps"] != tc.peakBA {
				t.Errorf("%s: bytes %v goodput %v peak %v, want 62 null %v", ba, b["bytes"], b["goodput_bps"], b["peak_bps"], tc.peakBA)
			}
		})
	}
}
