package decode_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// checkFastMatchesGeneral decodes data both ways, with DecodeRecord and
// with DecodeRecordDeferICRC (minLen 1: every check deferred), and fails
// when the packets or the deferred checks differ.
func checkFastMatchesGeneral(t *testing.T, name string, data []byte, wire int) {
	t.Helper()
	fast, gen := decode.NewDecoder(decode.Config{}), decode.NewGeneralDecoder(decode.Config{})
	rec := pcapio.Record{Data: data, CapLen: len(data), Len: wire, LinkType: pcapio.LinkTypeEthernet, File: 2, Frame: 7, Offset: 99, TsNs: 1_700_000_000_123_456_789}
	var p, q decode.Packet
	fast.DecodeRecord(&rec, &p)
	gen.DecodeRecord(&rec, &q)
	if p != q {
		t.Fatalf("%s: fast path\n%+v\ngeneral\n%+v", name, p, q)
	}
	// Into a zero Packet (a pipeline's batch), checking every ICRC.
	var z decode.Packet
	if ip, _ := fast.DecodeZeroedRecordDeferICRC(&rec, &z, math.MaxInt); z != q || ip != nil {
		t.Fatalf("%s: into a zero packet: fast path\n%+v\ngeneral\n%+v (deferred %d bytes)", name, z, q, len(ip))
	}
	ip, off := fast.DecodeRecordDeferICRC(&rec, &p, 1)
	ip2, off2 := gen.DecodeRecordDeferICRC(&rec, &q, 1)
	if p != q || len(ip) != len(ip2) || off != off2 || (ip != nil) != (ip2 != nil) || len(ip) > 0 && &ip[0] != &ip2[0] {
		t.Fatalf("%s: deferred ICRC: fast %d bytes at %d, general %d bytes at %d", name, len(ip), off, len(ip2), off2)
	}
	z = decode.Packet{}
	ip3, off3 := fast.DecodeZeroedRecordDeferICRC(&rec, &z, 1)
	if z != q || len(ip3) != len(ip2) || off3 != off2 || (ip3 != nil) != (ip2 != nil) || len(ip3) > 0 && &ip3[0] != &ip2[0] {
		t.Fatalf("%s: into a zero packet, deferred ICRC: %d bytes at %d, general %d bytes at %d\n%+v\n%+v", name, len(ip3), off3, len(ip2), off2, z, q)
	}
}

// TestFastPath checks which frames fastEthernet takes, and that it
// decodes each as the general path does, whole and cut at every length.
func TestFastPath(t *testing.T) {
	write := rc(decode.OpWriteFirst, 100)
	write.RETH = decode.RETHFields{VA: 0xFFFF_0000_1234_5678, RKey: 0xCAFEBABE, DMALen: 1 << 20}
	write.Payload = 1024
	write.BTH.SE, write.BTH.MigReq, write.BTH.FECN, write.BTH.AckReq = true, true, true, true
	middle := rc(decode.OpWriteMiddle, 101)
	middle.Payload = 1024
	ack := rc(decode.OpAcknowledge, 0xFFFFFF)
	ack.AETH = decode.AETHFields{Syndrome: 0x60, MSN: 0xABCDEF}
	imm := rc(decode.OpWriteOnlyImm, 5)
	imm.RETH, imm.Imm, imm.Payload = decode.RETHFields{VA: 1, RKey: 2, DMALen: 3}, 0xDEADBEEF, 3
	readResp := rc(decode.OpReadResponseFirst, 9)
	readResp.AETH, readResp.Payload = decode.AETHFields{Syndrome: 0x1F, MSN: 1}, 1024
	v6 := rc(decode.OpSendOnly, 600)
	v6.Src, v6.Dst, v6.ECN, v6.Payload = h6A, h6B, 3, 13
	badICRC := rc(decode.OpSendOnly, 700)
	badICRC.Payload, badICRC.CorruptICRC = 64, true
	cnp := rc(0x81, 0)
	ud := &synth.RoCE{Src: hA, Dst: hB, Payload: 20, BTH: decode.BTHFields{Opcode: decode.OpcodeUDSendOnly, DestQP: 1},
		DETH: decode.DETHFields{QKey: 1, SrcQP: 2}}
	atomic := rc(decode.OpCompareSwap, 300)
	vlan := synth.Wrap{VLANs: []synth.VLAN{{PCP: 5, VID: 100}}}
	qinq := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 5, VID: 200}}, QinQ: true}
	twoTags := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 5, VID: 200}}}
	// ackEdited is the untagged ACK frame with edit applied to its IPv4
	// header (and what follows it).
	ackEdited := func(edit func(ip []byte)) []byte {
		f := mustFrame(t, ack, synth.Wrap{})
		edit(f[14:])
		return f
	}
	for _, tc := range []struct {
		name  string
		frame []byte
		fast  bool
	}{
		{"write_first_reth", mustFrame(t, write, synth.Wrap{}), true},
		{"write_middle_vlan", mustFrame(t, middle, vlan), true},
		{"ack_aeth", mustFrame(t, ack, synth.Wrap{}), true},
		{"ack_vlan", mustFrame(t, ack, vlan), true},
		{"write_only_imm", mustFrame(t, imm, synth.Wrap{}), true},
		{"read_response_first", mustFrame(t, readResp, vlan), true},
		{"ipv6", mustFrame(t, v6, synth.Wrap{}), true},
		{"ipv6_vlan", mustFrame(t, v6, vlan), true},
		{"bad_icrc", mustFrame(t, badICRC, synth.Wrap{}), true},
		{"cnp", mustFrame(t, cnp, synth.Wrap{}), false},
		{"ud_deth", mustFrame(t, ud, synth.Wrap{}), false},
		{"atomic", mustFrame(t, atomic, synth.Wrap{}), false},
		{"qinq", mustFrame(t, ack, qinq), false},
		{"two_8021q_tags", mustFrame(t, ack, twoTags), false},
		{"ipv4_options", ackEdited(func(ip []byte) { ip[0] = 0x46 }), false},
		{"fragment", ackEdited(func(ip []byte) { ip[6] |= 0x20 }), false}, // more fragments
		{"other_port", ackEdited(func(ip []byte) { binary.BigEndian.PutUint16(ip[22:], 4792) }), false},
		{"udp_length_beyond_ip", ackEdited(func(ip []byte) { binary.BigEndian.PutUint16(ip[24:], 200) }), false},
		{"ip_total_beyond_frame", ackEdited(func(ip []byte) { binary.BigEndian.PutUint16(ip[2:], 2000) }), false},
		{"pad_beyond_payload", ackEdited(func(ip []byte) { ip[29] |= 0x30 }), false}, // BTH byte 1: PadCnt 3, no payload
	} {
		var p decode.Packet
		if got := decode.NewDecoder(decode.Config{}).FastEthernet(tc.frame, len(tc.frame), &p); got != tc.fast {
			t.Errorf("%s: fast path taken %v, want %v", tc.name, got, tc.fast)
		}
		for n := len(tc.frame); n >= 0; n-- {
			checkFastMatchesGeneral(t, tc.name, tc.frame[:n], len(tc.frame))
		}
		padded := append(append([]byte(nil), tc.frame...), 0, 0, 0, 0, 1, 2, 3, 4) // padding or FCS
		checkFastMatchesGeneral(t, tc.name+"+fcs", padded, len(padded))
	}
}

// TestFastPathMatchesGeneralOnCaptures decodes every Ethernet record of
// the bulk capture of bench/ (mirror-style and whole frames) and of
// ../shared/pcaps both ways.
func TestFastPathMatchesGeneralOnCaptures(t *testing.T) {
	frames := sharedSeedFrames(1 << 30)
	for _, snap := range []int{128, 0} {
		frames = append(frames, bulkFrames(t, 20000, snap)...)
	}
	for i, f := range frames {
		checkFastMatchesGeneral(t, "frame", f, len(f)+i%2*64)
	}
}

// bulkFrames returns the frames of a bulk capture (internal/synth
// WriteBulk) of n frames cut at snaplen (0: whole).
func bulkFrames(t *testing.T, n, snaplen int) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: n, Snaplen: snaplen, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	r, err := pcapio.NewReader(&buf, "bulk.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	var rec pcapio.Record
	for r.Next(&rec) == nil {
		out = append(out, append([]byte(nil), rec.Data...))
	}
	return out
}
