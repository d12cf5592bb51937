//go:build unix

package stagebench

import "syscall"

// CPUNs returns the CPU time (user and system, all threads) the process
// has used so far, in nanoseconds.
func CPUNs() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
