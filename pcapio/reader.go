package pcapio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// This file holds the capture readers' common part: the Reader type, its
// buffer and the errors it reports. The pcap and pcapng formats are parsed in
// pcap.go and pcapng.go, and several readers are merged in merge.go.
//
// Buffering. A Reader reads its input through one buffer (DefaultBufferSize,
// 256 KiB: small enough that the kernel's copy into it and the decoding of
// its records stay in the core's L2 cache; on whole 1 KiB frames it took
// ~10% less CPU than 1 MiB, BENCHMARKS.md). A record or block that fits in
// the buffer is handed out as a slice of it, so reading allocates nothing
// per record in steady state. A larger record grows the buffer, doubling it
// at most up to the record's size, and only as far as the input really holds
// data: a length field that lies about a huge record costs at most twice the
// bytes actually present, never the claimed size. The limits that make a
// length field damage are MaxPcapRecordLen, PcapCapLenLimit and MaxBlockLen.

// DefaultBufferSize is the size of a Reader's read buffer.
const DefaultBufferSize = 256 << 10

// minBufferSize is the smallest buffer a Reader uses (tests use small
// buffers to exercise the refill and grow paths).
const minBufferSize = 32

// LinkType is a pcap LINKTYPE_ value.
type LinkType uint16

// Link types rocetrace knows by name. Any other value is carried through as
// is: a Reader never rejects a capture because of its link type.
const (
	LinkTypeEthernet  LinkType = 1   // LINKTYPE_ETHERNET (IEEE 802.3)
	LinkTypeLinuxSLL  LinkType = 113 // LINKTYPE_LINUX_SLL ("cooked" capture, v1)
	LinkTypeLinuxSLL2 LinkType = 276 // LINKTYPE_LINUX_SLL2 ("cooked" capture, v2)
	LinkTypeERF       LinkType = 197 // LINKTYPE_ERF (Endace ERF records, e.g. native InfiniBand)
	LinkTypeRaw       LinkType = 101 // LINKTYPE_RAW: an IPv4 or IPv6 packet, no link header
	LinkTypeIPv4      LinkType = 228 // LINKTYPE_IPV4: an IPv4 packet
	LinkTypeIPv6      LinkType = 229 // LINKTYPE_IPV6: an IPv6 packet
	// LinkTypeRawDLT12 and LinkTypeRawDLT14 are DLT_RAW as some systems'
	// libpcap wrote it in pcap files (12 on most BSDs and Linux of old,
	// 14 on OpenBSD and BSD/OS): Wireshark reads both as raw IP, and so
	// does rocetrace.
	LinkTypeRawDLT12 LinkType = 12
	LinkTypeRawDLT14 LinkType = 14
)

// String returns the link type's name ("Ethernet", "Linux SLL", "Linux SLL2",
// "ERF", "Raw IP", "IPv4", "IPv6") or "LINKTYPE_n" for any other value.
func (l LinkType) String() string {
	switch l {
	case LinkTypeEthernet:
		return "Ethernet"
	case LinkTypeLinuxSLL:
		return "Linux SLL"
	case LinkTypeLinuxSLL2:
		return "Linux SLL2"
	case LinkTypeERF:
		return "ERF"
	case LinkTypeRaw, LinkTypeRawDLT12, LinkTypeRawDLT14:
		return "Raw IP"
	case LinkTypeIPv4:
		return "IPv4"
	case LinkTypeIPv6:
		return "IPv6"
	}
	return "LINKTYPE_" + strconv.Itoa(int(l))
}

// Record is one captured record. Data is only valid until the next call to
// Next on the same reader (it may alias an internal buffer); copy it to keep
// it. Data never extends past CapLen (its capacity is limited too, so an
// append cannot write into the reader's buffer).
type Record struct {
	// Data holds the captured bytes (len(Data) == CapLen).
	Data []byte
	// TsNs is the capture time in nanoseconds since the Unix epoch, converted
	// exactly from the file's resolution (see the pcap and pcapng notes on
	// Reader). A pcapng Simple Packet Block has no timestamp: it gets the
	// timestamp of the previous packet record of the same file (0 when it is
	// the first), so that it stays in place when files are merged.
	TsNs int64
	// CapLen is the number of bytes captured (len(Data)).
	CapLen int
	// Len is the original (wire) length. When a file claims a wire length
	// smaller than the captured length (some writers do), Len is raised to
	// CapLen: such a record is whole, not truncated.
	Len int
	// LinkType is the link type of the record's interface.
	LinkType LinkType
	// File is the index of the file in the input list (the file argument of
	// NewReader or OpenFile).
	File int
	// Frame is the 1-based record number within its file. Only packet records
	// count (pcap records; pcapng Enhanced, Simple and obsolete Packet Blocks).
	Frame uint64
	// Offset is the byte offset in the file where the record starts: its pcap
	// record header or its pcapng block.
	Offset int64
}

// DamageError says where a capture stops being readable. Every whole record
// before Offset has been delivered; nothing at or after it is.
type DamageError struct {
	File   string // file name as given to NewReader or OpenFile
	Offset int64  // byte offset where the damaged record or block starts
	Reason string // what is wrong, e.g. "record cut short (need 60 bytes, 12 left)"
}

// Error returns e.g. "capture.pcap: damaged record at byte offset 1234:
// record cut short (need 60 bytes, 12 left)".
func (e *DamageError) Error() string {
	return e.File + ": damaged record at byte offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Reason
}

// ErrNotCapture is matched (with errors.Is) by the error NewReader and
// OpenFile return for input that is not a pcap or pcapng capture at all: an
// empty file, a file shorter than a magic number, or an unknown magic number.
var ErrNotCapture = errors.New("not a pcap or pcapng capture")

// notCaptureError is the error for input that is not a capture.
type notCaptureError struct {
	file, msg string
}

func (e *notCaptureError) Error() string        { return e.file + ": " + e.msg }
func (e *notCaptureError) Is(target error) bool { return target == ErrNotCapture }

// errClosed is returned by Next after Close.
var errClosed = errors.New("reader is closed")

// Capture file formats.
const (
	formatPcap   = 1
	formatPcapng = 2
)

// Reader reads one capture file (pcap or pcapng, detected by magic).
//
// pcap: magic 0xA1B2C3D4 (microsecond timestamps) or 0xA1B23C4D (nanosecond
// timestamps), in either byte order; 24-byte file header; the link type is
// the low 16 bits of the header's link-type field (the upper bits carry FCS
// information and are ignored). Timestamps are sec*1e9 + usec*1000 or
// sec*1e9 + nsec, seconds read as unsigned 32-bit. A record whose captured
// length exceeds PcapCapLenLimit(snaplen) is damage.
//
// pcapng: every Section Header Block (in either byte order; a later section
// may switch the byte order) starts a new set of interfaces. Interface
// Description Blocks give each interface its link type, if_tsresol (option
// 9: 10^-n, or 2^-n when the high bit is set; default 10^-6) and if_tsoffset
// (option 14, seconds added to every timestamp). Enhanced Packet Blocks,
// Simple Packet Blocks (interface 0; captured length = min(original length,
// bytes in the block, interface 0's snaplen when not 0); timestamp: see
// Record.TsNs) and obsolete Packet Blocks (type 2) are records; every other
// block (name resolution, statistics, decryption secrets, custom, unknown)
// is checked and skipped. Timestamps are converted to nanoseconds with
// integer arithmetic only: exactly for 10^-n with n <= 9, truncated for finer
// decimal resolutions and for 2^-n (computed with a 128-bit product).
//
// Damage (*DamageError from Next): a record header, record or block cut
// short by the end of the file; a pcap captured length over the limit; a
// pcapng block total length under 12, not a multiple of 4 or over
// MaxBlockLen; a trailing block length that differs from the leading one; a
// block too short for its fixed fields; a packet block naming an interface
// the section has not defined, or whose captured length overruns the block;
// interface options that overrun their block; a section header with an
// unknown byte-order magic or major version. Garbage after the last record
// shows up as one of these at the garbage's offset.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	src    io.Reader
	closer io.Closer
	osFile *os.File // the file OpenFile opened (never reset: see Interrupt)
	name   string
	file   int

	buf  []byte
	r, w int   // unread data is buf[r:w]
	base int64 // file offset of buf[0]
	eof  bool  // src returned io.EOF
	// mapped: buf is the whole file, memory-mapped (mmap.go); released is
	// the length of its prefix given back to the kernel; last is the offset
	// of the record Next returned last (GuardFaults names it).
	mapped   bool
	released int
	last     int64
	rerr     error // src returned this error (sticky)
	err      error // sticky error returned by Next (io.EOF included)

	format int
	be     bool // current byte order is big-endian
	frame  uint64

	linkTypes []LinkType

	// pcap
	pcapNano    bool
	pcapLink    LinkType
	pcapCapMax  uint32
	pcapSnaplen uint32

	// pcapng
	ifaces []ngIface
	lastTs int64

	// compressed: read through a decompressor (compress.go), appended.
	compressed bool
	// wait: the pipe, FIFO or socket beneath (wait.go), nil for files.
	wait *waitReader
}

// NewReader returns a Reader for the capture in r. name is used in errors;
// file is copied into every Record's File. It reads the file header (and,
// for pcapng, the blocks before the first packet) and returns an error that
// names the file when r does not hold a capture (errors.Is(err,
// ErrNotCapture)), when the pcap file header is cut short (*DamageError at
// offset 0), or when reading fails. Damage found in the leading pcapng blocks
// is reported by the first call to Next. The Reader does not close r.
func NewReader(r io.Reader, name string, file int) (*Reader, error) {
	return newReaderSize(r, name, file, DefaultBufferSize)
}

// newReaderSize is NewReader with a given initial buffer size.
func newReaderSize(src io.Reader, name string, file, size int) (*Reader, error) {
	if size < minBufferSize {
		size = minBufferSize
	}
	r := &Reader{src: src, name: name, file: file, buf: make([]byte, size)}
	if !r.fill(4) {
		if r.rerr != nil {
			return nil, r.readError(0)
		}
		if r.w == 0 {
			return nil, &notCaptureError{name, "empty file"}
		}
		return nil, &notCaptureError{name, fmt.Sprintf("%v (file too short: %d bytes)", ErrNotCapture, r.w)}
	}
	if err := r.initFormat(); err != nil {
		return nil, err
	}
	return r, nil
}

// initFormat reads the file header (pcap) or the blocks before the first
// packet (pcapng), by the magic number at the read position (4 bytes are
// there).
func (r *Reader) initFormat() error {
	b := r.buf[r.r:]
	switch {
	case isPcapMagic(b):
		return r.initPcap()
	case isPcapngMagic(b):
		return r.initPcapng()
	}
	return &notCaptureError{r.name, fmt.Sprintf("%v (magic 0x%02x%02x%02x%02x)", ErrNotCapture, b[0], b[1], b[2], b[3])}
}

// OpenFile opens the capture file at path and returns a Reader for it, as
// NewReader does with path as the name. Close closes the file. The path "-"
// is standard input; gzip and zstd files and streams are decompressed
// (compress.go).
func OpenFile(path string, file int) (*Reader, error) {
	return openAny(path, file, 0)
}

// newFileReader returns a buffered Reader of the open file f, which it
// closes on error and on Close.
func newFileReader(f *os.File, path string, file int) (*Reader, error) {
	size := DefaultBufferSize
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < int64(size) {
		// Small file: a buffer a little larger than the file is enough (it
		// still grows should the file grow while it is read).
		size = max(int(st.Size())+512, 64<<10)
		size = min(size, DefaultBufferSize)
	}
	r, err := newReaderSize(f, path, file, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer, r.osFile = f, f
	return r, nil
}

// Interrupt makes a read blocked on the Reader's file (a pipe or a FIFO:
// a descriptor the runtime polls) return at once, with an error; reads of
// regular files, which do not block for long, are not affected. It may be
// called from another goroutine while Next runs.
func (r *Reader) Interrupt() {
	if r.osFile != nil {
		_ = r.osFile.SetReadDeadline(time.Now())
	}
}

// Offset returns the byte offset in the file of the next record not read
// (after Next returned a record: the end of that record). Not valid after
// Close.
func (r *Reader) Offset() int64 { return r.offset() }

// Next reads the next packet record into rec. It returns io.EOF at the clean
// end of the file, a *DamageError when the file is damaged (all whole records
// before the damage have been returned), or another error (naming the file)
// when reading fails. After any error, Next returns the same error again.
// rec.Data is valid until the next call to Next.
func (r *Reader) Next(rec *Record) error {
	if r.err != nil {
		return r.err
	}
	if r.NextBuffered(rec) {
		return nil
	}
	var err error
	if r.format == formatPcap {
		err = r.nextPcap(rec)
	} else {
		err = r.nextPcapng(rec)
	}
	if err != nil {
		r.err = err
	} else if r.mapped {
		r.last = rec.Offset
		if r.r-r.released >= mapReleaseLag+mapReleaseStep {
			r.releaseBehind()
		}
	}
	return err
}

// Close releases the buffer and closes the file opened by OpenFile (a Reader
// made by NewReader leaves its io.Reader open). Next returns an error after
// Close.
func (r *Reader) Close() error {
	if r.mapped && r.buf != nil {
		_ = unmapFile(r.buf)
	}
	r.buf = nil
	r.r, r.w = 0, 0
	if r.err == nil || r.err == io.EOF {
		r.err = errClosed
	}
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// Name returns the file name given to NewReader or OpenFile.
func (r *Reader) Name() string { return r.name }

// File returns the file index given to NewReader or OpenFile.
func (r *Reader) File() int { return r.file }

// Format returns "pcap" or "pcapng".
func (r *Reader) Format() string {
	if r.format == formatPcap {
		return "pcap"
	}
	return "pcapng"
}

// LinkTypes returns the distinct link types seen so far, in order of first
// appearance: for pcap the file's link type; for pcapng those of the
// interfaces described so far (NewReader reads the blocks before the first
// packet, so interfaces described up front are included; later ones appear
// as Next reaches them). The slice is a copy.
func (r *Reader) LinkTypes() []LinkType {
	return append([]LinkType(nil), r.linkTypes...)
}

// addLinkType records l in linkTypes if it is new.
func (r *Reader) addLinkType(l LinkType) {
	for _, x := range r.linkTypes {
		if x == l {
			return
		}
	}
	if len(r.linkTypes) < 64 { // bounded: a hostile file may describe many interfaces
		r.linkTypes = append(r.linkTypes, l)
	}
}

// fill makes at least n bytes available in buf[r:w] and reports whether it
// could; it returns false when the input ends (or fails, see rerr) first.
// It may move the unread data to the start of the buffer and grow the buffer,
// which invalidates earlier slices of it.
func (r *Reader) fill(n int) bool {
	if r.w-r.r >= n || r.mapped {
		return r.w-r.r >= n
	}
	if n > len(r.buf)-r.r && r.r > 0 {
		// Not enough room after r: move the unread bytes to the front.
		copy(r.buf, r.buf[r.r:r.w])
		r.base += int64(r.r)
		r.w -= r.r
		r.r = 0
	}
	zero := 0
	for r.w-r.r < n {
		if r.eof || r.rerr != nil {
			return false
		}
		if r.w == len(r.buf) {
			// Full (and r == 0 here, since n > len(buf)-r): grow, at most
			// doubling, so the buffer never exceeds twice the data read.
			nb := make([]byte, min(2*len(r.buf), n))
			copy(nb, r.buf[:r.w])
			r.buf = nb
		}
		m, err := r.src.Read(r.buf[r.w:])
		if m < 0 || m > len(r.buf)-r.w {
			r.rerr = errors.New("invalid read count from io.Reader")
			return false
		}
		r.w += m
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			r.rerr = err
		case m == 0:
			if zero++; zero >= 100 {
				r.rerr = io.ErrNoProgress
			}
		}
	}
	return true
}

// avail returns the number of unread bytes in the buffer.
func (r *Reader) avail() int { return r.w - r.r }

// offset returns the file offset of buf[r].
func (r *Reader) offset() int64 { return r.base + int64(r.r) }

// damage returns a *DamageError at off.
func (r *Reader) damage(off int64, format string, args ...any) error {
	return &DamageError{File: r.name, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// readError wraps the read error of the input.
func (r *Reader) readError(off int64) error {
	var de *decompressError
	if errors.As(r.rerr, &de) {
		return &DamageError{File: r.name, Offset: off, Reason: de.Error()}
	}
	return fmt.Errorf("%s: read error at byte offset %d: %w", r.name, off, r.rerr)
}

// shortError returns the error for a record or block at off that needs need
// bytes while the input ended (or failed) first: the read error if there was
// one, else damage described by what ("record", "block", ...).
func (r *Reader) shortError(off int64, what string, need int64) error {
	if r.rerr != nil {
		return r.readError(off)
	}
	return r.damage(off, "%s cut short (need %d bytes, %d left)", what, need, r.avail())
}

// u16 and u32 read integers in the current byte order.
func (r *Reader) u16(b []byte) uint16 { return order16(r.be, b) }

func (r *Reader) u32(b []byte) uint32 { return order32(r.be, b) }

// order16 reads a 16-bit value, big-endian when be, else little-endian.
func order16(be bool, b []byte) uint16 {
	_ = b[1]
	if be {
		return uint16(b[0])<<8 | uint16(b[1])
	}
	return uint16(b[1])<<8 | uint16(b[0])
}

// order32 reads a 32-bit value, big-endian when be, else little-endian.
func order32(be bool, b []byte) uint32 {
	_ = b[3]
	if be {
		return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	}
	return uint32(b[3])<<24 | uint32(b[2])<<16 | uint32(b[1])<<8 | uint32(b[0])
}
