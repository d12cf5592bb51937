package synth

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// BulkConfig describes a large synthesized capture with a realistic mix of
// RoCE traffic over many QPs, for benchmarks and scale tests.
type BulkConfig struct {
	Frames    int     // stop after at least this many frames
	QPs       int     // connections (each with two flows); default 1000
	Snaplen   int     // 0: whole frames; e.g. 128 for mirror-style captures
	PMTU      int     // default 1024
	IPv6Share float64 // share of connections over IPv6 (default 0.1)
	VLANShare float64 // share of connections VLAN-tagged, PCP 3 (default 0.5)
	CEShare   float64 // share of messages CE-marked and answered by a CNP (default 0.02)
	NAKShare  float64 // share of WRITE messages that lose a packet, NAK and replay (default 0.01)
	PFCEvery  int     // one PFC frame every this many frames (default 5000; <0 none)
	Seed      uint64
	Format    Format
}

// BulkStats counts what WriteBulk wrote, for checking an analysis of it.
type BulkStats struct {
	Frames      int64 // all frames
	RoCE        int64 // frames with a BTH (CNPs included)
	CNPs        int64
	PFC         int64
	NAKs        int64 // NAK PSN sequence errors = PSN gaps of one PSN each
	Replayed    int64 // packets sent again after a NAK
	Connections int
}

func (c *BulkConfig) defaults() {
	if c.QPs <= 0 {
		c.QPs = 1000
	}
	if c.PMTU <= 0 {
		c.PMTU = 1024
	}
	if c.IPv6Share == 0 {
		c.IPv6Share = 0.1
	}
	if c.VLANShare == 0 {
		c.VLANShare = 0.5
	}
	if c.CEShare == 0 {
		c.CEShare = 0.02
	}
	if c.NAKShare == 0 {
		c.NAKShare = 0.01
	}
	if c.PFCEvery == 0 {
		c.PFCEvery = 5000
	}
}

// WriteBulk streams a capture of cfg.Frames frames to w without keeping
// them: connections take turns sending WRITE (4 packets at PMTU 1024, then
// an ACK), SEND Only (then an ACK) or READ (request, 2 responses) messages;
// some messages are CE-marked and answered by a CNP 10 µs later, some
// WRITEs lose their second packet, get a NAK and are replayed (go-back-N),
// and a switch sends a PFC pause on priority 3 every PFCEvery frames.
// Frames are 100 ns apart.
func WriteBulk(w io.Writer, cfg BulkConfig) (BulkStats, error) {
	cfg.defaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x726f6365))
	bw := bufio.NewWriterSize(w, 1<<20)
	var st BulkStats
	var pw *pcapio.Writer
	switch cfg.Format {
	case PcapNanos, PcapMicros:
		snap := cfg.Snaplen
		if snap == 0 {
			snap = 262144
		}
		h := pcapio.PcapHeader{Nanos: cfg.Format != PcapMicros, Snaplen: uint32(snap), LinkType: pcapio.LinkTypeEthernet}
		var err error
		if pw, err = pcapio.NewWriter(bw, h); err != nil {
			return st, err
		}
	case Pcapng:
		return st, fmt.Errorf("WriteBulk writes pcap only")
	default:
		return st, fmt.Errorf("unknown format %d", cfg.Format)
	}
	capture := &Capture{Snaplen: cfg.Snaplen}
	capture.Sink = func(f Frame) error {
		st.Frames++
		return pw.WriteRecord(f.record())
	}
	conns := make([]*Conn, cfg.QPs)
	for i := range conns {
		a, b := bulkHost(i, 0), bulkHost(i, 1)
		if rng.Float64() < cfg.IPv6Share {
			a, b = bulkHost6(i, 0), bulkHost6(i, 1)
		}
		c := NewConn(capture, a, b, uint32(0x1000+2*i), uint32(0x1001+2*i), rng.Uint32(), rng.Uint32())
		c.PMTU = cfg.PMTU
		if rng.Float64() < cfg.VLANShare {
			w := Wrap{VLANs: []VLAN{{PCP: 3, VID: 100}}}
			c.SetWrap(A, w)
			c.SetWrap(B, w)
		}
		conns[i] = c
	}
	st.Connections = len(conns)
	sw := [6]byte{0x02, 0x5a, 0, 0, 0, 1}
	ts := int64(1767323045_000000000)
	next := func() int64 { ts += 100; return ts }
	lastPFC := int64(0)
	for st.Frames < int64(cfg.Frames) {
		c := conns[rng.IntN(len(conns))]
		ce := rng.Float64() < cfg.CEShare
		if ce {
			c.SetECN(A, 3)
		}
		before := st.Frames
		switch r := rng.Float64(); {
		case r < 0.80:
			if rng.Float64() < cfg.NAKShare {
				bulkWriteWithLoss(c, next, &st)
			} else {
				var psns []uint32
				for i := range 4 {
					op := decode.OpWriteMiddle
					switch i {
					case 0:
						op = decode.OpWriteFirst
					case 3:
						op = decode.OpWriteLast
					}
					psns = append(psns, c.Request(A, next(), op, c.PMTU, bulkFill(op, c.PMTU*4)))
				}
				c.Ack(B, next(), psns[3])
			}
		case r < 0.90:
			psn := c.Request(A, next(), decode.OpSendOnly, 512, nil)
			c.Ack(B, next(), psn)
		default:
			psn := c.ReadRequest(A, next(), 2*c.PMTU)
			c.ReadResponse(B, next(), 100, psn, 2*c.PMTU)
			ts += 100
		}
		if ce {
			c.SetECN(A, 2)
			c.CNP(B, next(), nil)
			st.CNPs++
		}
		st.RoCE += st.Frames - before
		if cfg.PFCEvery > 0 && st.Frames-lastPFC >= int64(cfg.PFCEvery) {
			lastPFC = st.Frames
			capture.Add(next(), PFC(sw, 1<<3, [8]uint16{3: uint16(100 + rng.IntN(1000))}))
			st.PFC++
		}
		if err := capture.Err(); err != nil {
			return st, err
		}
	}
	return st, bw.Flush()
}

// bulkWriteWithLoss sends a 4-packet WRITE whose second packet is lost; the
// responder NAKs it when the third arrives and the requester replays the
// last three packets.
func bulkWriteWithLoss(c *Conn, next func() int64, st *BulkStats) {
	first := c.Request(A, next(), decode.OpWriteFirst, c.PMTU, bulkFill(decode.OpWriteFirst, c.PMTU*4))
	c.Lose(A, 1)
	c.Request(A, next(), decode.OpWriteMiddle, c.PMTU, nil)
	c.NAK(B, next(), first+1, decode.NAKCodePSNSequenceError)
	st.NAKs++
	c.SetPSN(A, first+1)
	c.Request(A, next(), decode.OpWriteMiddle, c.PMTU, nil)
	c.Request(A, next(), decode.OpWriteMiddle, c.PMTU, nil)
	last := c.Request(A, next(), decode.OpWriteLast, c.PMTU, nil)
	st.Replayed += 2 // PSN first+1 was never seen; first+2 is seen again
	c.Ack(B, next(), last)
}

func bulkFill(op uint8, length int) func(*RoCE) {
	if op != decode.OpWriteFirst {
		return nil
	}
	return func(r *RoCE) { r.RETH = decode.RETHFields{VA: 0x7f0000000000, RKey: 0x1234, DMALen: uint32(length)} }
}

func bulkHost(i, side int) Endpoint {
	n := 2*i + side
	return Endpoint{MAC: [6]byte{2, 1, 0, byte(n >> 16), byte(n >> 8), byte(n)},
		IP: netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)})}
}

func bulkHost6(i, side int) Endpoint {
	n := 2*i + side
	var a [16]byte
	a[0], a[1], a[13], a[14], a[15] = 0xfd, 0x01, byte(n>>16), byte(n>>8), byte(n)
	return Endpoint{MAC: [6]byte{2, 6, 0, byte(n >> 16), byte(n >> 8), byte(n)}, IP: netip.AddrFrom16(a)}
}
