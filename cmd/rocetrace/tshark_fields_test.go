package main

import (
	"os/exec"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// multiValueCapture has frames whose two-sided and repeated Wireshark
// fields hold several values: RoCE under two 802.1Q tags, an untagged
// reply, RoCEv2 over IPv6 and a PFC frame.
func multiValueCapture() *synth.Capture {
	c := &synth.Capture{}
	const t0 = int64(1_700_000_000_000_000_000)
	cn := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 100, 200)
	cn.SetWrap(synth.A, synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 5, VID: 200}}})
	ts, _ := cn.Write(synth.A, t0, 1000, 2000)
	cn.Ack(synth.B, ts, 101)
	c6 := synth.NewConn(c, synth.Host6(1), synth.Host6(2), 0x33, 0x44, 5, 9)
	c6.Send(synth.A, ts+1000, 1000, 100)
	c.Add(ts+5000, synth.PFC(synth.Host(1).MAC, 0x08, [8]uint16{3: 100}))
	return c
}

// TestTSharkFieldsOccurrences: packets -T fields prints the values of a
// field with several values in tshark's order (the order of the headers:
// eth.addr is the destination, then the source, as the Ethernet header
// has them; ip.addr, ipv6.addr and udp.port source then destination;
// vlan.id outer tag first), for all, the first and the last occurrence.
func TestTSharkFieldsOccurrences(t *testing.T) {
	f := writeCapture(t, multiValueCapture(), synth.PcapNanos)
	// Without tshark: the first frame (tagged WRITE First 02:..:01 ->
	// 02:..:02) and the occurrences the Ethernet header order gives.
	tests := []struct {
		occ, want string
	}{
		{"a", "02:00:00:00:00:02,02:00:00:00:00:01\t10.0.0.1,10.0.0.2\t49169,4791\t100,200\n"},
		{"f", "02:00:00:00:00:02\t10.0.0.1\t49169\t100\n"},
		{"l", "02:00:00:00:00:01\t10.0.0.2\t4791\t200\n"},
	}
	for _, tt := range tests {
		code, out, errOut := rt(t, "packets", "-c", "1", "-T", "fields", "-E", "occurrence="+tt.occ,
			"-e", "eth.addr", "-e", "ip.addr", "-e", "udp.port", "-e", "vlan.id", f)
		if code != 0 || out != tt.want {
			t.Errorf("occurrence=%s: exit %d %s\n%q\nwant %q", tt.occ, code, errOut, out, tt.want)
		}
	}
	tshark := testenv.TShark(t)
	fields := []string{"frame.number", "eth.addr", "eth.src", "eth.dst", "vlan.id", "vlan.priority", "ip.addr",
		"ipv6.addr", "udp.port"}
	for _, occ := range []string{"a", "f", "l"} {
		args := []string{"-T", "fields", "-E", "occurrence=" + occ}
		for _, e := range fields {
			args = append(args, "-e", e)
		}
		want, err := exec.Command(tshark, append([]string{"-r", f}, args...)...).Output()
		if err != nil {
			t.Fatalf("tshark: %v", err)
		}
		code, got, errOut := rt(t, append(append([]string{"packets"}, args...), f)...)
		if code != 0 || got != string(want) {
			t.Errorf("occurrence=%s: exit %d %s; ours\n%s\ntshark's\n%s", occ, code, errOut, got, want)
		}
	}
}
