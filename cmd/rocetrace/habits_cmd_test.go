package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestSuggestCommand: the nearest command within 2 edits, or a command the
// word begins, or none.
func TestSuggestCommand(t *testing.T) {
	tests := []struct {
		in   string
		dist string // the distance to want, worked out
		want string
	}{
		{"pakets", "1: insert c", "packets"},
		{"reprot", "2: two substitutions (p<->r swapped)", "report"},
		{"exprot", "2: two substitutions", "export"},
		{"tiu", "2: two substitutions", "tui"},
		{"capturee", "1: delete e", "capture"},
		{"hepl", "2: two substitutions", "help"},
		{"verison", "2: two substitutions", "version"},
		{"PACKETS", "0 once lowered", "packets"},
		{"pack", "3 to packets, but its prefix", "packets"},
		{"xyzzy", "5 or more to every command", ""},
		{"r", "a one-letter prefix is not enough; 5 to report", ""},
	}
	for _, tc := range tests {
		if got := suggestCommand(tc.in); got != tc.want {
			t.Errorf("suggestCommand(%q) = %q, want %q (%s)", tc.in, got, tc.want, tc.dist)
		}
	}
	// Levenshtein by hand: kitten -> sitting is 3 (k->s, e->i, +g).
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"", "tui", 3}, {"tui", "tui", 0}, {"report", "reprot", 2}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// TestCommandHabits: help CMD, version, and unknown commands.
func TestCommandHabits(t *testing.T) {
	_, packetsHelp, _ := rt(t, "packets", "-h")
	_, overview, _ := rt(t, "--help")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, unless ""
		stderr string // contained
	}{
		{"help packets", []string{"help", "packets"}, exitOK, packetsHelp, ""},
		{"help", []string{"help"}, exitOK, overview, ""},
		{"help help", []string{"help", "help"}, exitOK, overview, ""},
		{"help unknown", []string{"help", "pakets"}, exitUsage, "", `rocetrace: unknown command "pakets" (did you mean packets?)`},
		{"typo", []string{"pakets", "x.pcap"}, exitUsage, "", "rocetrace: unknown command \"pakets\" (did you mean packets?)\n"},
		{"typo alone", []string{"reprot"}, exitUsage, "", `unknown command "reprot" (did you mean report?)`},
		{"no suggestion", []string{"xyzzy"}, exitUsage, "", `unknown command "xyzzy" (run 'rocetrace help' for the commands)`},
		// A missing file name stays a capture that cannot be opened.
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.pcap")}, exitFailed, "", "nope.pcap"},
		{"missing dotted", []string{"nope.pcap"}, exitFailed, "", "open nope.pcap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := rt(t, tc.args...)
			if code != tc.code || (tc.stdout != "" && out != tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %q\nstderr %q (want %q)", code, tc.code, out[:min(len(out), 200)], errOut, tc.stderr)
			}
			if tc.code == exitUsage && out != "" {
				t.Errorf("stdout %q on a usage error", out)
			}
		})
	}
	// An existing file named like a typo is a capture, as before.
	dir := t.TempDir()
	if err := synth.LossNAKReplay().WriteFile(filepath.Join(dir, "reprot"), synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, out, errOut := rt(t, "reprot"); code != exitOK || !strings.Contains(out, "23 frames") {
		t.Errorf("rocetrace reprot (a file): exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := rt(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "rocetrace ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, ", commit ") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

// TestVersionLine formats the build info.
func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.23.4", Main: debug.Module{Version: "v1.2.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9fd615c"}, {Key: "vcs.modified", Value: "true"}}}
	clean := &debug.BuildInfo{GoVersion: "go1.23.4", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9fd615c"}, {Key: "vcs.modified", Value: "false"}}}
	tests := []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{stamped, true, "rocetrace v1.2.0, commit 9fd615c, modified, go1.23.4"},
		{clean, true, "rocetrace (devel), commit 9fd615c, go1.23.4"},
		{&debug.BuildInfo{GoVersion: "go1.23.4"}, true, "rocetrace (devel), commit unknown, go1.23.4"},
		{nil, false, "rocetrace (devel), commit unknown, unknown"},
	}
	for _, tc := range tests {
		if got := versionLine(tc.bi, tc.ok); got != tc.want {
			t.Errorf("versionLine = %q, want %q", got, tc.want)
		}
	}
}

// TestTSharkFieldsDemos compares packets -T fields with tshark -T fields
// (tshark's default separator and aggregator) on every demo capture, line
// for line. Skipped without tshark. mirror_erspan_snap192 is compared on
// frame.number and infiniband.bth.psn only: tshark's ip.src there is the
// outer (ERSPAN) IPv4 header while rocetrace describes the inner frame,
// whose IP is IPv6 (docs/interface.md, "Input files").
func TestTSharkFieldsDemos(t *testing.T) {
	tshark := testenv.TShark(t)
	fields := []string{"frame.number", "ip.src", "infiniband.bth.psn"}
	frames := 0
	for _, path := range demoCaptures(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			args := []string{"-r", path, "-T", "fields"}
			ours := []string{"packets", "-T", "fields"}
			for _, f := range fields {
				if f == "ip.src" && strings.HasPrefix(name, "mirror_erspan") {
					continue
				}
				args = append(args, "-e", f)
				ours = append(ours, "-e", f)
			}
			cmd := exec.Command(tshark, args...)
			var errBuf bytes.Buffer
			cmd.Stderr = &errBuf
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("tshark: %v: %s", err, errBuf.String())
			}
			code, got, errOut := rt(t, append(ours, "-r", path)...)
			if code != exitOK {
				t.Fatalf("packets: exit %d: %s", code, errOut)
			}
			wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
			if len(wl) != len(gl) {
				t.Fatalf("%d lines, tshark %d", len(gl)-1, len(wl)-1)
			}
			for i := range wl {
				if wl[i] != gl[i] {
					t.Errorf("line %d: %q, tshark %q", i+1, gl[i], wl[i])
				}
			}
			frames += len(wl) - 1
		})
	}
	t.Logf("%d frames compared with tshark -T fields", frames)
}
