package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

// Check passes on equal bytes and fails on different or missing files.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		got  string
		fail bool
	}{
		{path, "a\n", false},
		{path, "b\n", true},
		{filepath.Join(dir, "missing.golden"), "a\n", true},
	} {
		ft := &fakeT{TB: t}
		Check(ft, c.path, []byte(c.got))
		if ft.failed != c.fail {
			t.Errorf("Check(%s, %q): failed %v, want %v", c.path, c.got, ft.failed, c.fail)
		}
	}
}
