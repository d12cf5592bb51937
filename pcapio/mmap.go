package pcapio

import (
	"fmt"
	"os"
	"runtime/debug"
)

// Memory-mapped reading. OpenFileMapped maps a regular capture file into
// memory instead of reading it through a buffer: records are then slices of
// the mapping, the kernel copies nothing, and a record's Data stays readable
// until the Reader is closed (Mapped reports it), so a pipeline may keep
// records of earlier calls to Next without copying them.
//
// Memory. Pages of the mapping that the process has touched count in its
// resident set. Every mapReleaseStep bytes read, the Reader tells the kernel
// (madvise MADV_DONTNEED) that the pages more than mapReleaseLag bytes
// behind the read position are no longer needed: they leave the resident
// set (they stay in the page cache). That is safe even if a consumer still
// holds a record there: the mapping is of a file, so touching a released
// page maps it again with the same contents; it only costs a page fault.
// The resident part of the mapping therefore stays under about
// mapReleaseLag+mapReleaseStep bytes whatever the capture's length.
//
// Which files. Every regular file of at least mapMinSize bytes. A mirror
// port's capture cut at a snaplen of 128 bytes reads ~15% faster mapped (no
// copy, and a page fault maps many records at once). Whole frames were read
// through a buffer until issue 20's second session: the kernel's copy
// streams the data into the cache, while first touches of a mapping wait on
// memory. Measured since (bulk-1m-full, 1 KiB frames, report --json, 15
// rounds alternating), mapped reading takes 13% less wall time and 3% less
// CPU: the pipeline leaves the ICRC checks of big frames to its second
// goroutine, which reads them from the mapping, and the reading goroutine,
// the slower of the two on whole frames, no longer copies every byte twice
// (the kernel's copy, then the copy for the ICRC check).
//
// Faults. Should the file shrink while it is mapped (another program
// truncating it), reading the pages past its new end raises SIGBUS. Code
// that reads a mapped Reader's records runs under GuardFaults (or, on a
// goroutine other than the one calling Next, GuardFaultsAt), which turns
// such a fault into a *DamageError naming the file and the offset of the
// first record not fully read. (The fault comes at a page boundary: bytes
// of the last page past the new end read as zeros.)

const (
	// mapMinSize is the smallest file OpenFileMapped maps; smaller files are
	// read through a buffer (mapping costs more than it saves there).
	mapMinSize = 4 << 20
	// mapReleaseLag is how far behind the read position pages are kept.
	mapReleaseLag = 8 << 20
	// mapReleaseStep is how far the read position moves between releases.
	mapReleaseStep = 4 << 20
)

// OpenFileMapped opens the capture file at path like OpenFile, but maps it
// into memory when it is a regular file of at least a few MiB and the
// platform supports it (see Mapped); otherwise it reads it as OpenFile does.
// The file's length is taken when it is opened: data appended later is not
// read. Code that reads the records of a mapped Reader must run under
// GuardFaults.
func OpenFileMapped(path string, file int) (*Reader, error) {
	return openFileMapped(path, file, mapMinSize)
}

// openFileMapped maps files of minSize bytes or more. The file is opened once: a FIFO, whose writer
// may be gone by a second open, is never opened twice; mapped or buffered
// reading is decided from the descriptor (fstat, the magic read at offset 0
// (compressed files are never mapped: compress.go), then the mapped header).
func openFileMapped(path string, file int, minSize int64) (*Reader, error) {
	return openAny(path, file, max(minSize, 1))
}

// openMappedFile maps the open regular file f (st: its fstat) when it is of
// minSize bytes or more, and reads it through a buffer otherwise. It closes f on error and on Close.
func openMappedFile(f *os.File, st os.FileInfo, path string, file int, minSize int64) (*Reader, error) {
	if st.Size() < max(minSize, 1) || int64(int(st.Size())) != st.Size() {
		return newFileReader(f, path, file)
	}
	data, err := mapFile(f, int(st.Size()))
	if err != nil {
		return newFileReader(f, path, file)
	}
	r, err := newMappedReader(data, path, file)
	if err != nil {
		_ = unmapFile(data)
		f.Close()
		return nil, err
	}
	f.Close() // the mapping keeps the file's pages
	return r, nil
}

// newMappedReader returns a Reader over the mapped file data.
func newMappedReader(data []byte, name string, file int) (*Reader, error) {
	r := &Reader{name: name, file: file, buf: data, w: len(data), eof: true, mapped: true}
	if len(data) < 4 {
		return nil, &notCaptureError{name, fmt.Sprintf("%v (file too short: %d bytes)", ErrNotCapture, len(data))}
	}
	if err := r.initFormat(); err != nil {
		return nil, err
	}
	return r, nil
}

// Mapped reports whether the Reader reads a memory-mapped file. Then every
// Record's Data stays valid until Close, not only until the next call to
// Next, and reads of it must run under GuardFaults.
func (r *Reader) Mapped() bool { return r.mapped }

// releaseBehind lets the kernel drop the mapped pages more than
// mapReleaseLag bytes behind the read position from the resident set.
// (Populating the page tables ahead of the reader with MADV_POPULATE_READ,
// in line or on a goroutine of its own, measured no better than the page
// faults it saves, which map 16 pages at a time.)
func (r *Reader) releaseBehind() {
	end := r.r - mapReleaseLag
	end -= end % os.Getpagesize()
	if end > r.released {
		releasePages(r.buf[r.released:end])
		r.released = end
	}
}

// contains reports whether the address addr lies inside r's mapping, and at
// which offset.
func (r *Reader) contains(addr uintptr) (int64, bool) {
	if !r.mapped || len(r.buf) == 0 {
		return 0, false
	}
	base := uintptrOf(r.buf)
	if addr < base || addr >= base+uintptr(len(r.buf)) {
		return 0, false
	}
	return int64(addr - base), true
}

// ReasonShrank is the Reason of the *DamageError GuardFaults returns for a
// fault on a mapped file that shrank.
const ReasonShrank = "the file shrank while it was read (changed by another program?)"

// GuardFaults calls fn and returns its error. A memory fault while fn runs
// on this goroutine that hits the mapping of one of readers (the file was
// cut short while it was mapped) ends fn and is returned as a *DamageError
// naming that file and the offset of the first record not fully read: the
// record Next was reading, or else the one it returned last (fn, on the
// goroutine that calls Next, reads the record it was given). Any other
// panic goes on. Readers that are not mapped are ignored, so GuardFaults may
// wrap any reading.
func GuardFaults(fn func() error, readers ...*Reader) error {
	return guardFaults(fn, readers, (*Reader).faultRecord)
}

// GuardFaultsAt is GuardFaults for a goroutine that reads the records of
// mapped readers while another goroutine calls their Next (a pipeline's
// consumer, which keeps records): at reports the file index and offset of
// the record fn is reading (ok false: none), which the damage then names.
// It reads nothing of the readers but their mappings.
func GuardFaultsAt(fn func() error, at func() (file int, offset int64, ok bool), readers ...*Reader) error {
	return guardFaults(fn, readers, func(r *Reader, off int64) int64 {
		if file, rec, ok := at(); ok && file == r.file && rec <= off {
			return rec
		}
		return pageStart(off)
	})
}

// guardFaults is GuardFaults; record gives the offset of the record a
// fault at off of r's mapping cut short.
func guardFaults(fn func() error, readers []*Reader, record func(r *Reader, off int64) int64) (err error) {
	mapped := false
	for _, r := range readers {
		mapped = mapped || r.mapped
	}
	if !mapped {
		return fn()
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		v := recover()
		if v == nil {
			return
		}
		if f, ok := v.(interface{ Addr() uintptr }); ok {
			for _, r := range readers {
				if off, ok := r.contains(f.Addr()); ok {
					err = &DamageError{File: r.name, Offset: record(r, off), Reason: ReasonShrank}
					return
				}
			}
		}
		panic(v)
	}()
	return fn()
}

// faultRecord returns the offset of the record that a fault at off cut
// short, on the goroutine that calls Next: the record Next was reading
// (at the read position) when off lies at or past it, else the record Next
// returned last.
func (r *Reader) faultRecord(off int64) int64 {
	if pos := r.offset(); off >= pos {
		return pos
	}
	if off >= r.last {
		return r.last
	}
	return pageStart(off) // not a record of this goroutine's: only the page is known
}

// pageStart returns the start of the page holding offset off.
func pageStart(off int64) int64 { return off - off%int64(os.Getpagesize()) }
