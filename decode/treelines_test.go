package decode_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// TestTreeLines: TreeLines has AppendTree's lines, and each field line's
// bytes hold the field's value as the wire carries it, in every
// encapsulation (the expected bytes are worked out from the field values:
// PSN 77 is 00 00 4d, QP 0x123 is 00 01 23, ...).
func TestTreeLines(t *testing.T) {
	write := func() *synth.RoCE { // RDMA WRITE Only with RETH, 16 bytes
		r := rc(0x0A, 77)
		r.RETH = decode.RETHFields{VA: 0x1122334455667788, RKey: 0xAABBCCDD, DMALen: 16}
		r.Payload = 16
		return r
	}
	v6 := func() *synth.RoCE {
		r := sendOnly()
		r.Src, r.Dst = h6A, h6B
		return r
	}
	ack := func() *synth.RoCE {
		r := rc(0x11, 77) // Acknowledge: AETH
		r.AETH = decode.AETHFields{Syndrome: 0x1F, MSN: 0x0A0B0C}
		return r
	}
	cases := []struct {
		name string
		r    *synth.RoCE
		w    synth.Wrap
		want map[string][]byte // line prefix -> its bytes
	}{
		{"plain", sendOnly(), synth.Wrap{}, map[string][]byte{
			"Type:": {0x08, 0x00}, "Packet Sequence Number: 77": {0, 0, 77}, "Destination Queue Pair": {0, 0x01, 0x23},
			"Partition Key": {0xFF, 0xFF}, "Opcode: 4": {0x04}, "Length: 40": {0, 40}}},
		{"vlan", sendOnly(), synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}}}, map[string][]byte{
			"802.1Q tags": {0x81, 0x00, 0x60, 0x64}, "Type:": {0x08, 0x00}, "Packet Sequence Number: 77": {0, 0, 77}}},
		{"qinq", sendOnly(), synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 0, VID: 7}}, QinQ: true}, map[string][]byte{
			"802.1Q tags": {0x88, 0xA8, 0x60, 0x64, 0x81, 0x00, 0x00, 0x07}, "Packet Sequence Number: 77": {0, 0, 77}}},
		{"vxlan", sendOnly(), synth.Wrap{Tunnel: synth.TunnelVXLAN}, map[string][]byte{
			"Packet Sequence Number: 77": {0, 0, 77}, "Destination Queue Pair": {0, 0x01, 0x23}}},
		{"gre ip", sendOnly(), synth.Wrap{Tunnel: synth.TunnelGREIP}, map[string][]byte{"Packet Sequence Number: 77": {0, 0, 77}}},
		{"mpls", sendOnly(), synth.Wrap{Tunnel: synth.TunnelMPLS}, map[string][]byte{"Packet Sequence Number: 77": {0, 0, 77}}},
		{"erspan3", sendOnly(), synth.Wrap{ERSPAN: 3}, map[string][]byte{"Packet Sequence Number: 77": {0, 0, 77}}},
		{"ipv6", v6(), synth.Wrap{}, map[string][]byte{"Packet Sequence Number: 77": {0, 0, 77}, "Type:": {0x86, 0xDD}}},
		{"reth", write(), synth.Wrap{}, map[string][]byte{
			"Virtual Address": {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 16}}},
		{"aeth", ack(), synth.Wrap{}, map[string][]byte{"ACK Extended Transport Header": {0x1F, 0x0A, 0x0B, 0x0C}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			frame := mustFrame(t, tc.r, tc.w)
			rec := pcapio.Record{Data: frame, Len: len(frame), LinkType: pcapio.LinkTypeEthernet}
			var p decode.Packet
			lines := decode.NewDecoder(decode.Config{}).TreeLines(&rec, &p, 100e9)
			var text strings.Builder
			for _, l := range lines {
				if l.Field {
					text.WriteString("    ")
				}
				text.WriteString(l.Text + "\n")
			}
			if want := string(decode.AppendTree(nil, rec.LinkType, &p, 100e9)); text.String() != want {
				t.Fatalf("lines:\n%s\nAppendTree:\n%s", text.String(), want)
			}
			bytesOf := func(prefix string) []byte {
				for _, l := range lines {
					if strings.HasPrefix(l.Text, prefix) {
						return frame[l.Off : l.Off+l.Len]
					}
				}
				t.Fatalf("no line %q", prefix)
				return nil
			}
			for prefix, want := range tc.want {
				if got := bytesOf(prefix); !bytes.Equal(got, want) {
					t.Errorf("%s: bytes % x, want % x", prefix, got, want)
				}
			}
			// Every case: the UDP header's ports, the IP header's first
			// byte, the ICRC's value, the DSCP byte, the payload length.
			u := bytesOf("User Datagram Protocol")
			if len(u) != 8 || binary.BigEndian.Uint16(u) != 50000 || binary.BigEndian.Uint16(u[2:]) != 4791 {
				t.Errorf("UDP header bytes % x", u)
			}
			if ip := bytesOf("Internet Protocol Version"); (p.IPVersion == 4 && (len(ip) != 20 || ip[0] != 0x45)) ||
				(p.IPVersion == 6 && (len(ip) != 40 || ip[0]>>4 != 6)) {
				t.Errorf("IP header bytes % x", ip)
			}
			if c := bytesOf("Invariant CRC"); len(c) != 4 || decode.StoredICRC(c) != p.ICRC || p.ICRCStatus != decode.ICRCOK {
				t.Errorf("ICRC bytes % x, ICRC 0x%08x %v", c, p.ICRC, p.ICRCStatus)
			}
			if d := bytesOf("DSCP: 26"); p.IPVersion == 4 && (len(d) != 1 || d[0]>>2 != 26) {
				t.Errorf("DSCP bytes % x", d)
			}
			if pl := bytesOf("Payload:"); len(pl) != p.PayloadLen {
				t.Errorf("payload %d bytes, want %d", len(pl), p.PayloadLen)
			}
			if p.HasMAC {
				if e := bytesOf("Ethernet II"); len(e) != 14+4*int(p.VLANCount) {
					t.Errorf("Ethernet header %d bytes", len(e))
				}
			}
			if lines[0].Len != 0 {
				t.Errorf("the frame line has bytes: %+v", lines[0])
			}
		})
	}
}
