package pcapio

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// pcap (libpcap) file format: a 24-byte file header, then records of a
// 16-byte header (ts_sec, ts_usec or ts_nsec, incl_len, orig_len) and
// incl_len bytes of data.

const (
	pcapMagicMicro = 0xA1B2C3D4
	pcapMagicNano  = 0xA1B23C4D

	pcapFileHeaderLen   = 24
	pcapRecordHeaderLen = 16
)

// MaxPcapRecordLen is the largest captured length a pcap record may have,
// whatever the file's snaplen says (see PcapCapLenLimit).
const MaxPcapRecordLen = 64 << 20

// pcapDefaultCapLenLimit is the captured length every pcap file may use
// regardless of its snaplen (libpcap's MAXIMUM_SNAPLEN).
const pcapDefaultCapLenLimit = 256 << 10

// PcapCapLenLimit returns the largest captured length a record of a pcap file
// with the given snaplen may have before it counts as damage:
// max(snaplen, 256 KiB), where a snaplen over MaxPcapRecordLen (or 0) is not
// trusted and counts as 256 KiB. Records longer than snaplen but within 256
// KiB are tolerated, since some writers do not honour their own snaplen.
func PcapCapLenLimit(snaplen uint32) uint32 {
	if snaplen > pcapDefaultCapLenLimit && snaplen <= MaxPcapRecordLen {
		return snaplen
	}
	return pcapDefaultCapLenLimit
}

// isPcapMagic reports whether b starts with a pcap magic in either byte order.
func isPcapMagic(b []byte) bool {
	le := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	be := uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
	return le == pcapMagicMicro || le == pcapMagicNano || be == pcapMagicMicro || be == pcapMagicNano
}

// initPcap reads the pcap file header.
func (r *Reader) initPcap() error {
	r.format = formatPcap
	if !r.fill(pcapFileHeaderLen) {
		if r.rerr != nil {
			return r.readError(0)
		}
		return r.damage(0, "pcap file header cut short (need %d bytes, %d left)", pcapFileHeaderLen, r.avail())
	}
	h := r.buf[r.r : r.r+pcapFileHeaderLen]
	r.be = h[0] == 0xA1
	magic := r.u32(h[0:])
	r.pcapNano = magic == pcapMagicNano
	snaplen := r.u32(h[16:])
	r.pcapCapMax = PcapCapLenLimit(snaplen)
	r.pcapSnaplen = snaplen
	// The link-type field's upper bits hold FCS information (bits 28-31:
	// FCS length, bit 26: FCS length valid); the link type is the low 16 bits.
	r.pcapLink = LinkType(r.u32(h[20:]) & 0xFFFF)
	r.addLinkType(r.pcapLink)
	r.r += pcapFileHeaderLen
	return nil
}

// nextPcap reads the next pcap record.
func (r *Reader) nextPcap(rec *Record) error {
	off := r.offset()
	if r.w-r.r < pcapRecordHeaderLen && !r.fill(pcapRecordHeaderLen) {
		if r.avail() == 0 && r.rerr == nil {
			return io.EOF
		}
		return r.shortError(off, "record header", pcapRecordHeaderLen)
	}
	ts, capLen, wireLen := pcapHeaderFields(r.be, r.pcapNano, r.buf[r.r:r.r+pcapRecordHeaderLen])
	if capLen > r.pcapCapMax {
		return r.damage(off, "captured length %d exceeds the limit of %d bytes", capLen, r.pcapCapMax)
	}
	total := pcapRecordHeaderLen + int(capLen)
	if r.w-r.r < total && !r.fill(total) {
		return r.shortError(off, "record", int64(total))
	}
	r.setPcapRecord(rec, off, r.buf[r.r+pcapRecordHeaderLen:r.r+total:r.r+total], r.r+total, ts, capLen, wireLen)
	return nil
}

// setPcapRecord sets rec to the record at off whose data is data, which
// ends at end in the buffer, numbers it and moves the read position past
// it.
func (r *Reader) setPcapRecord(rec *Record, off int64, data []byte, end int, ts int64, capLen, wireLen uint32) {
	rec.Data = data
	rec.TsNs = ts
	rec.CapLen = int(capLen)
	rec.Len = int(max(wireLen, capLen))
	rec.LinkType = r.pcapLink
	rec.File = r.file
	r.frame++
	rec.Frame = r.frame
	rec.Offset = off
	r.r = end
}

// NextBuffered reads the next record into rec, as Next would, when that is
// cheap: the file is a pcap file, the Reader has met no error, and the
// record is whole in the buffer (or the mapping). Otherwise it changes
// nothing and returns false, and the caller calls Next. Next, and
// Merger.Next for a single reader, call it first; a caller with a loop of
// its own over one Reader (the engine's producer) may too: one call for the
// common case, not three, and no test that nextPcap makes again.
func (r *Reader) NextBuffered(rec *Record) bool {
	if r.err != nil || r.format != formatPcap {
		return false
	}
	// The bytes buffered, sliced once: the tests of the header's and the
	// data's lengths against it are the only bounds checks.
	b := r.buf[r.r:r.w]
	if len(b) < pcapRecordHeaderLen {
		return false
	}
	ts, capLen, wireLen := pcapHeaderFields(r.be, r.pcapNano, b[:pcapRecordHeaderLen])
	n := pcapRecordHeaderLen + int(capLen)
	if capLen > r.pcapCapMax || n > len(b) {
		return false
	}
	off := r.base + int64(r.r)
	r.setPcapRecord(rec, off, b[pcapRecordHeaderLen:n:n], r.r+n, ts, capLen, wireLen)
	if r.mapped {
		r.last = off
		if r.r-r.released >= mapReleaseLag+mapReleaseStep {
			r.releaseBehind()
		}
	}
	return true
}

// pcapHeaderFields reads a pcap record header: the timestamp in ns (from µs
// or ns by the file's magic), the captured and the wire length.
func pcapHeaderFields(be, nano bool, h []byte) (tsNs int64, capLen, wireLen uint32) {
	// Two loads, and one test of the byte order for the four fields: small
	// enough to inline into the record readers.
	a, c := binary.LittleEndian.Uint64(h[0:8]), binary.LittleEndian.Uint64(h[8:16])
	if be { // swapping 8 bytes swaps the two fields too: rotate them back
		a, c = bits.RotateLeft64(bits.ReverseBytes64(a), 32), bits.RotateLeft64(bits.ReverseBytes64(c), 32)
	}
	frac := int64(a >> 32)
	if !nano {
		frac *= 1000
	}
	return int64(uint32(a))*1e9 + frac, uint32(c), uint32(c >> 32)
}
