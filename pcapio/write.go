package pcapio

import (
	"encoding/binary"
	"fmt"
	"io"
)

// This file writes pcap (libpcap) files, always little-endian: the
// 24-byte file header (version 2.4, thiszone and sigfigs 0) and one record
// per packet. The Append functions encode into a byte slice, for callers
// that manage their own buffering (capture.Writer); Writer streams records
// to an io.Writer.

// PcapHeader is what a pcap file header says.
type PcapHeader struct {
	// Nanos selects nanosecond timestamps (magic 0xA1B23C4D); otherwise
	// they are microseconds (magic 0xA1B2C3D4) and records lose the
	// sub-microsecond digits.
	Nanos bool
	// Snaplen is the file's snapshot length.
	Snaplen uint32
	// LinkType is the link type of every record.
	LinkType LinkType
}

// AppendPcapHeader appends the 24-byte pcap file header h to b.
func AppendPcapHeader(b []byte, h PcapHeader) []byte {
	le := binary.LittleEndian
	magic := uint32(pcapMagicMicro)
	if h.Nanos {
		magic = pcapMagicNano
	}
	b = le.AppendUint32(b, magic)
	b = le.AppendUint16(b, 2) // version 2.4
	b = le.AppendUint16(b, 4)
	b = le.AppendUint32(b, 0) // thiszone
	b = le.AppendUint32(b, 0) // sigfigs
	b = le.AppendUint32(b, h.Snaplen)
	return le.AppendUint32(b, uint32(h.LinkType))
}

// PcapRecordSize returns the number of bytes a pcap record of capLen
// captured bytes takes in the file.
func PcapRecordSize(capLen int) int { return pcapRecordHeaderLen + capLen }

// AppendPcapRecord appends one pcap record: its 16-byte header (timestamp in
// nanoseconds, or microseconds unless nanos, captured length len(data), wire
// length max(wireLen, len(data))) and data.
func AppendPcapRecord(b []byte, nanos bool, tsNs int64, data []byte, wireLen int) []byte {
	le := binary.LittleEndian
	sec, sub := tsNs/1_000_000_000, tsNs%1_000_000_000
	if !nanos {
		sub /= 1000
	}
	b = le.AppendUint32(b, uint32(sec))
	b = le.AppendUint32(b, uint32(sub))
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint32(b, uint32(max(wireLen, len(data))))
	return append(b, data...)
}

// Writer writes a pcap file to an io.Writer. Each record is handed to the
// io.Writer in a single Write call, so a file written through a buffer that
// flushes between Writes holds only whole records. A Writer does no
// buffering of its own and is not safe for concurrent use.
type Writer struct {
	w     io.Writer
	nanos bool
	buf   []byte // one encoded record
}

// NewWriter writes the file header h to w and returns a Writer for the
// records that follow.
func NewWriter(w io.Writer, h PcapHeader) (*Writer, error) {
	if _, err := w.Write(AppendPcapHeader(nil, h)); err != nil {
		return nil, fmt.Errorf("writing pcap file header: %w", err)
	}
	return &Writer{w: w, nanos: h.Nanos}, nil
}

// WriteRecord writes one record: rec.Data, rec.TsNs and rec.Len (raised to
// len(rec.Data) when smaller); the other fields are not stored in pcap.
func (w *Writer) WriteRecord(rec *Record) error {
	w.buf = AppendPcapRecord(w.buf[:0], w.nanos, rec.TsNs, rec.Data, rec.Len)
	if _, err := w.w.Write(w.buf); err != nil {
		return fmt.Errorf("writing pcap record: %w", err)
	}
	return nil
}
