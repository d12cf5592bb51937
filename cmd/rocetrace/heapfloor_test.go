package main

import "testing"

// TestReserveHeap: the commands that run the file pipeline get the heap
// floor's reservation; the long-running ones (the TUI, live capture), whose
// heap the reservation would let grow by as much again, and the ones that
// read no capture, do not.
func TestReserveHeap(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"rocetrace", "x.pcap"}, true},
		{[]string{"rocetrace", "report", "--json", "x.pcap"}, true},
		{[]string{"rocetrace", "packets", "x.pcap"}, true},
		{[]string{"rocetrace", "export", "-o", "d", "x.pcap"}, true},
		{[]string{"rocetrace"}, true},
		{[]string{"rocetrace", "tui", "x.pcap"}, false},
		{[]string{"rocetrace", "capture", "-i", "eth0"}, false},
		{[]string{"rocetrace", "help"}, false},
		{[]string{"rocetrace", "version"}, false},
		{[]string{"rocetrace", "--version"}, false},
	} {
		got := reserveHeap(tc.args)
		if (got != nil) != tc.want || (got != nil && len(got) != heapFloor) {
			t.Errorf("reserveHeap(%q): %d bytes, want reservation %v", tc.args, len(got), tc.want)
		}
	}
}
