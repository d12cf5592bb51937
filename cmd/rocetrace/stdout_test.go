//go:build linux

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestStdoutWriteErrors: report, packets and export with stdout on
// /dev/full exit 1 and say why; with stdout on /dev/null they succeed,
// opened write-only (a shell's `> /dev/null`) or read-write (Python's
// subprocess.DEVNULL, and what the Go runtime puts in place of a closed
// descriptor: a stdout closed before the start is not told apart from it).
func TestStdoutWriteErrors(t *testing.T) {
	bin := buildRocetrace(t)
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"report"}, "rocetrace: writing report: "},
		{[]string{"report", "--json"}, "rocetrace: writing report: "},
		{[]string{"packets"}, "rocetrace: writing output: "},
		{[]string{"packets", "--json"}, "rocetrace: writing output: "},
		{[]string{"export", "-o", "{DIR}"}, "rocetrace: writing output: "},
	} {
		for _, stdout := range []string{"full", "null", "null-rw"} {
			name := strings.Join(tc.args[:1], " ") + " " + stdout
			args := make([]string, 0, len(tc.args)+1)
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{DIR}", t.TempDir()))
			}
			args = append(args, in)
			var cmd *exec.Cmd
			switch stdout {
			case "full", "null", "null-rw":
				mode := os.O_WRONLY
				if stdout == "null-rw" {
					mode = os.O_RDWR
				}
				f, err := os.OpenFile("/dev/"+strings.TrimSuffix(stdout, "-rw"), mode, 0)
				if err != nil {
					t.Skipf("/dev/%s: %v", stdout, err)
				}
				defer f.Close()
				cmd = exec.Command(bin, args...)
				cmd.Stdout = f
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			code := exitStatus(t, cmd.Run())
			wantCode, wantMsg := exitFailed, tc.msg
			if stdout != "full" {
				wantCode, wantMsg = exitOK, ""
			}
			if code != wantCode || !strings.HasPrefix(stderr.String(), wantMsg) || (wantMsg == "") != (stderr.Len() == 0) {
				t.Errorf("%s %v: exit %d, stderr %q; want %d and %q", name, tc.args, code, stderr.String(), wantCode, wantMsg)
			}
		}
	}
}

// TestStdoutBrokenPipe: `rocetrace packets big.pcap | head -1` ends
// quietly, by SIGPIPE, as any Unix filter does.
func TestStdoutBrokenPipe(t *testing.T) {
	bin := buildRocetrace(t)
	big := filepath.Join(t.TempDir(), "big.pcap")
	writeBigCapture(t, big)
	cmd := exec.Command(bin, "packets", big)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	out.Close() // as head does after its line
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("wait: %v (stderr %q)", err, stderr.String())
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE || stderr.Len() != 0 {
		t.Errorf("ended by %v, stderr %q; want SIGPIPE and nothing", ee, stderr.String())
	}
}
