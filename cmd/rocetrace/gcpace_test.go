package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestPacedCommand: the commands that run the file pipeline and end get
// paceGC's pacing; the long-running ones (the TUI, live capture), whose
// heap it would let grow to 64 MB before their first collection, and the
// ones that read no capture, do not.
func TestPacedCommand(t *testing.T) {
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
		if got := pacedCommand(tc.args); got != tc.want {
			t.Errorf("pacedCommand(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestPaceGC: the collector is off, with a 64 MB limit, until the first
// collection, then back to the pacing it had; a GOGC or GOMEMLIMIT in the
// environment leaves it alone. (It changes this test process's collector,
// and puts it back.)
func TestPaceGC(t *testing.T) {
	gcPercent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	p0, l0 := gcPercent(), limit()
	defer func() { debug.SetGCPercent(p0); debug.SetMemoryLimit(l0) }()
	report := []string{"rocetrace", "report", "x.pcap"}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		if paceGC(report, func(k string) string { return map[string]string{env: "200"}[k] }) {
			t.Errorf("paced with %s set", env)
		}
	}
	if paceGC([]string{"rocetrace", "tui", "x.pcap"}, func(string) string { return "" }) {
		t.Errorf("paced the TUI")
	}
	if gcPercent() != p0 || limit() != l0 {
		t.Fatalf("pacing changed: GOGC %d, limit %d", gcPercent(), limit())
	}
	if !paceGC(report, func(string) string { return "" }) {
		t.Fatalf("report not paced")
	}
	if p, l := gcPercent(), limit(); p != -1 || l != gcFirstAt {
		t.Fatalf("before the first collection: GOGC %d, limit %d; want off, %d", p, l, gcFirstAt)
	}
	runtime.GC()
	for deadline := time.Now().Add(5 * time.Second); gcPercent() != p0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if p, l := gcPercent(), limit(); p != p0 || l != l0 {
		t.Errorf("after it: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	if l0 != math.MaxInt64 {
		t.Logf("the test process had a memory limit: %d", l0)
	}
}
