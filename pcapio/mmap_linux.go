//go:build linux

package pcapio

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only and asks the kernel for
// aggressive read-ahead.
func mapFile(f *os.File, size int) ([]byte, error) {
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, nil
}

// unmapFile removes a mapping made by mapFile.
func unmapFile(data []byte) error { return unix.Munmap(data) }

// releasePages drops the pages of b (page-aligned) from the resident set;
// they are mapped again, from the file, if touched.
func releasePages(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}

// uintptrOf returns the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
