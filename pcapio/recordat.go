package pcapio

import (
	"errors"
	"io"
	"slices"
)

// Random access to records. A Reader reads a capture front to back; a
// viewer that has seen every record once (the terminal UI) keeps only each
// record's byte offset and reads the record again when it is shown. Reading a
// record at an offset needs what the Reader knew at that point: the format,
// the byte order and, for pcapng, the interfaces of the record's section.
// That is a Layout; Reader.Layout returns the one in force for the record
// just read, and ReadRecordAt reads a record with it.

// Layout describes how to read the records of one part of a capture file:
// its format and byte order, and for pcapng the interfaces of one section.
// A Layout is immutable.
type Layout struct {
	format   int
	be       bool
	pcapNano bool
	pcapLink LinkType
	pcapMax  uint32
	ifaces   []ngIface
	// compressed: the file is read through a decompressor, so its offsets
	// are those of the decompressed stream and ReadRecordAt cannot use them.
	compressed bool
}

// Layout returns the layout in force for the record Next returned last
// (and for every later record until a new section or interface appears).
// When prev describes the same layout, prev itself is returned without
// allocating, so a caller that calls Layout after every record learns of a
// change by comparing pointers.
func (r *Reader) Layout(prev *Layout) *Layout {
	if prev != nil && prev.matches(r) {
		return prev
	}
	return &Layout{
		format:   r.format,
		be:       r.be,
		pcapNano: r.pcapNano,
		pcapLink: r.pcapLink,
		pcapMax:  r.pcapCapMax,
		ifaces:   slices.Clone(r.ifaces),

		compressed: r.compressed,
	}
}

func (l *Layout) matches(r *Reader) bool {
	if l.format != r.format || l.be != r.be {
		return false
	}
	if r.format == formatPcap {
		return true // one file header for the whole file
	}
	return slices.Equal(l.ifaces, r.ifaces)
}

// u32 reads a 32-bit value in the layout's byte order.
func (l *Layout) u32(b []byte) uint32 { return order32(l.be, b) }

// ErrCompressed is returned by ReadRecordAt for a record of a compressed
// capture (a gzip or zstd file): its offsets are those of the decompressed
// stream, which cannot be read at an offset.
var ErrCompressed = errors.New("compressed capture: records cannot be read again at their offset")

// errNotRecord is returned by ReadRecordAt when the bytes at the offset are
// not a packet record of the layout.
var errNotRecord = errors.New("no packet record at this offset")

// atReader reads a growing prefix of the bytes at off.
type atReader struct {
	ra   io.ReaderAt
	off  int64
	buf  []byte
	have int
}

// need makes buf[:n] hold the n bytes at off.
func (a *atReader) need(n int) error {
	if n <= a.have {
		return nil
	}
	if n > len(a.buf) {
		nb := make([]byte, max(n, 2*len(a.buf)))
		copy(nb, a.buf[:a.have])
		a.buf = nb
	}
	for a.have < n {
		m, err := a.ra.ReadAt(a.buf[a.have:], a.off+int64(a.have))
		a.have += m
		if a.have >= n {
			return nil
		}
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if m == 0 {
			return io.ErrNoProgress
		}
	}
	return nil
}

// ReadRecordAt reads the record that starts at byte offset off (a pcap
// record header or a pcapng packet block, as Record.Offset gives it) of a
// file whose layout there is l. buf is scratch space; rec.Data aliases it,
// and the buffer (grown if needed) is returned for reuse. rec.File and
// rec.Frame are left unchanged: the caller knows them. A pcapng Simple Packet
// Block carries no timestamp; read this way its TsNs is 0.
//
// The record is checked as Reader.Next checks it; anything else at off (a
// non-packet block, a cut or inconsistent record) is an error.
func ReadRecordAt(ra io.ReaderAt, l *Layout, off int64, rec *Record, buf []byte) ([]byte, error) {
	if l.compressed {
		return buf, ErrCompressed
	}
	if len(buf) < 2048 {
		buf = make([]byte, 2048)
	}
	a := atReader{ra: ra, off: off, buf: buf[:cap(buf)]}
	var err error
	if l.format == formatPcap {
		err = l.pcapAt(&a, rec)
	} else {
		err = l.pcapngAt(&a, rec)
	}
	if err != nil {
		return a.buf, err
	}
	rec.Offset = off
	return a.buf, nil
}

func (l *Layout) pcapAt(a *atReader, rec *Record) error {
	if err := a.need(pcapRecordHeaderLen); err != nil {
		return err
	}
	ts, capLen, wireLen := pcapHeaderFields(l.be, l.pcapNano, a.buf[:pcapRecordHeaderLen])
	if capLen > l.pcapMax {
		return errNotRecord
	}
	end := pcapRecordHeaderLen + int(capLen)
	if err := a.need(end); err != nil {
		return err
	}
	rec.Data = a.buf[pcapRecordHeaderLen:end:end]
	rec.TsNs = ts
	rec.CapLen = int(capLen)
	rec.Len = int(max(wireLen, capLen))
	rec.LinkType = l.pcapLink
	return nil
}

func (l *Layout) pcapngAt(a *atReader, rec *Record) error {
	if err := a.need(8); err != nil {
		return err
	}
	typ, total := l.u32(a.buf[0:]), l.u32(a.buf[4:])
	if total < ngMinBlockLen || total%4 != 0 || total > MaxBlockLen {
		return errNotRecord
	}
	n := int(total)
	if err := a.need(n); err != nil {
		return err
	}
	blk := a.buf[:n:n]
	if l.u32(blk[n-4:]) != total {
		return errNotRecord
	}
	body := blk[8 : n-4]
	switch typ {
	case ngBlockEPB, ngBlockPB:
		if epbFields(l.be, typ, body, l.ifaces, rec) != nil {
			return errNotRecord
		}
	case ngBlockSPB:
		if spbFields(l.be, body, l.ifaces, rec) != nil {
			return errNotRecord
		}
		rec.TsNs = 0
	default:
		return errNotRecord
	}
	return nil
}
