package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/golden"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// rt runs the CLI in-process and returns exit status, stdout and stderr.
func rt(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"rocetrace"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// writeCapture writes a scenario capture into a temp dir.
func writeCapture(t *testing.T, c *synth.Capture, f synth.Format) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c"+synth.Extension(f))
	if err := c.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDemoCapturesUpToDate regenerates every demo scenario and requires the
// committed pcaps/ file to match byte for byte.
func TestDemoCapturesUpToDate(t *testing.T) {
	for _, s := range synth.Scenarios() {
		var buf bytes.Buffer
		if err := s.Build().WriteTo(&buf, s.Format); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(testenv.RepoRoot(), "pcaps", s.Name+synth.Extension(s.Format))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go run ./internal/cmd/mkdemo)", err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s is stale: go run ./internal/cmd/mkdemo", path)
		}
	}
}

// TestReportGoldenDemos runs the report, text and JSON, on every demo capture.
func TestReportGoldenDemos(t *testing.T) {
	for _, s := range synth.Scenarios() {
		rel := filepath.Join("pcaps", s.Name+synth.Extension(s.Format))
		path := filepath.Join(testenv.RepoRoot(), rel)
		t.Run(s.Name, func(t *testing.T) {
			code, text, errOut := rt(t, path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkGolden(t, s.Name+".report.golden", strings.ReplaceAll(text, path, rel))
			code, js, errOut := rt(t, "report", "--json", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !json.Valid([]byte(js)) {
				t.Fatal("report --json is not valid JSON")
			}
			checkGolden(t, s.Name+".json.golden", strings.ReplaceAll(js, path, rel))
		})
	}
}

// TestReportGoldenShared runs the report on every real capture in
// ../shared/pcaps.
func TestReportGoldenShared(t *testing.T) {
	for _, path := range testenv.SharedPcaps(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			code, text, errOut := rt(t, path)
			wantCode := 0
			if code != wantCode {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkGolden(t, filepath.Join("shared", name+".report.golden"), strings.ReplaceAll(text, path, name))
			_, js, _ := rt(t, "report", "--json", path)
			checkGolden(t, filepath.Join("shared", name+".json.golden"), strings.ReplaceAll(js, path, name))
		})
	}
}

// TestExitStatus covers the contract's exit statuses and messages.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := writeCapture(t, synth.LossNAKReplay(), synth.PcapNanos)
	goodBytes, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Record offsets: the global header is 24 bytes; each record is a
	// 16-byte header plus its data.
	var offs []int
	for off := 24; off < len(goodBytes); {
		offs = append(offs, off)
		off += 16 + int(binary.LittleEndian.Uint32(goodBytes[off+8:]))
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Cut the 6th record in the middle of its data.
	cut := write("cut.pcap", goodBytes[:offs[5]+16+10])
	// An absurd caplen in the 4th record.
	absurd := append([]byte(nil), goodBytes...)
	binary.LittleEndian.PutUint32(absurd[offs[3]+8:], 0x7FFFFFFF)
	absurdPath := write("absurd.pcap", absurd)
	garbage := write("garbage.pcap", []byte("this is not a capture file at all, just text\n"))
	empty := write("empty.pcap", nil)

	tests := []struct {
		name       string
		args       []string
		code       int
		stderrHas  []string
		stdoutHas  string
		frameLines int // packets output: lines expected on stdout (-1: don't check)
	}{
		{"ok", []string{"packets", good}, 0, nil, "RC_RDMA_WRITE_FIRST", 23},
		{"missing file", []string{"packets", filepath.Join(dir, "nope.pcap")}, 1, []string{"nope.pcap"}, "", 0},
		{"not a capture", []string{"packets", garbage}, 1, []string{"garbage.pcap", "not a pcap"}, "", 0},
		{"empty file", []string{"packets", empty}, 1, []string{"empty.pcap"}, "", 0},
		{"record cut short", []string{"packets", cut}, 1, []string{"cut.pcap", "offset " + strconv.Itoa(offs[5])}, "", 5},
		{"absurd caplen", []string{"packets", absurdPath}, 1, []string{"absurd.pcap", "offset " + strconv.Itoa(offs[3])}, "", 3},
		{"report on damage still prints", []string{"report", "--json", cut}, 1, []string{"cut.pcap", "offset " + strconv.Itoa(offs[5])}, `"packets": 5`, -1},
		{"missing among good", []string{"report", good, filepath.Join(dir, "nope.pcap")}, 1, []string{"nope.pcap"}, "23 frames", -1},
		{"no file", []string{"packets"}, 2, []string{"no capture file"}, "", 0},
		{"bad flag", []string{"report", "--bogus", good}, 2, []string{"bogus"}, "", 0},
		{"bad link speed", []string{"report", "--link-speed", "fast", good}, 2, []string{"link-speed"}, "", 0},
		{"bad pmtu", []string{"report", "--pmtu", "1500", good}, 2, []string{"pmtu"}, "", 0},
		{"help", []string{"packets", "-h"}, 0, nil, "Usage: rocetrace packets", -1},
		{"top help", []string{"--help"}, 0, nil, "Usage:", -1},
		// A word that is no command and no file is a mistyped command (exit 2),
		// no longer a missing FILE of report (exit 1).
		{"unknown command", []string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := rt(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			for _, s := range tc.stderrHas {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
			if !strings.Contains(out, tc.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdoutHas, out)
			}
			if tc.frameLines >= 0 {
				if n := strings.Count(out, "\n"); n != tc.frameLines {
					t.Errorf("%d lines on stdout, want %d", n, tc.frameLines)
				}
			}
			if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
				t.Errorf("stack trace on stderr: %s", errOut)
			}
		})
	}
}

// TestTSharkDifferentialSynth compares rocetrace with tshark on captures the
// project builds: every opcode family, IPv6, VLANs and ERSPAN wrapping.
func TestTSharkDifferentialSynth(t *testing.T) {
	tshark := testenv.TShark(t)
	for _, s := range synth.Scenarios() {
		path := filepath.Join(testenv.RepoRoot(), "pcaps", s.Name+synth.Extension(s.Format))
		t.Run(s.Name, func(t *testing.T) {
			c := diffAgainstTShark(t, tshark, path)
			if c.roceFrames == 0 {
				t.Fatal("no RoCE frame compared")
			}
			t.Logf("%d frames, %d RoCE, %d fields", c.frames, c.roceFrames, c.fields)
		})
	}
}

// TestUnsupportedLinkTypeWarns: the native InfiniBand ERF capture is read
// (exit 0) with a warning that its link type is not decoded.
func TestUnsupportedLinkTypeWarns(t *testing.T) {
	path := filepath.Join(testenv.SharedPcapsDir(t), "ib_native_erf_ipoib_cm_rc.pcap")
	code, out, errOut := rt(t, path)
	if code != 0 || !strings.Contains(errOut, "link type ERF is not decoded") || !strings.Contains(out, "43 frames") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
