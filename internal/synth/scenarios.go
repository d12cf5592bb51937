package synth

import "github.com/rocetrace/rocetrace/decode"

// Scenario is a named capture that shows one thing, used for the demo
// captures in pcaps/ and for end-to-end tests.
type Scenario struct {
	Name   string // file name without extension
	Format Format
	About  string // one line: what the capture shows
	Build  func() *Capture
}

// t0 is the first timestamp of every scenario: 2026-01-02 03:04:05 UTC.
const t0 int64 = 1767323045_000000000

// Scenarios lists the demo scenarios, in the order pcaps/README.md gives.
func Scenarios() []Scenario {
	return []Scenario{
		{"loss_nak_replay", PcapNanos, "RC WRITEs lose PSN 1003; the responder NAKs it (PSN sequence error) and the requester replays 1003-1005 (go-back-N).", LossNAKReplay},
		{"congestion_cnp", PcapNanos, "Two QPs, CE-marked WRITEs answered by coalesced CNPs 12-40 µs later; one CE burst is never answered.", CongestionCNP},
		{"pfc_pause_storm", Pcapng, "RoCE on priority 3 stalled by a PFC pause refreshed for 150 ms (a pause storm), plus a short XON'd pause.", PFCPauseStorm},
		{"mirror_erspan_snap192", Pcapng, "ERSPAN III mirror of READ/WRITE traffic over IPv6 and VLAN 100, cut at snaplen 192 (the ICRC is not captured).", MirrorERSPAN},
		{"dcqcn_reaction", PcapNanos, "A DCQCN sender halving its rate on each CNP next to one that ignores its CNPs (sent 2 µs apart, DSCP 46).", DCQCNReaction},
		{"two_points_up", PcapNanos, "Capture point 1 of 2 (TwoPoints): RC WRITEs at the sender's side; PSN 105 missed by this capture.", TwoPointsUp},
		{"two_points_down", PcapNanos, "Capture point 2 of 2 (TwoPoints): the same WRITEs 2-2.2 µs later, CE-marked; PSN 103 lost between the points.", TwoPointsDown},
	}
}

// LossNAKReplay: A writes 8 KiB messages to B at PMTU 1024 (8 packets
// each). Packet PSN 1003 of the first message is lost; B NAKs PSN 1003
// when 1004 arrives; A replays 1003..1007 after the NAK, then a second
// message follows cleanly.
func LossNAKReplay() *Capture {
	c := &Capture{}
	conn := NewConn(c, Host(1), Host(2), 0x11, 0x22, 1000, 5000)
	ts := t0
	const step = 1_000 // 1 µs between packets
	// First message: PSNs 1000..1007; 1003 is lost on the wire.
	for i := range 8 {
		op := decode.OpWriteMiddle
		switch i {
		case 0:
			op = decode.OpWriteFirst
		case 7:
			op = decode.OpWriteLast
		}
		if i == 3 {
			conn.Lose(A, 1)
			ts += step
			continue
		}
		conn.Request(A, ts, op, 1024, func(r *RoCE) {
			if op == decode.OpWriteFirst {
				r.RETH = decode.RETHFields{VA: 0x7f0000000000, RKey: 0x1234, DMALen: 8192}
			}
			r.BTH.AckReq = op == decode.OpWriteLast
		})
		if i == 4 {
			// B sees 1004 where it expected 1003.
			conn.NAK(B, ts+500, 1003, decode.NAKCodePSNSequenceError)
		}
		ts += step
	}
	// Go-back-N: A replays from 1003 after the NAK.
	ts += 20_000
	conn.SetPSN(A, 1003)
	for i := 3; i < 8; i++ {
		op := decode.OpWriteMiddle
		if i == 7 {
			op = decode.OpWriteLast
		}
		conn.Request(A, ts, op, 1024, func(r *RoCE) { r.BTH.AckReq = i == 7 })
		ts += step
	}
	conn.Ack(B, ts+2_000, 1007)
	ts += 50_000
	ts, _ = conn.Write(A, ts, step, 8192)
	conn.Ack(B, ts+2_000, conn.NextPSN(A)-1)
	return c
}

// CongestionCNP: two QPs from A to B. QP 0x100's WRITEs are CE-marked in
// two bursts; B answers the first burst with two CNPs (coalesced: one CNP
// per 50 µs) 12 µs and 40 µs after the first CE of each window. QP 0x200
// gets one CE burst that is never answered.
func CongestionCNP() *Capture {
	c := &Capture{}
	q1 := NewConn(c, Host(1), Host(2), 0x100, 0x101, 0, 0)
	q2 := NewConn(c, Host(1), Host(2), 0x200, 0x201, 0, 0)
	q2.SetSrcPort(A, 50001)
	ts := t0
	for msg := range 6 {
		ce := msg == 1 || msg == 2
		q1.SetECN(A, ecn(ce))
		end, psns := q1.Write(A, ts, 1_000, 4096)
		switch msg {
		case 1:
			q1.CNP(B, ts+12_000, nil) // first CE at ts: 12 µs
		case 2:
			q1.CNP(B, ts+40_000, nil) // first CE since the last CNP at ts: 40 µs
		}
		q1.Ack(B, end+3_000, psns[len(psns)-1])
		q2.SetECN(A, ecn(msg == 4))
		end2, psns2 := q2.Write(A, end+5_000, 1_000, 2048)
		q2.Ack(B, end2+3_000, psns2[len(psns2)-1])
		ts += 100_000
	}
	c.Sort()
	return c
}

// PFCPauseStorm: B's switch port pauses priority 3 toward A from 10 ms on,
// refreshing 65535 quanta (335.544 µs at 100G) every 300 µs for 150 ms,
// then XON; and a short pause on priority 3 of 1000 quanta ended by XON
// after 2 µs. RoCE traffic flows on priority 3 (VLAN PCP 3).
func PFCPauseStorm() *Capture {
	c := &Capture{Wrap: Wrap{VLANs: []VLAN{{PCP: 3, VID: 10}}}}
	conn := NewConn(c, Host(1), Host(2), 0x31, 0x32, 0, 0)
	sw := [6]byte{0x02, 0x5a, 0x00, 0x00, 0x00, 0x01}
	ts := t0
	for range 5 {
		end, psns := conn.Write(A, ts, 1_000, 2048)
		conn.Ack(B, end+2_000, psns[len(psns)-1])
		ts += 1_000_000
	}
	// Short pause: 1000 quanta, released by XON 2 µs later.
	c.Add(ts, PFC(sw, 1<<3, [8]uint16{3: 1000}))
	c.Add(ts+2_000, PFC(sw, 1<<3, [8]uint16{}))
	ts += 5_000_000
	// The storm: 501 frames, every 300 µs, 150 ms in all, then XON.
	stormStart := ts
	for i := 0; i <= 500; i++ {
		c.Add(stormStart+int64(i)*300_000, PFC(sw, 1<<3, [8]uint16{3: 65535}))
	}
	c.Add(stormStart+150_000_000+100_000, PFC(sw, 1<<3, [8]uint16{}))
	ts = stormStart + 151_000_000
	for range 3 {
		end, psns := conn.Write(A, ts, 1_000, 2048)
		conn.Ack(B, end+2_000, psns[len(psns)-1])
		ts += 1_000_000
	}
	c.Sort()
	return c
}

// MirrorERSPAN: READs and WRITEs between two IPv6 hosts on VLAN 100,
// mirrored through ERSPAN III and cut at snaplen 192 like a switch mirror
// session.
func MirrorERSPAN() *Capture {
	c := &Capture{Snaplen: 192, Wrap: Wrap{ERSPAN: 3, VLANs: []VLAN{{PCP: 3, VID: 100}}}}
	conn := NewConn(c, Host6(1), Host6(2), 0x41, 0x42, 100, 200)
	conn.PMTU = 4096
	ts := t0
	for range 4 {
		end, psns := conn.Write(A, ts, 2_000, 16384)
		conn.Ack(B, end+2_000, psns[len(psns)-1])
		psn := conn.ReadRequest(A, end+10_000, 10000)
		ts = conn.ReadResponse(B, end+15_000, 2_000, psn, 10000)
		ts += 20_000
	}
	return c
}

// ecn returns CE (3) when ce, else ECT(0) (2).
func ecn(ce bool) uint8 {
	if ce {
		return 3
	}
	return 2
}
