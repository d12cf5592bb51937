//go:build !unix

package stagebench

// CPUNs returns 0 where the process's CPU time is not known.
func CPUNs() int64 { return 0 }
