//go:build unix

package export

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process with this PID exists (signal 0:
// nothing is sent; EPERM means it exists but is not ours).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
