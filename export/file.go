package export

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrExist is matched (errors.Is) by the error for an output file that
// already exists when overwriting is not allowed.
var ErrExist = errors.New("already exists (use --force to overwrite)")

// atomicFile is a file written under a temporary name in the directory of
// its final path (".NAME.tmp-PID-*", hidden from readers and from globs such as
// *.parquet) and renamed to the final path by Commit. Abort removes it.
type atomicFile struct {
	path  string
	f     *os.File
	bw    *bufio.Writer
	force bool
	done  bool
	size  int64
}

// checkFree returns an error wrapping ErrExist when path exists and force
// is not set.
func checkFree(path string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s %w", path, ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// createAtomic creates the temporary file for path, making its directory.
func createAtomic(path string, force bool) (*atomicFile, error) {
	if err := checkFree(path, force); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &atomicFile{path: path, f: f, bw: bufio.NewWriterSize(f, fileBuffer), force: force}, nil
}

func (a *atomicFile) Write(b []byte) (int, error) {
	if a.bw == nil {
		return 0, os.ErrClosed
	}
	n, err := a.bw.Write(b)
	a.size += int64(n)
	return n, err
}

// fileBuffer is the write buffer of a temporary file. The writers hand it
// whole pages (tens of KiB), so a larger one saves few system calls, while
// every table's buffer is live at once at the end of an export.
const fileBuffer = 256 << 10

// finish flushes, syncs and closes the temporary file, and drops its
// buffer.
func (a *atomicFile) finish() error {
	if a.bw == nil {
		return os.ErrClosed
	}
	err := a.bw.Flush()
	a.bw = nil
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// commit moves the finished temporary file to its final path. Without
// force an existing file is never replaced: the temporary file is linked
// to the final name, which fails if that exists.
func (a *atomicFile) commit() error {
	tmp := a.f.Name()
	if a.force {
		if err := os.Rename(tmp, a.path); err != nil {
			return err
		}
		a.done = true
		return nil
	}
	err := os.Link(tmp, a.path)
	switch {
	case err == nil:
		a.done = true
		_ = os.Remove(tmp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s %w", a.path, ErrExist)
	}
	// No hard links here: check, then rename.
	if err := checkFree(a.path, false); err != nil {
		return err
	}
	if err := os.Rename(tmp, a.path); err != nil {
		return err
	}
	a.done = true
	return nil
}

// abort removes the temporary file unless it was committed.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	_ = a.f.Close()
	_ = os.Remove(a.f.Name())
	a.done = true
}

// tempPrefix returns the start of the temporary names of path's file:
// ".NAME.tmp-".
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// RemoveStale removes the temporary files of the paths left by exports that
// were killed before they could remove them (SIGKILL, a crash): those whose
// name carries the PID of a process that no longer runs, and those without
// a PID (named by earlier versions) last modified before since (the start of
// this export). The temporary files of an export still running are kept.
// It returns the files removed.
func RemoveStale(paths Paths, since time.Time) ([]string, error) {
	var removed []string
	for _, p := range paths.List() {
		prefix := tempPrefix(p)
		ents, err := os.ReadDir(filepath.Dir(p))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return removed, fmt.Errorf("looking for stale temporary files: %w", err)
		}
		for _, ent := range ents {
			rest, ok := strings.CutPrefix(ent.Name(), prefix)
			if !ok || !ent.Type().IsRegular() || !stale(rest, ent, since) {
				continue
			}
			name := filepath.Join(filepath.Dir(p), ent.Name())
			if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, fmt.Errorf("removing stale temporary file: %w", err)
			}
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// stale reports whether the temporary file ent, whose name goes on with
// rest after its prefix, belongs to no running export.
func stale(rest string, ent fs.DirEntry, since time.Time) bool {
	if pid, _, ok := strings.Cut(rest, "-"); ok {
		if n, err := strconv.Atoi(pid); err == nil && n > 0 {
			return n != os.Getpid() && !processRuns(n)
		}
	}
	info, err := ent.Info()
	return err == nil && info.ModTime().Before(since)
}
