package synth

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Hostile names a capture shape that stresses the analysis' memory rather
// than its speed.
type Hostile int

// The hostile shapes WriteHostile writes.
const (
	// HostileFlows is N flows of one packet each: a SEND Only from
	// 10.0.0.1 to 10.0.0.2, to QPs 1 … N.
	HostileFlows Hostile = iota + 1
	// HostileGaps is one flow (10.0.0.1 to 10.0.0.2, QP 0x11) with N PSN
	// gaps: N+1 SEND Only packets with PSNs 0, 2, 4, … 2N, each one PSN
	// missing before it (N psn_gap events of one missing PSN each).
	HostileGaps
)

// WriteHostile writes a pcap (ns) of shape h with n flows (HostileFlows)
// or n PSN gaps (HostileGaps), frames 100 ns apart, and returns the frames
// written. n must be at most 2^23 (QPNs and PSNs are 24 bits).
func WriteHostile(w io.Writer, h Hostile, n int) (int64, error) {
	if n < 1 || n > 1<<23 {
		return 0, fmt.Errorf("hostile capture of %d: want 1 … %d", n, 1<<23)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	pw, err := pcapio.NewWriter(bw, pcapio.PcapHeader{Nanos: true, Snaplen: 262144, LinkType: pcapio.LinkTypeEthernet})
	if err != nil {
		return 0, err
	}
	var frames int64
	capture := &Capture{Sink: func(f Frame) error { frames++; return pw.WriteRecord(f.record()) }}
	a := Endpoint{MAC: [6]byte{2, 0, 0, 0, 0, 1}, IP: netip.MustParseAddr("10.0.0.1")}
	b := Endpoint{MAC: [6]byte{2, 0, 0, 0, 0, 2}, IP: netip.MustParseAddr("10.0.0.2")}
	ts := int64(1767323045_000000000)
	switch h {
	case HostileFlows:
		for i := range n {
			c := NewConn(capture, a, b, 0x100, uint32(i+1), 0, 0)
			c.Request(A, ts, decode.OpSendOnly, 64, nil)
			ts += 100
		}
	case HostileGaps:
		c := NewConn(capture, a, b, 0x22, 0x11, 0, 0)
		for i := range n + 1 {
			if i > 0 {
				c.Lose(A, 1)
			}
			c.Request(A, ts, decode.OpSendOnly, 64, nil)
			ts += 100
		}
	default:
		return 0, fmt.Errorf("unknown hostile shape %d", h)
	}
	if err := capture.Err(); err != nil {
		return frames, err
	}
	return frames, bw.Flush()
}
