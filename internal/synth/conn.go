package synth

import "github.com/rocetrace/rocetrace/decode"

// Side names one end of a Conn.
type Side int

// The two ends of a connection.
const (
	A Side = iota
	B
)

// Other returns the opposite side.
func (s Side) Other() Side { return 1 - s }

// end is one side's state.
type end struct {
	ep    Endpoint
	qpn   uint32
	psn   uint32 // next request PSN this side sends
	msn   uint32 // next MSN this side's ACKs carry
	sport uint16
	ecn   uint8
	dscp  uint8
	wrap  *Wrap
}

// Conn is a connected QP pair (RC by default, or UC/XRC) between A and B.
// Requests from one side go to the other side's QP; its ACKs, NAKs and
// READ responses come back. Every method appends frames to the capture at
// the timestamps it is given.
type Conn struct {
	Cap       *Capture
	Transport decode.Transport // RC (default), UC or XRC
	PMTU      int              // bytes per First/Middle packet (default 1024)
	PKey      uint16
	XRCSRQ    uint32 // XRC SRQ number carried in XRCETH
	side      [2]end
}

// NewConn returns a connection between QP qpa on a and QP qpb on b, whose
// first request PSNs are psnA (A's requests) and psnB (B's requests).
func NewConn(c *Capture, a, b Endpoint, qpa, qpb, psnA, psnB uint32) *Conn {
	return &Conn{
		Cap: c, Transport: decode.TransportRC, PMTU: 1024, PKey: 0xFFFF,
		side: [2]end{
			{ep: a, qpn: qpa, psn: psnA & 0xFFFFFF, sport: uint16(49152 + qpa%16384), ecn: 2, dscp: 26},
			{ep: b, qpn: qpb, psn: psnB & 0xFFFFFF, sport: uint16(49152 + qpb%16384), ecn: 2, dscp: 26},
		},
	}
}

// SetECN sets the ECN codepoint of the frames side s sends (3 = CE).
func (c *Conn) SetECN(s Side, ecn uint8) { c.side[s].ecn = ecn }

// SetDSCP sets the DSCP of the frames side s sends.
func (c *Conn) SetDSCP(s Side, dscp uint8) { c.side[s].dscp = dscp }

// SetSrcPort sets the UDP source port of the frames side s sends.
func (c *Conn) SetSrcPort(s Side, port uint16) { c.side[s].sport = port }

// SetWrap overrides the capture's wrapping for frames side s sends.
func (c *Conn) SetWrap(s Side, w Wrap) { c.side[s].wrap = &w }

// NextPSN returns the PSN side s's next request will carry.
func (c *Conn) NextPSN(s Side) uint32 { return c.side[s].psn }

// SetPSN sets the PSN of side s's next request (e.g. to replay after a
// NAK: go-back-N).
func (c *Conn) SetPSN(s Side, psn uint32) { c.side[s].psn = psn & 0xFFFFFF }

// Lose advances side s's request PSN by n without emitting frames: the
// capture never sees those n packets.
func (c *Conn) Lose(s Side, n int) { c.side[s].psn = (c.side[s].psn + uint32(n)) & 0xFFFFFF }

// QPN returns the QP number of side s.
func (c *Conn) QPN(s Side) uint32 { return c.side[s].qpn }

// frame builds a RoCE frame sent by side s to the other side's QP.
func (c *Conn) frame(s Side, op uint8, psn uint32) *RoCE {
	from, to := &c.side[s], &c.side[s.Other()]
	return &RoCE{
		Src: from.ep, Dst: to.ep, SrcPort: from.sport, DSCP: from.dscp, ECN: from.ecn,
		BTH: decode.BTHFields{
			Opcode: decode.Opcode(uint8(c.Transport)<<5 | op),
			PKey:   c.PKey, DestQP: to.qpn, PSN: psn & 0xFFFFFF,
		},
		XRCSRQ: c.XRCSRQ,
	}
}

func (c *Conn) emit(s Side, ts int64, r *RoCE) {
	if w := c.side[s].wrap; w != nil {
		c.Cap.AddRoCEWrap(ts, r, *w)
		return
	}
	c.Cap.AddRoCE(ts, r)
}

// Request emits one request packet with operation op (low five opcode
// bits) from side s at ts, carrying payload bytes, and advances s's PSN by
// one. fill, if not nil, may set extended header fields. It returns the
// packet's PSN.
func (c *Conn) Request(s Side, ts int64, op uint8, payload int, fill func(*RoCE)) uint32 {
	psn := c.side[s].psn
	r := c.frame(s, op, psn)
	r.Payload = payload
	if fill != nil {
		fill(r)
	}
	c.emit(s, ts, r)
	c.side[s].psn = (psn + 1) & 0xFFFFFF
	return psn
}

// message emits a multi-packet message of length bytes: First/Middle/Last
// (or Only) at ts, ts+step, ...; it returns the time after the last packet
// and the PSNs used.
func (c *Conn) message(s Side, ts, step int64, length int, first, middle, last, only uint8, reth bool) (int64, []uint32) {
	n := max(1, (length+c.PMTU-1)/c.PMTU)
	var psns []uint32
	for i := range n {
		op, size := middle, c.PMTU
		switch {
		case n == 1:
			op, size = only, length
		case i == 0:
			op = first
		case i == n-1:
			op, size = last, length-(n-1)*c.PMTU
		}
		withRETH := reth && (i == 0)
		psns = append(psns, c.Request(s, ts, op, size, func(r *RoCE) {
			if withRETH {
				r.RETH = decode.RETHFields{VA: 0x7f0000000000 + uint64(c.side[s].psn)*4096, RKey: 0x1234, DMALen: uint32(length)}
			}
			if i == n-1 {
				r.BTH.AckReq = true
			}
		}))
		ts += step
	}
	return ts, psns
}

// Write emits an RDMA WRITE of length bytes from side s.
func (c *Conn) Write(s Side, ts, step int64, length int) (int64, []uint32) {
	return c.message(s, ts, step, length, decode.OpWriteFirst, decode.OpWriteMiddle, decode.OpWriteLast, decode.OpWriteOnly, true)
}

// Send emits a SEND of length bytes from side s.
func (c *Conn) Send(s Side, ts, step int64, length int) (int64, []uint32) {
	return c.message(s, ts, step, length, decode.OpSendFirst, decode.OpSendMiddle, decode.OpSendLast, decode.OpSendOnly, false)
}

// ReadRequest emits an RDMA READ Request for length bytes from side s. It
// consumes max(1, ceil(length/PMTU)) PSNs and returns the first.
func (c *Conn) ReadRequest(s Side, ts int64, length int) uint32 {
	psn := c.Request(s, ts, decode.OpReadRequest, 0, func(r *RoCE) {
		r.RETH = decode.RETHFields{VA: 0x7f1000000000, RKey: 0x5678, DMALen: uint32(length)}
		r.BTH.AckReq = true
	})
	n := max(1, (length+c.PMTU-1)/c.PMTU)
	c.side[s].psn = (psn + uint32(n)) & 0xFFFFFF
	return psn
}

// ReadResponse emits the READ responses side s (the responder) sends for
// a request at psn of length bytes, at ts, ts+step, ...; skip lists
// response indexes (0-based) the capture misses. It returns the time after
// the last packet.
func (c *Conn) ReadResponse(s Side, ts, step int64, psn uint32, length int, skip ...int) int64 {
	n := max(1, (length+c.PMTU-1)/c.PMTU)
	for i := range n {
		op, size := decode.OpReadResponseMiddle, c.PMTU
		switch {
		case n == 1:
			op, size = decode.OpReadResponseOnly, length
		case i == 0:
			op = decode.OpReadResponseFirst
		case i == n-1:
			op, size = decode.OpReadResponseLast, length-(n-1)*c.PMTU
		}
		skipped := false
		for _, k := range skip {
			skipped = skipped || k == i
		}
		if !skipped {
			r := c.frame(s, op, psn+uint32(i))
			r.Payload = size
			r.AETH = decode.AETHFields{Syndrome: 0x1F, MSN: c.side[s].msn}
			c.emit(s, ts, r)
		}
		ts += step
	}
	c.side[s].msn++
	return ts
}

// Ack emits an ACK from side s (the responder) for the other side's
// requests up to psn, and advances s's MSN.
func (c *Conn) Ack(s Side, ts int64, psn uint32) {
	c.aeth(s, ts, psn, 0x1F)
	c.side[s].msn++
}

// NAK emits a NAK from side s with the given code (e.g.
// decode.NAKCodePSNSequenceError) at psn, the PSN the responder expected.
func (c *Conn) NAK(s Side, ts int64, psn uint32, code uint8) {
	c.aeth(s, ts, psn, 0x60|code&0x1F)
}

// RNRNAK emits an RNR NAK from side s with the 5-bit timer code.
func (c *Conn) RNRNAK(s Side, ts int64, psn uint32, timer uint8) {
	c.aeth(s, ts, psn, 0x20|timer&0x1F)
}

func (c *Conn) aeth(s Side, ts int64, psn uint32, syndrome uint8) {
	r := c.frame(s, decode.OpAcknowledge, psn)
	r.AETH = decode.AETHFields{Syndrome: decode.Syndrome(syndrome), MSN: c.side[s].msn}
	c.emit(s, ts, r)
}

// CNP emits a congestion notification from side s (the notification
// point) to the other side's QP (the reaction point, whose packets were
// CE-marked). CNPs go with DSCP 48 and ECN Not-ECT... unless changed by
// fill.
func (c *Conn) CNP(s Side, ts int64, fill func(*RoCE)) {
	from, to := &c.side[s], &c.side[s.Other()]
	r := &RoCE{
		Src: from.ep, Dst: to.ep, SrcPort: from.sport, DSCP: 48, ECN: 0,
		BTH: decode.BTHFields{Opcode: decode.OpcodeCNP, PKey: c.PKey, DestQP: to.qpn, BECN: true},
	}
	if fill != nil {
		fill(r)
	}
	c.emit(s, ts, r)
}

// UD sends UD SEND Only datagrams from srcQP on src to dstQP on dst.
type UD struct {
	Cap          *Capture
	Src, Dst     Endpoint
	SrcQP, DstQP uint32
	QKey         uint32
	PSN          uint32
	SrcPort      uint16
}

// Send emits one UD SEND Only with payload bytes at ts and advances the PSN.
func (u *UD) Send(ts int64, payload int) {
	u.Cap.AddRoCE(ts, &RoCE{
		Src: u.Src, Dst: u.Dst, SrcPort: u.SrcPort, DSCP: 26, ECN: 2,
		BTH:     decode.BTHFields{Opcode: decode.OpcodeUDSendOnly, PKey: 0xFFFF, DestQP: u.DstQP, PSN: u.PSN},
		DETH:    decode.DETHFields{QKey: u.QKey, SrcQP: u.SrcQP},
		Payload: payload,
	})
	u.PSN = (u.PSN + 1) & 0xFFFFFF
}
