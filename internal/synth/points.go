package synth

import "github.com/rocetrace/rocetrace/decode"

// TwoPointsUp is TwoPoints' up capture (a demo scenario).
func TwoPointsUp() *Capture { up, _ := TwoPoints(); return up }

// TwoPointsDown is TwoPoints' down capture (a demo scenario).
func TwoPointsDown() *Capture { _, down := TwoPoints(); return down }

// TwoPoints returns one RC connection seen at two capture points on the
// path A -> up -> down -> B (the demo pcaps/two_points_{up,down}.pcap).
// A writes 8 single-packet RDMA WRITEs, PSNs 100..107, at t0 + i*10 µs;
// B ACKs each it receives 5 µs after it reaches down. The requests reach
// down 2000 + (i%3)*100 ns after up (jitter), ECN-marked CE and with DSCP
// 46 on the way (the identity must still match). PSN 103 (i = 3) is lost
// between up and down; up missed PSN 105 (i = 5), which down saw. ACKs
// go B -> down -> up, 2000 ns between the points, for the 7 requests B
// received.
func TwoPoints() (up, down *Capture) {
	up, down = &Capture{}, &Capture{}
	cu := NewConn(up, Host(1), Host(2), 0x11, 0x22, 100, 5000)
	cd := NewConn(down, Host(1), Host(2), 0x11, 0x22, 100, 5000)
	cd.SetECN(A, 3)
	cd.SetDSCP(A, 46)
	for i := range 8 {
		ts := t0 + int64(i)*10_000
		tDown := ts + 2000 + int64(i%3)*100
		psn := cu.NextPSN(A)
		if i == 5 {
			cu.Lose(A, 1) // up's capture missed it
		} else {
			cu.Request(A, ts, decode.OpWriteOnly, 64, nil)
		}
		if i == 3 {
			cd.Lose(A, 1) // lost between up and down
			continue
		}
		cd.Request(A, tDown, decode.OpWriteOnly, 64, nil)
		tAck := tDown + 5_000
		cd.Ack(B, tAck, psn)
		cu.Ack(B, tAck+2000, psn)
	}
	up.Sort()
	down.Sort()
	return up, down
}
