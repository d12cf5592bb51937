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
// /dev/full or closed (`>&-`) exit 1 and say why; with stdout on
// /dev/null (opened write-only, as a shell does) they succeed.
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
		for _, stdout := range []string{"full", "closed", "null"} {
			name := strings.Join(tc.args[:1], " ") + " " + stdout
			args := make([]string, 0, len(tc.args)+1)
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{DIR}", t.TempDir()))
			}
			args = append(args, in)
			var cmd *exec.Cmd
			switch stdout {
			case "full", "null":
				f, err := os.OpenFile("/dev/"+stdout, os.O_WRONLY, 0)
				if err != nil {
					t.Skipf("/dev/%s: %v", stdout, err)
				}
				defer f.Close()
				cmd = exec.Command(bin, args...)
				cmd.Stdout = f
			case "closed":
				cmd = exec.Command("sh", append([]string{"-c", `exec "$0" "$@" >&-`, bin}, args...)...)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			code := exitStatus(t, cmd.Run())
			wantCode, wantMsg := exitFailed, tc.msg
			if stdout == "null" {
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
