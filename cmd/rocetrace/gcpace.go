package main

import (
	"runtime"
	"runtime/debug"
)

// GC pacing: no garbage collection while the heap is small.
//
// The analysis commands run two goroutines on a machine of two cores (the
// file pipeline's reader-decoder and its flow table: engine.Batches), and
// a collection takes a core from one of them for a millisecond or more:
// with the collector's default pacing, a report of 1M frames collects 4
// times while its heap grows from 4 to 12 MB, and the pipeline waits. So
// paceGC turns the collector off until the runtime holds gcFirstAt bytes
// (a memory limit: the collector then runs as it must to stay under it),
// and a cleanup restores the default pacing (GOGC=100, no limit) once the
// first collection has run. A report of 1M frames then collects never, one
// of 10M frames twice.
//
// It replaces a heap floor (a 32 MB allocation never touched, which made
// the collector pace itself as if the heap were that much bigger): as
// fast, without the collection that allocation set off at the start, ~1 ms
// of every run (report --json of an empty capture 5.6 -> 4.6 ms, 41 rounds
// alternating), and with a smaller peak at 10M frames (report --json 96 ->
// 86 MB).
//
// A GOGC or GOMEMLIMIT in the environment is the user's choice: paceGC then
// leaves the pacing alone. The long-running commands (the TUI, live
// capture) and those that read no capture keep the default pacing.

// gcFirstAt is the memory limit until the first collection.
const gcFirstAt = 64 << 20

// pacedCommand reports whether the command of args runs the file pipeline
// and ends (report, packets, export and the bare file argument).
func pacedCommand(args []string) bool {
	if len(args) >= 2 {
		switch args[1] {
		case "capture", "tui", "help", "version", "--version", "-h", "--help":
			return false
		}
	}
	return true
}

// paceGC sets the pacing above for the command of args, unless getenv
// names a GOGC or GOMEMLIMIT; it reports whether it did.
func paceGC(args []string, getenv func(string) string) bool {
	if !pacedCommand(args) || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(gcFirstAt)
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}, struct{}{})
	return true
}

// gcSentinel is the object whose cleanup ends paceGC's pacing: nothing
// refers to it, so the first collection frees it. (16 bytes: smaller
// objects may share a block with others that outlive them.)
type gcSentinel struct{ _ [16]byte }
