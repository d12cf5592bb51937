//go:build !unix

package export

// processRuns reports whether a process with this PID exists; where that
// cannot be asked, every PID is taken as running (nothing is removed).
func processRuns(int) bool { return true }
