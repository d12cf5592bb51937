//go:build linux

package main

import (
	"bytes"
	"errors"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
	"golang.org/x/sys/unix"
)

// buildRocetrace builds the command into a temporary directory.
func buildRocetrace(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "rocetrace")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// exitStatus returns the exit status of a finished command (-1 when a
// signal killed it).
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", err)
	return 0
}

// waitEnd waits for cmd, killing it (and failing) should it hang: a hang,
// not a timing check.
func waitEnd(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) int {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		return exitStatus(t, err)
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-errc
		t.Fatalf("rocetrace did not end on the signal; stderr %q", stderr.String())
	}
	return 0
}

// tempFIFO makes a FIFO in a temporary directory (the test is skipped
// where mkfifo fails) and returns its path.
func tempFIFO(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return fifo
}

// signalEnd sends sig to cmd's process and returns its exit status once it
// ended (waitEnd).
func signalEnd(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, stderr *syncBuffer) int {
	t.Helper()
	if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
		t.Fatal(err)
	}
	return waitEnd(t, cmd, stderr)
}

// blockedInWait waits until every thread of the process pid sleeps in the
// kernel (state S: blocked in an open, a read, a write, or idle), ten
// looks in a row, so that the signal comes while rocetrace is blocked and
// not while it is still starting or working.
func blockedInWait(t *testing.T, pid int) {
	t.Helper()
	quiet := 0
	for range 4000 {
		if allSleeping(t, pid) {
			if quiet++; quiet == 10 {
				return
			}
		} else {
			quiet = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d never blocked", pid)
}

// allSleeping reports whether every thread of pid is in state S.
func allSleeping(t *testing.T, pid int) bool {
	t.Helper()
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "stat"))
		if err != nil {
			return false // a thread that just ended
		}
		// "tid (comm) S ...": the state follows the command name.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'S' {
			return false
		}
	}
	return len(tasks) > 0
}

// TestSignalDuringBlockedRead: SIGINT or SIGTERM ends report and packets
// while they are blocked opening a FIFO that has no writer, or reading a
// pipe whose writer stalls after writing a whole capture. They print what
// they read, say where they stopped, and exit 130 or 143.
func TestSignalDuringBlockedRead(t *testing.T) {
	bin := buildRocetrace(t)
	root := testenv.RepoRoot()
	capture, err := os.ReadFile(filepath.Join(root, sigCapture))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		stalled bool // a pipe on stdin holding the whole capture, else a FIFO with no writer
		sig     syscall.Signal
		code    int
		stderr  string // {FILE} is the FIFO's path
		stdout  string // a part of stdout
	}{
		{"report fifo SIGINT", []string{"report"}, false, syscall.SIGINT, 130,
			"rocetrace: interrupted after 0 frames ({FILE}, byte offset 0)\n", "== Capture\n  INTERRUPTED after 0 frames: the report covers only the frames read\n"},
		{"report --json fifo SIGTERM", []string{"report", "--json"}, false, syscall.SIGTERM, 143,
			"rocetrace: interrupted after 0 frames ({FILE}, byte offset 0)\n", `"interrupted": true`},
		{"packets fifo SIGINT", []string{"packets"}, false, syscall.SIGINT, 130,
			"rocetrace: interrupted after 0 frames ({FILE}, byte offset 0)\n", ""},
		{"report --json stalled pipe SIGTERM", []string{"report", "--json"}, true, syscall.SIGTERM, 143,
			"rocetrace: interrupted after 50 frames (/dev/stdin, byte offset 40860)\n", `"packets": 50,`},
		{"report stalled pipe SIGINT", []string{"report"}, true, syscall.SIGINT, 130,
			"rocetrace: interrupted after 50 frames (/dev/stdin, byte offset 40860)\n", "== Capture\n  INTERRUPTED after 50 frames: the report covers only the frames read\n"},
		{"packets --json stalled pipe SIGINT", []string{"packets", "--json"}, true, syscall.SIGINT, 130,
			"rocetrace: interrupted after 50 frames (/dev/stdin, byte offset 40860)\n", `"frame":50,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file string
			var pipeW *os.File
			cmd := exec.Command(bin)
			if tc.stalled {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				defer w.Close()
				pipeW = w
				file, cmd.Stdin = "/dev/stdin", r
			} else {
				file = tempFIFO(t)
			}
			cmd.Args = append(append([]string{bin}, tc.args...), file)
			var stdout bytes.Buffer
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if tc.stalled {
				if _, err := pipeW.Write(capture); err != nil {
					t.Fatal(err)
				}
				// Until rocetrace has read all of it (the pipe is empty: TIOCINQ,
				// alias FIONREAD, counts the bytes in it).
				for n := 1; n > 0; {
					if n, err = unix.IoctlGetInt(int(pipeW.Fd()), unix.TIOCINQ); err != nil {
						t.Fatal(err)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			blockedInWait(t, cmd.Process.Pid)
			code := signalEnd(t, cmd, tc.sig, stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			if want := strings.ReplaceAll(tc.stderr, "{FILE}", file); stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
		})
	}
	if sigCaptureFrames != 50 || len(capture) != sigCaptureBytes {
		t.Errorf("%s: %d bytes, want %d", sigCapture, len(capture), sigCaptureBytes)
	}
}

// TestSignalWatchdog: a command blocked where no deadline reaches it (a
// write to a stdout nobody reads) is ended by main a second after the
// signal, with the signal's status.
func TestSignalWatchdog(t *testing.T) {
	bin := buildRocetrace(t)
	big := filepath.Join(t.TempDir(), "big.pcap")
	writeBigCapture(t, big)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "packets", big)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	blockedInWait(t, cmd.Process.Pid)
	if code := signalEnd(t, cmd, syscall.SIGTERM, stderr); code != 143 {
		t.Errorf("exit %d, want 143 (stderr %q)", code, stderr.String())
	}
	if want := "rocetrace: interrupted by SIGTERM; did not stop within 1s: exiting\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// writeBigCapture writes 4000 frames of one connection: more output than
// a pipe holds.
func writeBigCapture(t *testing.T, path string) {
	t.Helper()
	c := &synth.Capture{}
	conn := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 0, 0)
	ts := int64(1767323045_000000000)
	for range 1000 {
		ts, _ = conn.Write(synth.A, ts, 100, 4096)
	}
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
}

// TestSignalExportFIFO: SIGINT while export waits for a FIFO's writer
// writes nothing and exits 130.
func TestSignalExportFIFO(t *testing.T) {
	bin := buildRocetrace(t)
	fifo := tempFIFO(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "export", "-o", dir, fifo)
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	blockedInWait(t, cmd.Process.Pid)
	if code := signalEnd(t, cmd, syscall.SIGINT, stderr); code != 130 {
		t.Errorf("exit %d, want 130 (stderr %q)", code, stderr.String())
	}
	want := "rocetrace: export interrupted after 0 frames (" + fifo + ", byte offset 0); nothing written to " +
		strings.Join([]string{dir + "/packets.parquet", dir + "/flows.parquet", dir + "/events.parquet", dir + "/pfc.parquet", dir + "/latency.parquet", dir + "/rates.parquet"}, ", ") + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if got := expFiles(t, dir); len(got) != 0 || stdout.Len() != 0 {
		t.Errorf("files %v, stdout %q", got, stdout.String())
	}
}

// TestSignalTUIOpen: SIGINT or SIGTERM while tui waits for a FIFO's writer
// (opening its files, before the terminal is set up) ends it as it ends
// report: where it stopped on stderr, exit 130 or 143. (stdout is not a
// terminal here: tui would refuse it, but only after opening its files.)
func TestSignalTUIOpen(t *testing.T) {
	bin := buildRocetrace(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			fifo := tempFIFO(t)
			cmd := exec.Command(bin, "tui", fifo)
			var stdout bytes.Buffer
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			blockedInWait(t, cmd.Process.Pid)
			if code := signalEnd(t, cmd, tc.sig, stderr); code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			if want := "rocetrace: interrupted after 0 frames (" + fifo + ", byte offset 0)\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}

// TestSignalWatchdogExportDone: an export whose files are all in place but
// which is blocked writing its "wrote" lines to a full pipe is ended by the
// watchdog (exit 143); its hooks, run first, leave the complete export
// alone: the six files stay, no temporary file.
func TestSignalWatchdogExportDone(t *testing.T) {
	bin := buildRocetrace(t)
	in := filepath.Join(testenv.RepoRoot(), sigCapture)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Fill the pipe: nobody reads it, the first write of rocetrace blocks.
	// (Fd puts the file in blocking mode: call it once, before.)
	fd := int(w.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for n := 0; ; n++ {
		if _, err := unix.Write(fd, chunk); err != nil {
			break
		}
		if n > 1<<16 {
			t.Fatal("the pipe never filled")
		}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "export", "-o", dir, in)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	blockedInWait(t, cmd.Process.Pid)
	if got := expFiles(t, dir); len(got) != len(export.Tables) {
		t.Fatalf("blocked with files %v: not after the renames", got)
	}
	if code := signalEnd(t, cmd, syscall.SIGTERM, stderr); code != 143 {
		t.Errorf("exit %d, want 143 (stderr %q)", code, stderr.String())
	}
	if want := "rocetrace: interrupted by SIGTERM; did not stop within 1s: exiting\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	want := []string{"events.parquet", "flows.parquet", "latency.parquet", "packets.parquet", "pfc.parquet", "rates.parquet"}
	if got := expFiles(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
}
