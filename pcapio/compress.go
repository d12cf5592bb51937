package pcapio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Standard input and compressed captures.
//
// The path "-" names standard input (its Reader's name is "-" too). When
// standard input is a pipe or FIFO, it is opened again through /dev/stdin:
// that gives a descriptor of its own, which the runtime polls, so Interrupt
// can wake a blocked read (on systems where that fails, os.Stdin is read
// directly). Standard input is never memory-mapped.
//
// Compression is told by the first bytes, not by the file's name (as
// Wireshark does): gzip (1F 8B), zstd (28 B5 2F FD, or a skippable frame
// 5? 2A 4D 18). The bytes are read once: a regular file is sniffed with a
// positioned read (its offset does not move), a stream by reading its first
// four bytes, which are then handed to the decompressor (or the capture
// reader) ahead of the rest, so a pipe is never read twice nor reopened. A
// compressed file is read through its decompressor and a Reader buffer,
// never mapped. Every offset a Reader gives (Record.Offset, DamageError,
// Offset) is then one of the decompressed stream. Damage in the compressed
// stream (a truncated .gz, a corrupt zstd block, a bad checksum) is a
// *DamageError at the offset of the first record not read whole, its reason
// naming the decompressor's complaint; every whole record before it has been
// delivered. A failing read of the file underneath stays a read error.

// StdinName is the path that names standard input.
const StdinName = "-"

// compression kinds by magic.
const (
	compressNone = iota
	compressGzip
	compressZstd
)

// sniffCompression returns the compression of a stream starting with b.
func sniffCompression(b []byte) int {
	switch {
	case len(b) >= 2 && b[0] == 0x1F && b[1] == 0x8B:
		return compressGzip
	case len(b) >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD:
		return compressZstd
	case len(b) >= 4 && b[0]&0xF0 == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18:
		return compressZstd // skippable frame first
	}
	return compressNone
}

// openInput opens path for reading, "-" being standard input; own says
// whether the caller closes the file.
func openInput(path string) (f *os.File, own bool, err error) {
	if path != StdinName {
		f, err = os.Open(path)
		return f, err == nil, err
	}
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		if f, err := os.Open("/dev/stdin"); err == nil {
			return f, true, nil
		}
	}
	return os.Stdin, false, nil
}

// openAny opens the capture at path: a plain regular file of at least
// mapMin bytes (mapMin > 0) through mapFiled (OpenFileMapped's rules), a
// compressed file or stream through its decompressor, anything else through
// a buffer.
func openAny(path string, file int, mapMin int64) (*Reader, error) {
	f, own, err := openInput(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || path == StdinName {
		return newStreamReader(f, own, path, file)
	}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	if kind := sniffCompression(magic[:n]); kind != compressNone {
		return newDecompressReader(f, f, own, kind, path, file)
	}
	if mapMin <= 0 {
		return newFileReader(f, path, file)
	}
	return openMappedFile(f, st, path, file, mapMin)
}

// newStreamReader reads the capture from f, a stream read once: its first
// bytes decide whether it is compressed.
func newStreamReader(f *os.File, own bool, path string, file int) (*Reader, error) {
	var magic [4]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		if own {
			f.Close()
		}
		return nil, fmt.Errorf("%s: read error at byte offset 0: %w", path, err)
	}
	fr, wait := newWaitReader(f)
	src := io.MultiReader(bytes.NewReader(magic[:n]), fr)
	if kind := sniffCompression(magic[:n]); kind != compressNone {
		r, err := newDecompressReader(f, src, own, kind, path, file)
		if r != nil {
			r.wait = wait
		}
		return r, err
	}
	r, err := newReaderSize(src, path, file, DefaultBufferSize)
	if err != nil {
		if own {
			f.Close()
		}
		return nil, err
	}
	r.osFile, r.wait = f, wait
	if own {
		r.closer = f
	}
	return r, nil
}

// newDecompressReader reads the capture compressed (kind) in src, which
// reads f (nil: src is no file of ours; own is then false).
func newDecompressReader(f *os.File, src io.Reader, own bool, kind int, path string, file int) (*Reader, error) {
	closeF := func() {
		if own && f != nil {
			f.Close()
		}
	}
	under := &trackedReader{r: src}
	dec, err := newDecompressor(kind, under)
	if err != nil {
		closeF()
		if under.err != nil {
			return nil, fmt.Errorf("%s: read error at byte offset 0: %w", path, under.err)
		}
		return nil, &DamageError{File: path, Offset: 0, Reason: err.Error()}
	}
	c := &decompressReader{dec: dec, under: under, f: f, own: own}
	r, err := newReaderSize(c, path, file, DefaultBufferSize)
	if err != nil {
		c.Close()
		return nil, err
	}
	r.osFile, r.closer = f, c
	r.compressed = true
	return r, nil
}

// Compressed reports whether the Reader reads its file through a
// decompressor: its offsets are then those of the decompressed stream.
func (r *Reader) Compressed() bool { return r.compressed }

// newCompressedReader reads the gzip or zstd capture in src (the fuzz
// target's entry; files go through openAny).
func newCompressedReader(src io.Reader, name string, file int) (*Reader, error) {
	var magic [4]byte
	n, _ := io.ReadFull(src, magic[:])
	full := io.MultiReader(bytes.NewReader(magic[:n]), src)
	kind := sniffCompression(magic[:n])
	if kind == compressNone {
		return NewReader(full, name, file)
	}
	return newDecompressReader(nil, full, false, kind, name, file)
}

// newDecompressor returns the decompressor of kind over src.
func newDecompressor(kind int, src io.Reader) (io.Reader, error) {
	if kind == compressGzip {
		z, err := gzip.NewReader(src)
		if err != nil {
			return nil, openError("gzip", err)
		}
		return z, nil
	}
	// One decoder and no goroutines of its own: the pipeline already keeps
	// both cores busy, and the stream is read by one goroutine.
	z, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false))
	if err != nil {
		return nil, openError("zstd", err)
	}
	return z, nil
}

// openError is the decompressor's complaint about the start of a stream,
// named once by its format ("gzip: invalid header", not the library's
// "gzip: " twice), a stream too short for its header saying so.
func openError(format string, err error) error {
	msg := strings.TrimPrefix(err.Error(), format+": ")
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "stream cut short in its header (" + msg + ")"
	}
	return fmt.Errorf("%s: %s", format, msg)
}

// trackedReader remembers the error of the reader beneath a decompressor,
// so that a failing read of the file stays a read error and only the
// decompressor's own complaints become damage.
type trackedReader struct {
	r   io.Reader
	err error // the first error other than io.EOF
}

func (t *trackedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

// decompressReader is a decompressed stream; its errors other than those
// of the file beneath are *decompressError.
type decompressReader struct {
	dec   io.Reader
	under *trackedReader
	f     *os.File
	own   bool
}

func (d *decompressReader) Read(p []byte) (int, error) {
	n, err := d.dec.Read(p)
	if err != nil && err != io.EOF {
		if d.under.err != nil {
			return n, d.under.err
		}
		return n, &decompressError{err}
	}
	return n, err
}

// Close releases the decompressor and closes the file when it is owned.
func (d *decompressReader) Close() error {
	switch z := d.dec.(type) {
	case *gzip.Reader:
		_ = z.Close()
	case *zstd.Decoder:
		z.Close()
	}
	if d.own && d.f != nil {
		return d.f.Close()
	}
	return nil
}

// decompressError is damage in a compressed stream.
type decompressError struct{ err error }

func (e *decompressError) Error() string {
	msg := e.err.Error()
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		msg = "compressed stream cut short (" + msg + ")"
	}
	return "decompressing: " + msg
}

func (e *decompressError) Unwrap() error { return e.err }
