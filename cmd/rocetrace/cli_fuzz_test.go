package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// cliFlagSets are the analysis flags FuzzCLI varies (picked by the fuzzed
// selector): every value is valid, so exit status 2 is never right.
var cliFlagSets = [][]string{
	nil,
	{"--pmtu", "1024"},
	{"--pmtu", "4096", "--link-speed", "25G"},
	{"--roce-port", "4792"},
	{"--link-speed", "400G", "--pmtu", "256"},
}

// runIn runs the CLI in-process.
func runIn(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"rocetrace"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// FuzzCLI runs the whole command line in-process on arbitrary capture
// bytes with varied flags: report --json, packets --json and export. Exit
// statuses are only 0 or 1; damage is reported with the file and a byte
// offset; the JSON is valid; the report counts as many frames as packets
// prints lines; export leaves no temporary file behind.
func FuzzCLI(f *testing.F) {
	for _, p := range []string{"loss_nak_replay.pcap", "congestion_cnp.pcap", "mirror_erspan_snap192.pcapng", "pfc_pause_storm.pcapng"} {
		data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "pcaps", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
		f.Add(data[:len(data)*2/3], uint8(1)) // cut: damage
	}
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.pcap")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		flags := cliFlagSets[int(sel)%len(cliFlagSets)]
		args := func(cmd string, extra ...string) []string {
			return append(append(append([]string{cmd}, extra...), flags...), path)
		}
		code, out, errOut := runIn(args("report", "--json")...)
		checkCLIRun(t, "report", code, errOut, path)
		var rep struct {
			Capture struct {
				Packets int64 `json:"packets"`
			} `json:"capture"`
		}
		if out != "" {
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("report --json: invalid JSON: %v", err)
			}
		}
		pcode, pout, perr := runIn(args("packets", "--json")...)
		checkCLIRun(t, "packets", pcode, perr, path)
		var lines int64
		sc := bufio.NewScanner(strings.NewReader(pout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("packets --json: invalid line %q", sc.Text())
			}
			lines++
		}
		if pcode != code || (out != "" && lines != rep.Capture.Packets) {
			t.Fatalf("report (exit %d) counts %d frames, packets (exit %d) prints %d", code, rep.Capture.Packets, pcode, lines)
		}
		xdir := filepath.Join(dir, "x")
		xcode, _, xerr := runIn(args("export", "-o", xdir)...)
		checkCLIRun(t, "export", xcode, xerr, path)
		ents, _ := os.ReadDir(xdir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Fatalf("export (exit %d) left %s", xcode, e.Name())
			}
		}
	})
}

// checkCLIRun checks a command's exit status and, on damage, its message.
func checkCLIRun(t *testing.T, cmd string, code int, stderr, path string) {
	t.Helper()
	if code != exitOK && code != exitFailed {
		t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
	}
	if code == exitOK && strings.Contains(stderr, "damaged") {
		t.Fatalf("%s: exit 0 with damage: %s", cmd, stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "damaged") && (!strings.Contains(line, path) || !strings.Contains(line, "byte offset")) {
			t.Fatalf("%s: damage message without file and offset: %q", cmd, line)
		}
	}
}
