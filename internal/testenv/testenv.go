// Package testenv finds what tests may use from outside the repository:
// the shared real captures and the tshark binary. Tests that need them skip
// cleanly when they are absent, as on a user's fresh clone.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// RepoRoot returns the repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedPcapsDir returns ../shared/pcaps beside the repository, or skips the
// test when it is absent.
func SharedPcapsDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "..", "shared", "pcaps")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("shared captures not found at %s (absent on a fresh clone)", dir)
	}
	return dir
}

// SharedPcaps returns the paths of every .pcap/.pcapng in ../shared/pcaps,
// sorted, or skips the test when the directory is absent.
func SharedPcaps(t testing.TB) []string {
	t.Helper()
	dir := SharedPcapsDir(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".pcap") || strings.HasSuffix(n, ".pcapng") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Skipf("no captures in %s", dir)
	}
	return out
}

// TShark returns the path of tshark, or skips the test when it is not
// installed.
func TShark(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed (apt-get install -y tshark)")
	}
	return p
}

// LiveHeap returns the bytes of live heap after two collections, with keep
// still reachable: what memory tests subtract to measure what a structure
// holds.
func LiveHeap(keep ...any) uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	return ms.HeapAlloc
}
