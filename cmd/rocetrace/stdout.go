package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
)

// errStdoutClosed is the error of a command whose standard output was
// closed when it started (see stdoutClosed).
var errStdoutClosed = errors.New("write /dev/stdout: standard output is closed")

// isBrokenPipe reports whether err is a write to a pipe whose reader has
// gone (`| head`): that stays quiet. (On os.Stdout the Go runtime raises
// SIGPIPE first, which ends the process as it ends any Unix filter.)
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// checkStdout returns errStdoutClosed when w is the process's standard
// output and that was closed when the process started.
func checkStdout(w io.Writer) error {
	if f, ok := w.(*os.File); ok && f.Fd() == 1 && stdoutClosed() {
		return errStdoutClosed
	}
	return nil
}

// stdoutClosed reports whether descriptor 1 was closed when the process
// started. The Go runtime then opens /dev/null read-write in its place
// (runtime.checkfds), so writes to it succeed and are lost; a shell's
// `>/dev/null` opens it write-only, which is not taken for a closed stdout.
// Linux only (/proc); elsewhere it reports false.
func stdoutClosed() bool {
	if l, err := os.Readlink("/proc/self/fd/1"); err != nil || l != os.DevNull {
		return false
	}
	info, err := os.ReadFile("/proc/self/fdinfo/1")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			v = strings.TrimSpace(v)
			// The access mode is the last octal digit: 2 is O_RDWR.
			return strings.HasSuffix(v, "2")
		}
	}
	return false
}
