package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestFieldsWorkedByHand checks packets -T fields on the scenarios, values
// worked out from internal/synth/scenarios.go.
func TestFieldsWorkedByHand(t *testing.T) {
	loss := writeCapture(t, synth.LossNAKReplay(), synth.PcapNanos)
	pfc := writeCapture(t, synth.PFCPauseStorm(), synth.Pcapng)
	// LossNAKReplay: NewConn(Host(1)=10.0.0.1 as A with QP 0x11, Host(2)=
	// 10.0.0.2 as B with QP 0x22, A's first PSN 1000). Frames 1-3: A's
	// WRITE First/Middle/Middle, PSNs 1000-1002, to B's QP 0x22; the First
	// has RETH VA 0x7f0000000000 (16 hex digits as tshark: 0x00007f0000000000),
	// R_Key 0x1234 = 4660 (8 digits: 0x00001234); 1003 is lost, so frame 4
	// is PSN 1004 (a psn_gap); frame 5 is B's NAK of 1003 to A's QP 0x11,
	// syndrome 0b011_00000 (NAK, code 0 PSN sequence error) = 96; frame 8
	// is the WRITE Last, PSN 1007, AckReq; frame 9 replays 1003.
	const head = "frame.number\tip.src\tinfiniband.bth.destqp\tpsn\tinfiniband.reth.va\tinfiniband.reth.r_key\treth_rkey\tackreq\tinfiniband.bth.a\tip.addr\tevents\taeth_syndrome\n"
	lossFields := []string{"packets", "-T", "fields", "-E", "header=y", "-e", "frame.number", "-e", "ip.src", "-e", "infiniband.bth.destqp",
		"-e", "psn", "-e", "infiniband.reth.va", "-e", "infiniband.reth.r_key", "-e", "reth_rkey", "-e", "ackreq", "-e", "infiniband.bth.a",
		"-e", "ip.addr", "-e", "events", "-e", "aeth_syndrome", loss}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"loss frames 1-5, 8, 9", append(append([]string{}, lossFields[:len(lossFields)-1]...), "-Y", "frame <= 5 || frame in {8 9}", loss),
			head +
				"1\t10.0.0.1\t0x000022\t1000\t0x00007f0000000000\t0x00001234\t4660\tfalse\t0\t10.0.0.1,10.0.0.2\t\t\n" +
				"2\t10.0.0.1\t0x000022\t1001\t\t\t\tfalse\t0\t10.0.0.1,10.0.0.2\t\t\n" +
				"3\t10.0.0.1\t0x000022\t1002\t\t\t\tfalse\t0\t10.0.0.1,10.0.0.2\t\t\n" +
				"4\t10.0.0.1\t0x000022\t1004\t\t\t\tfalse\t0\t10.0.0.1,10.0.0.2\tpsn_gap\t\n" +
				"5\t10.0.0.2\t0x000011\t1003\t\t\t\tfalse\t0\t10.0.0.2,10.0.0.1\tnak\t96\n" +
				"8\t10.0.0.1\t0x000022\t1007\t\t\t\ttrue\t1\t10.0.0.1,10.0.0.2\t\t\n" +
				"9\t10.0.0.1\t0x000022\t1003\t\t\t\tfalse\t0\t10.0.0.1,10.0.0.2\tretransmission\t\n"},
		// -c counts after -Y: the frames with events are 4, 5, 9, ...: -c 2
		// keeps 4 and 5. quote=d quotes present values only (as tshark).
		{"-c after -Y, csv, quotes", []string{"packets", "-Y", "events", "-c", "2", "-T", "fields", "-E", "separator=,", "-E", "quote=d",
			"-e", "frame", "-e", "events", "-e", "reth_len", loss},
			"\"4\",\"psn_gap\",\n\"5\",\"nak\",\n"},
		// Occurrences of two-sided fields: frame 1 is 10.0.0.1 -> 10.0.0.2,
		// UDP to 4791; last = the destination.
		{"occurrence=l", []string{"packets", "-c", "1", "-T", "fields", "-E", "occurrence=l", "-e", "ip.addr", "-e", "udp.port", loss},
			"10.0.0.2\t4791\n"},
		{"occurrence=f, aggregator", []string{"packets", "-c", "1", "-T", "fields", "-E", "occurrence=f", "-e", "ip.addr",
			"-e", "eth.addr", loss}, "10.0.0.1\t02:00:00:00:00:02\n"}, // eth.addr: destination first, as tshark
		{"aggregator=/s, separator=/s", []string{"packets", "-c", "1", "-T", "fields", "-E", "aggregator=/s", "-E", "separator=/s",
			"-e", "ip.addr", "-e", "kind", "-e", "flow", loss}, "10.0.0.1 10.0.0.2 roce 10.0.0.1>10.0.0.2:qp0x000022\n"},
		// PFCPauseStorm frame 16: the first PFC frame (T0+5 ms), priority 3
		// only (enable vector 0b1000 = 8) with 1000 quanta; it starts a pause
		// episode; no IP: src_ip empty.
		{"pfc", []string{"packets", "-Y", "frame == 16", "-T", "fields", "-e", "frame", "-e", "kind", "-e", "pfc_enable",
			"-e", "pfc_quanta", "-e", "events", "-e", "src_ip", "-e", "eth.src", pfc},
			"16\tpfc\t8\t0,0,0,1000,0,0,0,0\tpause\t\t02:5a:00:00:00:01\n"},
		// -c alone: the first 2 of the 23 text lines.
		{"-c text", []string{"packets", "-c", "2", "-T", "fields", "-e", "frame", loss}, "1\n2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := rt(t, tc.args...)
			if code != exitOK || out != tc.want {
				t.Errorf("exit %d (stderr %q)\n got %q\nwant %q", code, errOut, out, tc.want)
			}
		})
	}
}

// TestPacketsHabitFlags: -T json is --json, -c cuts the text and JSON
// outputs, -r is a FILE, and the usage errors of the new flags.
func TestPacketsHabitFlags(t *testing.T) {
	loss := writeCapture(t, synth.LossNAKReplay(), synth.PcapNanos)
	_, jsonOut, _ := rt(t, "packets", "--json", loss)
	_, textOut, _ := rt(t, "packets", loss)
	lines := strings.SplitAfter(textOut, "\n")
	jsonLines := strings.SplitAfter(jsonOut, "\n")
	if len(lines) != 24 { // 23 frames and the empty piece after the last newline
		t.Fatalf("%d text lines, want 23", len(lines)-1)
	}
	same := []struct {
		name string
		args []string
		want string
	}{
		{"-T json", []string{"packets", "-T", "json", loss}, jsonOut},
		{"-T text", []string{"packets", "-T", "text", loss}, textOut},
		{"-r", []string{"packets", "-r", loss}, textOut},
		{"-c 3", []string{"packets", "-c", "3", loss}, strings.Join(lines[:3], "")},
		{"-c 0 is all", []string{"packets", "-c", "0", loss}, textOut},
		{"-c above the frames", []string{"packets", "-c", "100", loss}, textOut},
		{"-c with -T json", []string{"packets", "-T", "json", "-c", "1", loss}, jsonLines[0]},
		// Frames with events: 4 (gap), 5 (NAK), 9 (replay): -c 3 after -Y.
		{"-c after -Y", []string{"packets", "-Y", "events", "-c", "3", "--json", loss}, ""},
	}
	for _, tc := range same {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := rt(t, tc.args...)
			if tc.name == "-c after -Y" {
				frames, _ := jsonFrames(t, out)
				if code != exitOK || len(frames) != 3 || frames[0] != 4 || frames[1] != 5 || frames[2] != 9 {
					t.Errorf("exit %d, frames %v, want [4 5 9] (stderr %q)", code, frames, errOut)
				}
				return
			}
			if code != exitOK || out != tc.want {
				t.Errorf("exit %d (stderr %q)\n got %q\nwant %q", code, errOut, out, tc.want)
			}
		})
	}
	usage := []struct {
		args []string
		msg  string
	}{
		{[]string{"packets", "-T", "pdml", loss}, `invalid -T "pdml"`},
		{[]string{"packets", "-T", "fields", loss}, "-T fields needs at least one -e FIELD"},
		{[]string{"packets", "-e", "ip.src", loss}, "-e and -E need -T fields"},
		{[]string{"packets", "-T", "fields", "-e", "ip.sr", loss}, "-e ip.sr: unknown field"},
		{[]string{"packets", "-T", "fields", "-e", "psn", "-E", "quote=x", loss}, `invalid -E "quote=x"`},
		{[]string{"packets", "-T", "fields", "-e", "psn", "-E", "colour=y", loss}, `invalid -E "colour=y"`},
		{[]string{"packets", "-T", "fields", "-e", "psn", "--json", loss}, "-T fields does not go with --json or -V"},
		{[]string{"packets", "-c", "-1", loss}, "invalid -c -1"},
	}
	for _, tc := range usage {
		code, out, errOut := rt(t, tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args[1:], code, out, errOut, tc.msg)
		}
	}
}

// TestReadFileFlag: -r FILE is a FILE argument on report, export and tui
// too, and comes before the FILE arguments.
func TestReadFileFlag(t *testing.T) {
	loss := writeCapture(t, synth.LossNAKReplay(), synth.PcapNanos)
	cnp := writeCapture(t, synth.CongestionCNP(), synth.PcapNanos)
	_, want, _ := rt(t, "report", "--json", loss, cnp)
	for _, args := range [][]string{
		{"report", "--json", "-r", loss, cnp},
		{"report", "--json", "-r", loss, "-r", cnp},
		{"--json", "-r", loss, "--read-file", cnp}, // the default command
	} {
		if code, got, errOut := rt(t, args...); code != exitOK || got != want {
			t.Errorf("%v: exit %d (stderr %q), output differs from FILE arguments", args, code, errOut)
		}
	}
	// The -r files come first, then the FILE arguments, whatever the order
	// on the line: capture.files lists cnp before loss.
	m := reportJSON(t, loss, "-r", cnp)
	files := m["capture"].(map[string]any)["files"].([]any)
	if len(files) != 2 || files[0] != cnp || files[1] != loss {
		t.Errorf("capture.files %v, want [%s %s]", files, cnp, loss)
	}
	dir := t.TempDir()
	if code, _, errOut := rt(t, "export", "-o", dir, "-r", loss); code != exitOK {
		t.Errorf("export -r: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "packets.parquet")); err != nil {
		t.Errorf("export -r wrote no packets.parquet: %v", err)
	}
	// tui -r without a terminal: the terminal is what is missing, not a FILE.
	code, _, errOut := rt(t, "tui", "-r", loss)
	if code != exitUsage || strings.Contains(errOut, "no capture file") || !strings.Contains(errOut, "terminal") {
		t.Errorf("tui -r: exit %d, stderr %q: want the terminal error", code, errOut)
	}
	// capture reads no FILE: it has no -r.
	if code, _, errOut := rt(t, "capture", "-r", loss); code != exitUsage || !strings.Contains(errOut, "-r") {
		t.Errorf("capture -r: exit %d, stderr %q: want an unknown flag", code, errOut)
	}
}
