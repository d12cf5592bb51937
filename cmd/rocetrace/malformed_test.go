package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// malformedCapture builds seven frames, A (10.0.0.1) to B (10.0.0.2):
//
//  1. RC WRITE Only to QP 0x11, PSN 0, whole: ICRC ok
//  2. the same to QP 0x11, PSN 5, its opcode changed to COMPARE_SWAP, whose
//     AtomicETH the UDP length does not hold: malformed
//  3. RC WRITE Only to QP 0x11, PSN 1, cut to 60 bytes by the snaplen:
//     truncated, ICRC unchecked
//  4. RC SEND Only to QP 0x12, PSN 7, made malformed like 2
//  5. a PFC frame of 12 bytes after the EtherType (20 needed): malformed
//  6. a PAUSE frame of 3 bytes after the EtherType (4 needed): malformed
//  7. a whole PFC frame
func malformedCapture(t *testing.T) *synth.Capture {
	t.Helper()
	c := &synth.Capture{}
	frame := func(op uint8, qp, psn uint32) []byte {
		r := &synth.RoCE{Src: synth.Host(1), Dst: synth.Host(2), SrcPort: 50000, DSCP: 26, ECN: 2, Payload: 64,
			BTH: decode.BTHFields{Opcode: decode.Opcode(op), PKey: 0xFFFF, DestQP: qp, PSN: psn}}
		if op == decode.OpWriteOnly {
			r.RETH = decode.RETHFields{VA: 0x1000, RKey: 1, DMALen: 64}
		}
		b, err := r.Frame(synth.Wrap{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const bthOpcode = 14 + 20 + 8
	spoil := func(b []byte) []byte {
		b[bthOpcode] = decode.OpCompareSwap
		// UDP length 8 + BTH 12 + 16 bytes + ICRC 4: RETH-sized, not the
		// 28 bytes of an AtomicETH.
		binary.BigEndian.PutUint16(b[14+20+4:], 8+12+16+4)
		binary.BigEndian.PutUint16(b[14+2:], 20+8+12+16+4)
		return b[:14+20+8+12+16+4]
	}
	c.Add(T0, frame(decode.OpWriteOnly, 0x11, 0))
	c.Add(T0+1_000, spoil(frame(decode.OpWriteOnly, 0x11, 5)))
	cut := frame(decode.OpWriteOnly, 0x11, 1)
	c.Frames = append(c.Frames, synth.Frame{TsNs: T0 + 2_000, Data: cut[:60], Len: len(cut)})
	c.Add(T0+3_000, spoil(frame(decode.OpSendOnly, 0x12, 7)))
	sw := [6]byte{0x02, 0x5a, 0, 0, 0, 1}
	c.Add(T0+4_000, synth.PFC(sw, 0x08, [8]uint16{3: 1000})[:14+12])
	c.Add(T0+5_000, synth.Pause(sw, 500)[:14+3])
	c.Add(T0+6_000, synth.PFC(sw, 0x08, [8]uint16{3: 0}))
	return c
}

// TestMalformedCountsWorkedByHand: malformed frames count in malformed only
// (not as RoCE, PFC or PAUSE, not in icrc_unchecked, in no flow); frames cut
// by the snaplen are the unchecked ones.
func TestMalformedCountsWorkedByHand(t *testing.T) {
	path := writeCapture(t, malformedCapture(t), synth.PcapNanos)
	m := reportJSON(t, path)
	// 7 frames: RoCE 1 and 3 (2, 4 malformed); PFC 7 (5 malformed); no
	// PAUSE (6 malformed); truncated 3; malformed 2, 4, 5, 6; ICRC
	// unchecked 3 only.
	want := map[string]any{"packets": 7, "roce_packets": 2, "cnp_packets": 0, "pfc_frames": 1, "pause_frames": 0,
		"truncated": 1, "malformed": 4, "icrc_bad": 0, "icrc_unchecked": 1}
	capture := m["capture"].(map[string]any)
	for k, v := range jsonNorm(t, want).(map[string]any) {
		if capture[k] != v {
			t.Errorf("capture.%s = %v, want %v", k, capture[k], v)
		}
	}
	// One flow, QP 0x11, of frames 1 and 3: no PSN gap from frame 2's PSN 5,
	// no flow for QP 0x12.
	fl := m["flows"].([]any)
	if len(fl) != 1 {
		t.Fatalf("%d flows, want 1: %v", len(fl), fl)
	}
	f := fl[0].(map[string]any)
	if f["id"] != "10.0.0.1>10.0.0.2:qp0x000011" || f["packets"] != 2.0 || f["psn_gaps"] != 0.0 {
		t.Errorf("flow %v, want 10.0.0.1>10.0.0.2:qp0x000011 of 2 packets, no gap", f)
	}
	_, text, _ := rt(t, "report", path)
	if want := "ICRC       1 ok, 0 bad, 1 unchecked (frame cut short) of 2 RoCE frames"; !strings.Contains(text, want) {
		t.Errorf("report text lacks %q:\n%s", want, text)
	}
	if want := "malformed  4 frames"; !strings.Contains(text, want) {
		t.Errorf("report text lacks %q", want)
	}

	code, out, errOut := rt(t, "packets", "--json", path)
	if code != 0 {
		t.Fatalf("packets --json: exit %d: %s", code, errOut)
	}
	type row struct {
		Kind       string  `json:"kind"`
		ICRCStatus *string `json:"icrc_status"`
		Flow       *string `json:"flow"`
		Malformed  bool    `json:"malformed"`
		Truncated  bool    `json:"truncated"`
	}
	s := func(v string) *string { return &v }
	flow := s("10.0.0.1>10.0.0.2:qp0x000011")
	wantRows := []row{
		{"roce", s("ok"), flow, false, false},
		{"roce", s("malformed"), nil, true, false},
		{"roce", s("unchecked"), flow, false, true},
		{"roce", s("malformed"), nil, true, false},
		{"other", nil, nil, true, false},
		{"other", nil, nil, true, false},
		{"pfc", nil, nil, false, false},
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if i >= len(wantRows) {
			t.Fatalf("more than %d frames", len(wantRows))
		}
		w := wantRows[i]
		if r.Kind != w.Kind || str(r.ICRCStatus) != str(w.ICRCStatus) || str(r.Flow) != str(w.Flow) ||
			r.Malformed != w.Malformed || r.Truncated != w.Truncated {
			t.Errorf("frame %d: kind %s icrc_status %s flow %s malformed %v truncated %v, want %s %s %s %v %v", i+1,
				r.Kind, str(r.ICRCStatus), str(r.Flow), r.Malformed, r.Truncated,
				w.Kind, str(w.ICRCStatus), str(w.Flow), w.Malformed, w.Truncated)
		}
	}
	_, lines, _ := rt(t, "packets", path)
	if n := strings.Count(lines, "[ICRC malformed]"); n != 2 || strings.Count(lines, "[ICRC unchecked]") != 1 {
		t.Errorf("packets: %d [ICRC malformed] (want 2), %d [ICRC unchecked] (want 1):\n%s", n,
			strings.Count(lines, "[ICRC unchecked]"), lines)
	}
}

// str returns *p, or "null".
func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// TestTSharkDifferentialMalformed compares the malformed frames' fields
// with tshark's.
func TestTSharkDifferentialMalformed(t *testing.T) {
	tshark := testenv.TShark(t)
	path := writeCapture(t, malformedCapture(t), synth.PcapNanos)
	if keep := os.Getenv("ROCETRACE_KEEP"); keep != "" {
		_ = malformedCapture(t).WriteFile(keep, synth.PcapNanos)
	}
	c := diffAgainstTShark(t, tshark, path)
	if c.frames != 7 || c.roceFrames != 4 { // frames with a BTH: 1 to 4
		t.Errorf("compared %d frames, %d with a BTH, want 7 and 4", c.frames, c.roceFrames)
	}
	// tshark calls the same frames malformed ("[Malformed Packet: IB]" for
	// 2 and 4, "[Malformed Packet: MACC]" for 5 and 6); frame 3 is only
	// "[Packet size limited during capture]".
	out, err := exec.Command(tshark, "-n", "-r", path, "-d", "udp.port==4791,infiniband",
		"-T", "fields", "-e", "frame.number", "-e", "_ws.malformed").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var theirs []bool
	for line := range strings.SplitSeq(strings.TrimRight(string(out), "\n"), "\n") {
		_, mal, _ := strings.Cut(line, "\t")
		theirs = append(theirs, mal != "")
	}
	_, js, _ := rt(t, "packets", "--json", path)
	var ours []bool
	for line := range strings.SplitSeq(strings.TrimRight(js, "\n"), "\n") {
		var r struct {
			Malformed bool `json:"malformed"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		ours = append(ours, r.Malformed)
	}
	if !slices.Equal(ours, theirs) {
		t.Errorf("malformed per frame: rocetrace %v, tshark %v", ours, theirs)
	}
}
