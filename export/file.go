package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrExist is matched (errors.Is) by the error for an output file that
// already exists when overwriting is not allowed.
var ErrExist = errors.New("already exists (use --force to overwrite)")

// atomicFile is a file written under a temporary name in the directory of
// its final path (".NAME.tmp-PID-*", hidden from readers and from globs such as
// *.parquet) and renamed to the final path by commitAll. Abort removes it.
type atomicFile struct {
	path   string
	f      *os.File
	bw     *bufio.Writer
	temps  *tempSet // the export's temporary files, this one among them until committed or removed
	force  bool
	done   bool
	size   int64
	backup string // commit: the replaced file, kept under a temporary name until every rename succeeded ("": none)
}

// errTempsRemoved is the error of an export whose temporary files were
// removed by RemoveTemps while it ran.
var errTempsRemoved = errors.New("export stopped: its temporary files were removed")

// tempSet is the temporary files of one export not yet renamed into place
// or removed. The export's goroutine adds and removes them; removeAll, for
// a process that ends before the export returns, may run on any goroutine.
// Its mutex is held while a temporary file is created and during the
// renames of commitAll, so that removeAll never meets a half-made file or
// a half-done commit.
type tempSet struct {
	mu     sync.Mutex
	names  map[string]bool
	closed bool // removeAll ran: no more temporary files
}

// removeAll removes every temporary file of the set and makes creating
// more fail.
func (s *tempSet) removeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for name := range s.names {
		_ = os.Remove(name)
		delete(s.names, name)
	}
}

// forget takes name out of the set (the caller holds s.mu).
func (s *tempSet) forget(name string) { delete(s.names, name) }

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

// createAtomic creates the temporary file for path, making its directory,
// in the set of opts.temps (set by Create).
func createAtomic(path string, opts Options) (*atomicFile, error) {
	if err := checkFree(path, opts.Force); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ts := opts.temps
	if ts == nil {
		ts = &tempSet{}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, errTempsRemoved
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
	if ts.names == nil {
		ts.names = make(map[string]bool)
	}
	ts.names[f.Name()] = true
	return &atomicFile{path: path, f: f, bw: bufio.NewWriterSize(f, fileBuffer), temps: ts, force: opts.Force}, nil
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

// commitAll renames the finished temporary files into place, all or none:
// ctx is checked before every rename, and once it has ended, or a rename
// failed, every file renamed before is taken back (the file it replaced,
// kept until then, is put back; else it is removed) and the error returned
// (wrapping ctx's when interrupted). The set's lock is held throughout.
func commitAll(ctx context.Context, ts *tempSet, files []*atomicFile) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return errTempsRemoved
	}
	for i, af := range files {
		err := ctx.Err()
		if err != nil {
			err = fmt.Errorf("export interrupted: %w", err)
		} else {
			err = af.commit()
		}
		if err != nil {
			for j := i - 1; j >= 0; j-- {
				if rerr := files[j].takeBack(); rerr != nil {
					err = errors.Join(err, rerr)
				}
			}
			return err
		}
		ts.forget(af.f.Name())
	}
	for _, af := range files {
		if af.backup != "" {
			_ = os.Remove(af.backup)
		}
	}
	return nil
}

// commit moves the finished temporary file to its final path. Without
// force an existing file is never replaced: the temporary file is linked
// to the final name, which fails if that exists. With force, the file it
// replaces is kept as af.backup (a temporary name) for takeBack.
func (a *atomicFile) commit() error {
	tmp := a.f.Name()
	if a.force {
		if err := a.keepReplaced(); err != nil {
			return err
		}
		if err := os.Rename(tmp, a.path); err != nil {
			if a.backup != "" {
				_ = a.takeBack()
			}
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

// keepReplaced gives the file at a.path, if any, a second name, a.backup
// (the temporary file's name + ".old", so that RemoveStale knows it): a
// hard link, so that a.path is never missing, or where there are none a
// rename.
func (a *atomicFile) keepReplaced() error {
	bak := a.f.Name() + ".old"
	err := os.Link(a.path, bak)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = os.Rename(a.path, bak)
	}
	switch {
	case err == nil:
		a.backup = bak
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil // nothing to replace
	}
	return fmt.Errorf("keeping %s until the export is complete: %w", a.path, err)
}

// takeBack undoes a commit (or a commit that failed after keepReplaced):
// the replaced file goes back to the final path (its backup renamed over
// the new file; when the final path still is the replaced file, a rename
// of one of its names onto the other does nothing, and the backup name is
// removed), or, when it replaced none, the new file is removed.
func (a *atomicFile) takeBack() error {
	if bak := a.backup; bak != "" {
		a.backup = ""
		if err := os.Rename(bak, a.path); err != nil {
			return fmt.Errorf("putting back the replaced %s: %w", a.path, err)
		}
		if err := os.Remove(bak); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("putting back the replaced %s: %w", a.path, err)
		}
		return nil
	}
	if err := os.Remove(a.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", a.path, err)
	}
	return nil
}

// abort removes the temporary file unless it was committed.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	_ = a.f.Close()
	a.temps.mu.Lock()
	_ = os.Remove(a.f.Name())
	a.temps.forget(a.f.Name())
	a.temps.mu.Unlock()
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
