package decode_test

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// decoderCase is one frame built by the synthesizer and the packet the
// decoder must produce (checked field by field by want).
type decoderCase struct {
	name  string
	frame []byte
	check func(t *testing.T, p *decode.Packet)
}

func mustFrame(t testing.TB, r *synth.RoCE, w synth.Wrap) []byte {
	t.Helper()
	b, err := r.Frame(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	hA, hB   = synth.Host(1), synth.Host(2)
	h6A, h6B = synth.Host6(1), synth.Host6(2)
)

// rc builds an RC frame from A to B with the given opcode and PSN.
func rc(op uint8, psn uint32) *synth.RoCE {
	return &synth.RoCE{Src: hA, Dst: hB, SrcPort: 50000, DSCP: 26, ECN: 2,
		BTH: decode.BTHFields{Opcode: decode.Opcode(op), PKey: 0xFFFF, DestQP: 0x000123, PSN: psn}}
}

// commonRoCE checks what every RoCE frame built by rc() carries.
func commonRoCE(t *testing.T, p *decode.Packet, op decode.Opcode, psn uint32) {
	t.Helper()
	if p.Kind != decode.KindRoCE && p.Kind != decode.KindCNP {
		t.Fatalf("kind %v, want roce/cnp", p.Kind)
	}
	if p.BTH.Opcode != op || p.BTH.PSN != psn {
		t.Errorf("opcode %v psn %d, want %v %d", p.BTH.Opcode, p.BTH.PSN, op, psn)
	}
	if p.SrcIP != hA.IP && p.SrcIP != h6A.IP {
		t.Errorf("src ip %v", p.SrcIP)
	}
	if p.DstPort != 4791 || p.SrcPort != 50000 {
		t.Errorf("ports %d -> %d", p.SrcPort, p.DstPort)
	}
	if p.ICRCStatus != decode.ICRCOK {
		t.Errorf("icrc %v, want ok", p.ICRCStatus)
	}
	if p.Truncated || p.Malformed {
		t.Errorf("truncated=%v malformed=%v (%s)", p.Truncated, p.Malformed, p.Problem)
	}
}

func decoderCases(t testing.TB) []decoderCase {
	writeFirst := rc(decode.OpWriteFirst, 100)
	writeFirst.RETH = decode.RETHFields{VA: 0xFFFF_0000_1234_5678, RKey: 0xCAFEBABE, DMALen: 1 << 20}
	writeFirst.Payload = 1024

	ack := rc(decode.OpAcknowledge, 0xFFFFFF)
	ack.AETH = decode.AETHFields{Syndrome: 0x1F, MSN: 0xABCDEF}

	nak := rc(decode.OpAcknowledge, 77)
	nak.AETH = decode.AETHFields{Syndrome: 0x60, MSN: 5}

	rnr := rc(decode.OpAcknowledge, 78)
	rnr.AETH = decode.AETHFields{Syndrome: 0x20 | 14, MSN: 5}

	read := rc(decode.OpReadRequest, 200)
	read.RETH = decode.RETHFields{VA: 0x1000, RKey: 7, DMALen: 10000}

	cas := rc(decode.OpCompareSwap, 300)
	cas.AtomicETH = decode.AtomicETHFields{VA: 0x2000, RKey: 9, SwapAdd: 0x1111_2222_3333_4444, Compare: 0x5555_6666_7777_8888}

	atomicAck := rc(decode.OpAtomicAcknowledge, 300)
	atomicAck.AETH = decode.AETHFields{Syndrome: 0x1F, MSN: 9}
	atomicAck.AtomicAckOrig = 0x0123_4567_89AB_CDEF

	ud := &synth.RoCE{Src: hA, Dst: hB, SrcPort: 50000, DSCP: 26, ECN: 2, Payload: 255,
		BTH:  decode.BTHFields{Opcode: decode.OpcodeUDSendOnlyImm, PKey: 0xFFFF, DestQP: 0x000123, PSN: 5},
		DETH: decode.DETHFields{QKey: 0x80010000, SrcQP: 0x00ABCD}, Imm: 0xDEADBEEF}

	xrc := rc(0xA0|decode.OpWriteOnlyImm, 400)
	xrc.XRCSRQ = 0x00BEEF
	xrc.RETH = decode.RETHFields{VA: 0x3000, RKey: 11, DMALen: 3}
	xrc.Imm = 42
	xrc.Payload = 3

	inval := rc(decode.OpSendOnlyInvalidate, 500)
	inval.IETHRKey = 0x0BADF00D

	cnp := rc(0x81, 0)
	cnp.BTH.BECN = true
	cnp.DSCP, cnp.ECN = 48, 0

	v6 := rc(decode.OpSendOnly, 600)
	v6.Src, v6.Dst = h6A, h6B
	v6.ECN = 3
	v6.Payload = 13

	badICRC := rc(decode.OpSendOnly, 700)
	badICRC.Payload = 64
	badICRC.CorruptICRC = true

	vlan := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 5, VID: 200}}, QinQ: true}

	cases := []decoderCase{
		{"rc_write_first_reth", mustFrame(t, writeFirst, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpWriteFirst), 100)
			if p.Ext != decode.ExtRETH || p.RETH != writeFirst.RETH {
				t.Errorf("RETH %+v ext %b", p.RETH, p.Ext)
			}
			if !p.HasPayloadLen || p.PayloadLen != 1024 {
				t.Errorf("payload %d", p.PayloadLen)
			}
			if p.DSCP != 26 || p.ECN != 2 || p.TTL != 64 || p.IPVersion != 4 {
				t.Errorf("ip dscp %d ecn %d ttl %d v%d", p.DSCP, p.ECN, p.TTL, p.IPVersion)
			}
			if p.BTH.DestQP != 0x123 || p.BTH.PKey != 0xFFFF {
				t.Errorf("qp %x pkey %x", p.BTH.DestQP, p.BTH.PKey)
			}
			// 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 1024 + 4 ICRC
			if p.Len != 1098 || p.FrameLen != 1098 {
				t.Errorf("len %d framelen %d, want 1098", p.Len, p.FrameLen)
			}
		}},
		{"rc_ack_psn_max", mustFrame(t, ack, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpAcknowledge), 0xFFFFFF)
			if p.Ext != decode.ExtAETH || p.AETH.Syndrome.Kind() != decode.SyndromeACK || p.AETH.MSN != 0xABCDEF {
				t.Errorf("AETH %+v", p.AETH)
			}
		}},
		{"rc_nak_seq", mustFrame(t, nak, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpAcknowledge), 77)
			if p.AETH.Syndrome.Kind() != decode.SyndromeNAK || p.AETH.Syndrome.Value() != decode.NAKCodePSNSequenceError {
				t.Errorf("syndrome %#x", p.AETH.Syndrome)
			}
		}},
		{"rc_rnr_nak", mustFrame(t, rnr, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpAcknowledge), 78)
			if p.AETH.Syndrome.Kind() != decode.SyndromeRNRNAK || decode.RNRTimerNs(p.AETH.Syndrome.Value()) != 1_280_000 {
				t.Errorf("syndrome %#x", p.AETH.Syndrome)
			}
		}},
		{"rc_read_request", mustFrame(t, read, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpReadRequest), 200)
			if p.RETH.DMALen != 10000 || p.PayloadLen != 0 {
				t.Errorf("RETH %+v payload %d", p.RETH, p.PayloadLen)
			}
		}},
		{"rc_compare_swap", mustFrame(t, cas, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpCompareSwap), 300)
			if p.Ext != decode.ExtAtomicETH || p.AtomicETH != cas.AtomicETH {
				t.Errorf("AtomicETH %+v", p.AtomicETH)
			}
		}},
		{"rc_atomic_ack", mustFrame(t, atomicAck, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpAtomicAcknowledge), 300)
			if p.Ext != decode.ExtAETH|decode.ExtAtomicAckETH || p.AtomicAckOrig != atomicAck.AtomicAckOrig {
				t.Errorf("atomic ack %x", p.AtomicAckOrig)
			}
		}},
		{"ud_send_imm_deth", mustFrame(t, ud, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpcodeUDSendOnlyImm), 5)
			if p.DETH != ud.DETH || p.Imm != 0xDEADBEEF || p.Ext != decode.ExtDETH|decode.ExtImmDt {
				t.Errorf("DETH %+v imm %x", p.DETH, p.Imm)
			}
			// 255 payload bytes need one pad byte.
			if p.PayloadLen != 255 || p.BTH.Pad != 1 {
				t.Errorf("payload %d pad %d", p.PayloadLen, p.BTH.Pad)
			}
		}},
		{"xrc_write_only_imm", mustFrame(t, xrc, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(0xA0|decode.OpWriteOnlyImm), 400)
			if p.XRCSRQ != 0xBEEF || p.RETH != xrc.RETH || p.Imm != 42 {
				t.Errorf("xrc %x reth %+v imm %d", p.XRCSRQ, p.RETH, p.Imm)
			}
			if p.PayloadLen != 3 || p.BTH.Pad != 1 {
				t.Errorf("payload %d pad %d", p.PayloadLen, p.BTH.Pad)
			}
		}},
		{"rc_send_only_invalidate", mustFrame(t, inval, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpSendOnlyInvalidate), 500)
			if p.IETHRKey != 0x0BADF00D {
				t.Errorf("ieth %x", p.IETHRKey)
			}
		}},
		{"cnp", mustFrame(t, cnp, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpcodeCNP), 0)
			if p.Kind != decode.KindCNP || !p.BTH.BECN || p.Ext != decode.ExtCNP || p.PayloadLen != 0 || p.DSCP != 48 {
				t.Errorf("cnp kind %v becn %v ext %b payload %d", p.Kind, p.BTH.BECN, p.Ext, p.PayloadLen)
			}
		}},
		{"ipv6_ce", mustFrame(t, v6, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpSendOnly), 600)
			if p.IPVersion != 6 || p.DstIP != h6B.IP || p.ECN != 3 || p.DSCP != 26 || p.PayloadLen != 13 {
				t.Errorf("v%d dst %v ecn %d dscp %d payload %d", p.IPVersion, p.DstIP, p.ECN, p.DSCP, p.PayloadLen)
			}
		}},
		{"bad_icrc", mustFrame(t, badICRC, synth.Wrap{}), func(t *testing.T, p *decode.Packet) {
			if p.ICRCStatus != decode.ICRCBad {
				t.Errorf("icrc %v, want bad", p.ICRCStatus)
			}
		}},
		{"qinq_stacked_vlan", mustFrame(t, writeFirst, vlan), func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpWriteFirst), 100)
			if p.VLANCount != 2 || p.VLANPCP != 3 || p.VLANID != 100 {
				t.Errorf("vlan count %d pcp %d vid %d", p.VLANCount, p.VLANPCP, p.VLANID)
			}
		}},
		{"pfc", synth.PFC(hA.MAC, 0x0009, [8]uint16{65535, 1, 2, 0, 4, 5, 6, 7}), func(t *testing.T, p *decode.Packet) {
			if p.Kind != decode.KindPFC || p.PFCEnable != 9 || p.PFCQuanta != [8]uint16{65535, 1, 2, 0, 4, 5, 6, 7} || p.SrcMAC != hA.MAC {
				t.Errorf("pfc %+v", p)
			}
		}},
		{"pause", synth.Pause(hB.MAC, 1234), func(t *testing.T, p *decode.Packet) {
			if p.Kind != decode.KindPause || p.PauseQuanta != 1234 || p.SrcMAC != hB.MAC {
				t.Errorf("pause %+v", p)
			}
		}},
	}
	for typ := 1; typ <= 3; typ++ {
		w := synth.Wrap{ERSPAN: typ, VLANs: []synth.VLAN{{PCP: 3, VID: 7}}}
		frame := mustFrame(t, writeFirst, w)
		want := decode.Encap(typ) // EncapERSPAN1..3 are 1..3
		cases = append(cases, decoderCase{"erspan" + string(rune('0'+typ)), frame, func(t *testing.T, p *decode.Packet) {
			commonRoCE(t, p, decode.Opcode(decode.OpWriteFirst), 100)
			if p.Encap != want {
				t.Errorf("encap %v, want %v", p.Encap, want)
			}
			if p.VLANPCP != 3 || p.VLANID != 7 || p.SrcMAC != hA.MAC {
				t.Errorf("inner vlan %d/%d mac %x", p.VLANPCP, p.VLANID, p.SrcMAC)
			}
			// The inner frame: 1098 bytes + one 4-byte tag.
			if p.FrameLen != 1102 {
				t.Errorf("inner frame len %d, want 1102", p.FrameLen)
			}
		}})
	}
	return cases
}

func TestDecoderFrames(t *testing.T) {
	d := decode.NewDecoder(decode.Config{})
	for _, c := range decoderCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var p decode.Packet
			d.Decode(c.frame, pcapio.LinkTypeEthernet, len(c.frame), &p)
			c.check(t, &p)
		})
	}
}

// TestDecoderSnaplen cuts a frame at several snaplens: the BTH fields stay
// exact as long as the BTH is whole, the payload length still comes from
// the UDP length, and the ICRC is unchecked.
func TestDecoderSnaplen(t *testing.T) {
	r := rc(decode.OpWriteFirst, 100)
	r.RETH = decode.RETHFields{VA: 1, RKey: 2, DMALen: 4096}
	r.Payload = 1024
	frame := mustFrame(t, r, synth.Wrap{})
	d := decode.NewDecoder(decode.Config{})
	tests := []struct {
		snap     int
		kind     decode.Kind
		ext      decode.Ext
		icrc     decode.ICRCStatus
		bthCut   bool
		hasBTH   bool
		ipsValid bool
	}{
		{64, decode.KindRoCE, 0, decode.ICRCUnchecked, false, true, true},               // 54 B of headers + 10 of RETH
		{70, decode.KindRoCE, decode.ExtRETH, decode.ICRCUnchecked, false, true, true},  // RETH whole at 70
		{128, decode.KindRoCE, decode.ExtRETH, decode.ICRCUnchecked, false, true, true}, // mirror-style snaplen
		{50, decode.KindOther, 0, decode.ICRCUnchecked, true, false, true},              // cut inside the BTH
		{30, decode.KindOther, 0, decode.ICRCUnchecked, false, false, false},            // cut inside IPv4
		{len(frame) - 1, decode.KindRoCE, decode.ExtRETH, decode.ICRCUnchecked, false, true, true},
	}
	for _, tc := range tests {
		var p decode.Packet
		d.Decode(frame[:tc.snap], pcapio.LinkTypeEthernet, len(frame), &p)
		if p.Kind != tc.kind || p.Ext != tc.ext || p.ICRCStatus != tc.icrc || p.BTHCut != tc.bthCut || p.HasBTH != tc.hasBTH {
			t.Errorf("snap %d: kind %v ext %b icrc %v bthcut %v hasBTH %v", tc.snap, p.Kind, p.Ext, p.ICRCStatus, p.BTHCut, p.HasBTH)
		}
		if !p.Truncated || p.Malformed {
			t.Errorf("snap %d: truncated %v malformed %v (%s)", tc.snap, p.Truncated, p.Malformed, p.Problem)
		}
		if tc.hasBTH && (p.PayloadLen != 1024 || p.BTH.PSN != 100) {
			t.Errorf("snap %d: payload %d psn %d", tc.snap, p.PayloadLen, p.BTH.PSN)
		}
		if p.SrcIP.IsValid() != tc.ipsValid {
			t.Errorf("snap %d: src ip %v", tc.snap, p.SrcIP)
		}
	}
}

// TestDecoderMalformed checks frames whose bytes contradict themselves.
func TestDecoderMalformed(t *testing.T) {
	r := rc(decode.OpWriteFirst, 100)
	r.RETH = decode.RETHFields{DMALen: 8}
	r.Payload = 8
	good := mustFrame(t, r, synth.Wrap{})
	const ipOff, udpOff = 14, 34
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	pfc := synth.PFC([6]byte{2, 0, 0, 0, 0, 1}, 0x08, [8]uint16{3: 1000})
	pause := synth.Pause([6]byte{2, 0, 0, 0, 0, 1}, 500)
	tests := []struct {
		name  string
		frame []byte
		kind  decode.Kind
		icrc  decode.ICRCStatus
	}{
		{"udp length below BTH+ICRC", mut(func(b []byte) { binary.BigEndian.PutUint16(b[udpOff+4:], 8+12) }), decode.KindOther, decode.ICRCUnchecked},
		{"udp length beyond IP", mut(func(b []byte) { binary.BigEndian.PutUint16(b[udpOff+4:], 2000) }), decode.KindOther, decode.ICRCUnchecked},
		{"ip total length beyond frame", mut(func(b []byte) { binary.BigEndian.PutUint16(b[ipOff+2:], 3000) }), decode.KindOther, decode.ICRCUnchecked},
		{"ip header length below 20", mut(func(b []byte) { b[ipOff] = 0x44 }), decode.KindOther, decode.ICRCUnchecked},
		// WRITE First needs 16 RETH bytes: an opcode change makes the
		// datagram too short for ATOMIC's 28 bytes. The frame is whole:
		// its ICRC status is malformed, not unchecked.
		{"opcode needs more headers", mut(func(b []byte) {
			b[udpOff+8] = decode.OpCompareSwap
			binary.BigEndian.PutUint16(b[udpOff+4:], 8+12+16+4)
			binary.BigEndian.PutUint16(b[ipOff+2:], 20+8+12+16+4)
		}), decode.KindRoCE, decode.ICRCMalformed},
		// MAC Control frames shorter on the wire than their opcode's
		// parameters: PFC needs 2+2+16 bytes after the EtherType, PAUSE 2+2.
		{"PFC with 12 of 20 bytes", pfc[:14+12], decode.KindOther, decode.ICRCUnchecked},
		{"PFC with the opcode only", pfc[:14+2], decode.KindOther, decode.ICRCUnchecked},
		{"PAUSE with 3 of 4 bytes", pause[:14+3], decode.KindOther, decode.ICRCUnchecked},
	}
	d := decode.NewDecoder(decode.Config{})
	for _, tc := range tests {
		var p decode.Packet
		d.Decode(tc.frame, pcapio.LinkTypeEthernet, len(tc.frame), &p)
		if !p.Malformed || p.Problem == "" || p.Kind != tc.kind || p.ICRCStatus != tc.icrc {
			t.Errorf("%s: malformed %v (%q) kind %v icrc %v, want malformed, kind %v, icrc %v",
				tc.name, p.Malformed, p.Problem, p.Kind, p.ICRCStatus, tc.kind, tc.icrc)
		}
	}
	// Cut by the snaplen, not short on the wire: truncated, not malformed.
	for _, tc := range []struct {
		name  string
		frame []byte
		snap  int
	}{{"PFC", pfc, 14 + 12}, {"PAUSE", pause, 14 + 3}} {
		var p decode.Packet
		d.Decode(tc.frame[:tc.snap], pcapio.LinkTypeEthernet, len(tc.frame), &p)
		if p.Malformed || !p.Truncated || p.Kind != decode.KindOther {
			t.Errorf("%s cut at %d: malformed %v (%q) truncated %v kind %v", tc.name, tc.snap, p.Malformed, p.Problem, p.Truncated, p.Kind)
		}
	}
}

// TestMalformedICRCPrinted: the printers say a malformed frame's ICRC was
// not checked because it is malformed, not because it was cut short.
func TestMalformedICRCPrinted(t *testing.T) {
	r := rc(decode.OpWriteFirst, 100)
	r.RETH = decode.RETHFields{DMALen: 8}
	r.Payload = 8
	b := mustFrame(t, r, synth.Wrap{})
	const ipOff, udpOff = 14, 34
	b[udpOff+8] = decode.OpCompareSwap
	binary.BigEndian.PutUint16(b[udpOff+4:], 8+12+16+4)
	binary.BigEndian.PutUint16(b[ipOff+2:], 20+8+12+16+4)
	var p decode.Packet
	decode.NewDecoder(decode.Config{}).Decode(b, pcapio.LinkTypeEthernet, len(b), &p)
	sum := string(p.AppendSummary(nil, 0, 100e9))
	tree := string(decode.AppendTree(nil, pcapio.LinkTypeEthernet, &p, 100e9))
	js := string(p.AppendJSON(nil, "f", ""))
	for _, c := range []struct {
		what, text, want, not string
	}{
		{"summary", sum, " [ICRC malformed]", "unchecked"},
		{"tree", tree, "Invariant CRC: [not checked: the frame is malformed]", "unchecked"},
		{"json", js, `"icrc":null,"icrc_status":"malformed"`, "unchecked"},
	} {
		if !strings.Contains(c.text, c.want) || strings.Contains(c.text, c.not) {
			t.Errorf("%s: %q, want %q and no %q", c.what, c.text, c.want, c.not)
		}
	}
}

// TestDecoderTruncationTable feeds every prefix of every case: it must
// never panic, and a cut frame must say it is truncated.
func TestDecoderTruncationTable(t *testing.T) {
	d := decode.NewDecoder(decode.Config{})
	for _, c := range decoderCases(t) {
		for n := 0; n < len(c.frame); n++ {
			var p decode.Packet
			d.Decode(c.frame[:n], pcapio.LinkTypeEthernet, len(c.frame), &p)
			if !p.Truncated || p.CapLen != n || p.Len != len(c.frame) {
				t.Fatalf("%s cut at %d: truncated %v caplen %d len %d", c.name, n, p.Truncated, p.CapLen, p.Len)
			}
			if p.ICRCStatus != decode.ICRCUnchecked {
				t.Fatalf("%s cut at %d: ICRC %v on a cut frame", c.name, n, p.ICRCStatus)
			}
		}
	}
}

// TestDecoderReuse decodes A then B into the same Packet and compares with
// a fresh decode of B: nothing of A may leak.
func TestDecoderReuse(t *testing.T) {
	cases := decoderCases(t)
	d := decode.NewDecoder(decode.Config{})
	for _, a := range cases {
		for _, b := range cases {
			var reused, fresh decode.Packet
			d.Decode(a.frame, pcapio.LinkTypeEthernet, len(a.frame), &reused)
			d.Decode(b.frame, pcapio.LinkTypeEthernet, len(b.frame), &reused)
			decode.NewDecoder(decode.Config{}).Decode(b.frame, pcapio.LinkTypeEthernet, len(b.frame), &fresh)
			if !reflect.DeepEqual(reused, fresh) {
				t.Errorf("decode %s then %s differs from a fresh decode of %s", a.name, b.name, b.name)
			}
		}
	}
}

// cooked rewrites an Ethernet frame as Linux SLL (v1) or SLL2.
func cooked(eth []byte, v2 bool) []byte {
	et := eth[12:14]
	if v2 {
		h := make([]byte, 20)
		copy(h[0:2], et)
		binary.BigEndian.PutUint32(h[4:], 3) // ifindex
		binary.BigEndian.PutUint16(h[8:], 1) // ARPHRD_ETHER
		h[10] = 0                            // to us
		h[11] = 6
		copy(h[12:18], eth[6:12])
		return append(h, eth[14:]...)
	}
	h := make([]byte, 16)
	binary.BigEndian.PutUint16(h[2:], 1)
	binary.BigEndian.PutUint16(h[4:], 6)
	copy(h[6:12], eth[6:12])
	copy(h[14:16], et)
	return append(h, eth[14:]...)
}

func TestDecoderCookedLinkTypes(t *testing.T) {
	r := rc(decode.OpSendOnly, 9)
	r.Payload = 40
	eth := mustFrame(t, r, synth.Wrap{})
	d := decode.NewDecoder(decode.Config{})
	for _, tc := range []struct {
		link pcapio.LinkType
		v2   bool
	}{{pcapio.LinkTypeLinuxSLL, false}, {pcapio.LinkTypeLinuxSLL2, true}} {
		frame := cooked(eth, tc.v2)
		var p decode.Packet
		d.Decode(frame, tc.link, len(frame), &p)
		commonRoCE(t, &p, decode.Opcode(decode.OpSendOnly), 9)
		if p.SrcMAC != hA.MAC || p.FrameLen != len(eth) {
			t.Errorf("%v: src mac %x framelen %d want %d", tc.link, p.SrcMAC, p.FrameLen, len(eth))
		}
	}
}

// TestDecoderRoCEPort checks that only the destination port selects RoCE,
// and that the port is configurable.
func TestDecoderRoCEPort(t *testing.T) {
	r := rc(decode.OpSendOnly, 9)
	r.SrcPort = 4791
	r.DstPort = 5000
	frame := mustFrame(t, r, synth.Wrap{})
	var p decode.Packet
	decode.NewDecoder(decode.Config{}).Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p)
	if p.Kind != decode.KindOther || p.HasBTH {
		t.Errorf("source port 4791 selected RoCE")
	}
	decode.NewDecoder(decode.Config{RoCEPort: 5000}).Decode(frame, pcapio.LinkTypeEthernet, len(frame), &p)
	if p.Kind != decode.KindRoCE || p.BTH.PSN != 9 {
		t.Errorf("--roce-port 5000 not honoured: kind %v", p.Kind)
	}
}

// TestDecoderAllocs proves the hot path allocates nothing per frame.
func TestDecoderAllocs(t *testing.T) {
	cases := decoderCases(t)
	d := decode.NewDecoder(decode.Config{})
	var p decode.Packet
	for _, c := range cases {
		allocs := testing.AllocsPerRun(200, func() {
			d.Decode(c.frame, pcapio.LinkTypeEthernet, len(c.frame), &p)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per frame, want 0", c.name, allocs)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range decoderCases(b) {
		if c.name != "rc_write_first_reth" && c.name != "rc_ack_psn_max" && c.name != "erspan3" && c.name != "pfc" {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			d := decode.NewDecoder(decode.Config{})
			var p decode.Packet
			b.ReportAllocs()
			b.SetBytes(int64(len(c.frame)))
			for b.Loop() {
				d.Decode(c.frame, pcapio.LinkTypeEthernet, len(c.frame), &p)
			}
		})
		// The same frame cut to a mirror-style snaplen of 128: no ICRC.
		if len(c.frame) > 128 {
			b.Run(c.name+"_snap128", func(b *testing.B) {
				d := decode.NewDecoder(decode.Config{})
				var p decode.Packet
				b.ReportAllocs()
				for b.Loop() {
					d.Decode(c.frame[:128], pcapio.LinkTypeEthernet, len(c.frame), &p)
				}
			})
		}
	}
}
