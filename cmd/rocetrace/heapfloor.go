package main

// The heap floor: garbage collections while the heap is small.
//
// The analysis commands run two goroutines on a machine of two cores (the
// file pipeline's reader-decoder and its flow table: engine.Batches), and
// a collection takes a core from one of them for a millisecond or more:
// with the collector's default pacing, a report of 1M frames collects 4
// times while its heap grows from 4 to 12 MB, and the pipeline waits. A
// reservation of heapFloor bytes that is never touched counts as live heap
// for the collector's pacing (the heap may grow to twice the live heap
// before the next collection) but costs no memory: its pages are never
// written, so they never become resident. Measured on bulk-1m-128
// (report --json, alternating, 21 rounds): 2 collections instead of 4, as
// fast as GOGC=off, 4% less wall time and 5% less CPU than without it,
// peak RSS 35 -> 40 MB; at 10M frames report --json's peak RSS is 91 MB
// (70 without) and export's 121 MB (104), under issue 20's 150 MB.
// (64 MB measured no faster than 32.)

// heapFloor is the size of the reservation: the heap grows to about twice
// this before the first collection.
const heapFloor = 32 << 20

// reserveHeap returns the heap floor's reservation for the command of
// args (nil for commands that do not run the file pipeline), to be kept
// alive (runtime.KeepAlive) until the command returns.
func reserveHeap(args []string) []byte {
	if len(args) >= 2 {
		switch args[1] {
		case "capture", "tui", "help", "version", "--version", "-h", "--help":
			return nil
		}
	}
	return make([]byte, heapFloor)
}
