package pcapio

import (
	"encoding/binary"
	"fmt"
	"io"
)

// This file writes pcapng files, always little-endian, with one section and
// interfaces whose timestamps are nanoseconds (if_tsresol 9): Section
// Header, Interface Description, Enhanced Packet and Interface Statistics
// Blocks. As for pcap, the Append functions encode into a byte slice and
// NgWriter streams to an io.Writer.

// pcapng option codes the writers use.
const (
	ngOptUserAppl = 4 // shb_userappl
	ngOptIfName   = 2 // if_name
	ngOptIfRecv   = 4 // isb_ifrecv
	ngOptIfDrop   = 5 // isb_ifdrop
	ngBlockISB    = 0x00000005
	ngEPBFixedLen = 32 // block header and trailer, interface, timestamp, lengths
)

// NgInterface describes a pcapng interface (an Interface Description Block).
type NgInterface struct {
	// LinkType is the link type of the interface's records.
	LinkType LinkType
	// Snaplen is the interface's snapshot length.
	Snaplen uint32
	// Name is the if_name option; "" leaves it out.
	Name string
}

// appendNgOpt appends an option with its value padded to 4 bytes.
func appendNgOpt(b []byte, code uint16, val []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	return appendNgPad(b, len(val))
}

// appendNgPad appends the zero bytes that bring n up to a multiple of 4.
func appendNgPad(b []byte, n int) []byte {
	var zero [3]byte
	return append(b, zero[:(4-n%4)%4]...)
}

// appendNgBlock appends a block of type t around body (already padded).
func appendNgBlock(b []byte, t uint32, body []byte) []byte {
	total := uint32(ngMinBlockLen + len(body))
	b = binary.LittleEndian.AppendUint32(b, t)
	b = binary.LittleEndian.AppendUint32(b, total)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, total)
}

// AppendSectionHeader appends a Section Header Block (version 1.0, section
// length unknown). A userAppl other than "" goes into an shb_userappl
// option; with "" the block has no options at all.
func AppendSectionHeader(b []byte, userAppl string) []byte {
	le := binary.LittleEndian
	var body []byte
	body = le.AppendUint32(body, ngByteOrderBE)
	body = le.AppendUint16(body, 1)
	body = le.AppendUint16(body, 0)
	body = le.AppendUint64(body, ^uint64(0)) // section length unknown
	if userAppl != "" {
		body = appendNgOpt(body, ngOptUserAppl, []byte(userAppl))
		body = le.AppendUint32(body, ngOptEnd)
	}
	return appendNgBlock(b, ngBlockSHB, body)
}

// AppendInterface appends an Interface Description Block for ifc, with
// if_name (when set) and if_tsresol 9 (nanoseconds).
func AppendInterface(b []byte, ifc NgInterface) []byte {
	le := binary.LittleEndian
	var body []byte
	body = le.AppendUint16(body, uint16(ifc.LinkType))
	body = le.AppendUint16(body, 0)
	body = le.AppendUint32(body, ifc.Snaplen)
	if ifc.Name != "" {
		body = appendNgOpt(body, ngOptIfName, []byte(ifc.Name))
	}
	body = appendNgOpt(body, ngOptTsResol, []byte{9})
	body = le.AppendUint32(body, ngOptEnd)
	return appendNgBlock(b, ngBlockIDB, body)
}

// EnhancedPacketSize returns the number of bytes an Enhanced Packet Block of
// capLen captured bytes (and no options) takes in the file.
func EnhancedPacketSize(capLen int) int { return ngEPBFixedLen + (capLen+3)&^3 }

// AppendEnhancedPacket appends an Enhanced Packet Block without options for
// interface iface: timestamp tsNs (nanoseconds), captured length len(data),
// wire length max(wireLen, len(data)), and data padded to 4 bytes.
func AppendEnhancedPacket(b []byte, iface uint32, tsNs int64, data []byte, wireLen int) []byte {
	le := binary.LittleEndian
	n := len(data)
	total := uint32(EnhancedPacketSize(n))
	ts := uint64(tsNs)
	b = le.AppendUint32(b, ngBlockEPB)
	b = le.AppendUint32(b, total)
	b = le.AppendUint32(b, iface)
	b = le.AppendUint32(b, uint32(ts>>32))
	b = le.AppendUint32(b, uint32(ts))
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, uint32(max(wireLen, n)))
	b = append(b, data...)
	b = appendNgPad(b, n)
	return le.AppendUint32(b, total)
}

// AppendInterfaceStats appends an Interface Statistics Block for interface
// iface at tsNs with the isb_ifrecv and isb_ifdrop options.
func AppendInterfaceStats(b []byte, iface uint32, tsNs int64, recv, drop uint64) []byte {
	le := binary.LittleEndian
	var body []byte
	ts := uint64(tsNs)
	body = le.AppendUint32(body, iface)
	body = le.AppendUint32(body, uint32(ts>>32))
	body = le.AppendUint32(body, uint32(ts))
	body = appendNgOpt(body, ngOptIfRecv, le.AppendUint64(nil, recv))
	body = appendNgOpt(body, ngOptIfDrop, le.AppendUint64(nil, drop))
	body = le.AppendUint32(body, ngOptEnd)
	return appendNgBlock(b, ngBlockISB, body)
}

// NgWriter writes a pcapng file with one section and one interface to an
// io.Writer. Each block is handed to the io.Writer in a single Write call.
// An NgWriter does no buffering of its own and is not safe for concurrent
// use.
type NgWriter struct {
	w   io.Writer
	buf []byte // one encoded block
}

// NewNgWriter writes a Section Header Block (with userAppl, see
// AppendSectionHeader) and the Interface Description Block of ifc to w, and
// returns an NgWriter for the records that follow (all on that interface).
func NewNgWriter(w io.Writer, userAppl string, ifc NgInterface) (*NgWriter, error) {
	head := AppendInterface(AppendSectionHeader(nil, userAppl), ifc)
	if _, err := w.Write(head); err != nil {
		return nil, fmt.Errorf("writing pcapng section header: %w", err)
	}
	return &NgWriter{w: w}, nil
}

// WriteRecord writes rec as an Enhanced Packet Block on interface 0:
// rec.Data, rec.TsNs and rec.Len (raised to len(rec.Data) when smaller).
func (w *NgWriter) WriteRecord(rec *Record) error {
	w.buf = AppendEnhancedPacket(w.buf[:0], 0, rec.TsNs, rec.Data, rec.Len)
	if _, err := w.w.Write(w.buf); err != nil {
		return fmt.Errorf("writing pcapng packet block: %w", err)
	}
	return nil
}

// WriteInterfaceStats writes an Interface Statistics Block for interface 0
// (see AppendInterfaceStats).
func (w *NgWriter) WriteInterfaceStats(tsNs int64, recv, drop uint64) error {
	w.buf = AppendInterfaceStats(w.buf[:0], 0, tsNs, recv, drop)
	if _, err := w.w.Write(w.buf); err != nil {
		return fmt.Errorf("writing pcapng statistics block: %w", err)
	}
	return nil
}
