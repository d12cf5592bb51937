//go:build !linux

package pcapio

import (
	"errors"
	"os"
	"unsafe"
)

// mapFile is not supported here: OpenFileMapped falls back to reading.
func mapFile(f *os.File, size int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile(data []byte) error { return nil }

func releasePages(b []byte) {}

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
