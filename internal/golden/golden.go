// Package golden compares test output with golden files under a package's
// testdata/ directory; `go test ./PKG -update` rewrites them instead. It is
// for tests only.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is set by the -update test flag of every package that imports
// golden (registered once, when the test binary starts; read-only after).
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Update reports whether the test run rewrites golden files (-update).
func Update() bool { return *update }

// Check compares got with the file at path (relative to the package
// directory, e.g. testdata/x.golden) and fails the test with got when they
// differ; with -update it writes got to path, creating its directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file (go test -update to accept, if the change is meant); got:\n%s", path, got)
	}
}
