package synth

// DCQCNReaction: two senders, captured next to them, each receiving CNPs.
//
//   - 10.0.0.1 QP 0x300 -> 10.0.0.2 QP 0x301 reacts (DCQCN, 25 Gb/s line
//     rate, NVIDIA defaults, 1 µs reaction delay): CNPs at +5, +15 and
//     +30 µs halve its rate each time (25 -> 12.5 -> 6.25 -> 3.125 Gb/s).
//   - 10.0.0.3 QP 0x400 -> 10.0.0.4 QP 0x401 ignores its CNPs (10 Gb/s
//     throughout): CNPs at +10, +20, +30 and +32 µs, the last two 2 µs apart
//     (closer than min_time_between_cnps), all with DSCP 46 instead of 48.
//
// No frame is CE-marked: next to the sender, packets are captured before
// the congested switch marks them. Every packet is an RDMA WRITE Only of 512 bytes paced by the sender's
// rate; the responder ACKs every 8th packet 2 µs later. The traffic runs
// for 60 µs.
func DCQCNReaction() *Capture {
	c := &Capture{}
	q1 := NewConn(c, Host(1), Host(2), 0x300, 0x301, 0, 0)
	pacedStream(c, q1, NewDCQCN(25_000_000_000), []int64{5_000, 15_000, 30_000}, nil)
	q2 := NewConn(c, Host(3), Host(4), 0x400, 0x401, 0, 0)
	ignore := NewDCQCN(10_000_000_000)
	ignore.Ignore = true
	pacedStream(c, q2, ignore, []int64{10_000, 20_000, 30_000, 32_000}, func(r *RoCE) { r.DSCP = 46 })
	c.Sort()
	return c
}

// pacedStream sends 512-byte WRITEs from q's side A for 60 µs, spaced by
// d's rate, and the CNPs (times after t0, sent by side B, modified by
// fill) that d reacts to.
func pacedStream(c *Capture, q *Conn, d *DCQCN, cnps []int64, fill func(*RoCE)) {
	const (
		payload  = 512
		duration = 60_000
		ackEvery = 8
	)
	next := 0
	for ts, n := t0, 1; ts < t0+duration; n++ {
		for next < len(cnps) && t0+cnps[next] <= ts {
			q.CNP(B, t0+cnps[next], fill)
			d.CNP(t0 + cnps[next])
			next++
		}
		_, psns := q.Write(A, ts, 0, payload)
		wire := c.Frames[len(c.Frames)-1].Len
		if n%ackEvery == 0 {
			q.Ack(B, ts+2_000, psns[0])
		}
		ts += d.Gap(ts, wire)
	}
}
