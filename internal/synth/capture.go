package synth

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
)

// Frame is one captured frame: its timestamp, captured bytes and wire
// length.
type Frame struct {
	TsNs int64
	Data []byte
	Len  int
}

// Capture collects frames and writes them as pcap or pcapng.
type Capture struct {
	Frames  []Frame
	Snaplen int  // 0: keep whole frames; otherwise cut captured bytes to this
	Wrap    Wrap // default wrapping for frames built by the helpers
	// Sink, when set, receives each frame instead of Frames keeping it, so
	// that captures of any size stream to a file (see WriteBulk).
	Sink func(Frame) error
	err  error
}

// Err returns the first error met while building frames.
func (c *Capture) Err() error { return c.err }

// Add appends a raw frame at ts, cut to the capture's snaplen.
func (c *Capture) Add(ts int64, data []byte) {
	f := Frame{TsNs: ts, Data: data, Len: len(data)}
	if c.Snaplen > 0 && len(f.Data) > c.Snaplen {
		f.Data = f.Data[:c.Snaplen]
	}
	if c.Sink != nil {
		if err := c.Sink(f); err != nil && c.err == nil {
			c.err = err
		}
		return
	}
	c.Frames = append(c.Frames, f)
}

// AddRoCE builds r with the capture's wrapping and appends it at ts.
func (c *Capture) AddRoCE(ts int64, r *RoCE) {
	c.AddRoCEWrap(ts, r, c.Wrap)
}

// AddRoCEWrap builds r with wrapping w and appends it at ts.
func (c *Capture) AddRoCEWrap(ts int64, r *RoCE, w Wrap) {
	b, err := r.Frame(w)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return
	}
	c.Add(ts, b)
}

// Sort orders the frames by timestamp, keeping the order of equal ones.
func (c *Capture) Sort() {
	sort.SliceStable(c.Frames, func(i, j int) bool { return c.Frames[i].TsNs < c.Frames[j].TsNs })
}

// Format selects the capture file format.
type Format int

// Formats.
const (
	PcapNanos  Format = iota // pcap, nanosecond magic 0xA1B23C4D
	PcapMicros               // pcap, microsecond magic 0xA1B2C3D4 (timestamps truncated to µs)
	Pcapng                   // pcapng, one interface with if_tsresol 9 (nanoseconds)
)

// WriteTo writes the frames (in their current order) in format f with
// link type Ethernet.
func (c *Capture) WriteTo(w io.Writer, f Format) error {
	if c.err != nil {
		return c.err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var err error
	switch f {
	case PcapNanos, PcapMicros:
		err = writePcap(bw, c.Frames, c.snaplen(), f == PcapNanos)
	case Pcapng:
		err = writePcapng(bw, c.Frames, c.snaplen())
	default:
		err = fmt.Errorf("unknown format %d", f)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes the capture to path.
func (c *Capture) WriteFile(path string, f Format) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := c.WriteTo(out, f); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return out.Close()
}

func (c *Capture) snaplen() int {
	if c.Snaplen > 0 {
		return c.Snaplen
	}
	return 262144
}

// PcapHeader returns a pcap global header (little-endian) for link type
// Ethernet.
func PcapHeader(snaplen int, nanos bool) []byte {
	h := make([]byte, 24)
	magic := uint32(0xA1B2C3D4)
	if nanos {
		magic = 0xA1B23C4D
	}
	binary.LittleEndian.PutUint32(h[0:], magic)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], uint32(snaplen))
	binary.LittleEndian.PutUint32(h[20:], 1)
	return h
}

// AppendPcapRecord appends one pcap record.
func AppendPcapRecord(b []byte, fr Frame, nanos bool) []byte {
	var h [16]byte
	sec := fr.TsNs / 1_000_000_000
	sub := fr.TsNs % 1_000_000_000
	if !nanos {
		sub /= 1000
	}
	binary.LittleEndian.PutUint32(h[0:], uint32(sec))
	binary.LittleEndian.PutUint32(h[4:], uint32(sub))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(fr.Data)))
	binary.LittleEndian.PutUint32(h[12:], uint32(fr.Len))
	b = append(b, h[:]...)
	return append(b, fr.Data...)
}

func writePcap(w io.Writer, frames []Frame, snaplen int, nanos bool) error {
	if _, err := w.Write(PcapHeader(snaplen, nanos)); err != nil {
		return err
	}
	var b []byte
	for _, fr := range frames {
		b = AppendPcapRecord(b[:0], fr, nanos)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func writePcapng(w io.Writer, frames []Frame, snaplen int) error {
	le := binary.LittleEndian
	// Section header block.
	shb := make([]byte, 28)
	le.PutUint32(shb[0:], 0x0A0D0D0A)
	le.PutUint32(shb[4:], 28)
	le.PutUint32(shb[8:], 0x1A2B3C4D)
	le.PutUint16(shb[12:], 1)
	le.PutUint64(shb[16:], ^uint64(0))
	le.PutUint32(shb[24:], 28)
	// Interface description block with if_tsresol = 9.
	idb := make([]byte, 32)
	le.PutUint32(idb[0:], 1)
	le.PutUint32(idb[4:], 32)
	le.PutUint16(idb[8:], 1) // Ethernet
	le.PutUint32(idb[12:], uint32(snaplen))
	le.PutUint16(idb[16:], 9) // if_tsresol
	le.PutUint16(idb[18:], 1)
	idb[20] = 9
	// idb[24:28]: opt_endofopt (zero)
	le.PutUint32(idb[28:], 32)
	if _, err := w.Write(append(shb, idb...)); err != nil {
		return err
	}
	var b []byte
	for _, fr := range frames {
		pad := (4 - len(fr.Data)%4) % 4
		total := 32 + len(fr.Data) + pad
		b = b[:0]
		b = le.AppendUint32(b, 6)
		b = le.AppendUint32(b, uint32(total))
		b = le.AppendUint32(b, 0)
		ts := uint64(fr.TsNs)
		b = le.AppendUint32(b, uint32(ts>>32))
		b = le.AppendUint32(b, uint32(ts))
		b = le.AppendUint32(b, uint32(len(fr.Data)))
		b = le.AppendUint32(b, uint32(fr.Len))
		b = append(b, fr.Data...)
		b = append(b, make([]byte, pad)...)
		b = le.AppendUint32(b, uint32(total))
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Extension returns the file extension for format f (".pcap" or ".pcapng").
func Extension(f Format) string {
	if f == Pcapng {
		return ".pcapng"
	}
	return ".pcap"
}

// Rewrap returns a copy of c whose Ethernet frames are re-wrapped as w
// says (VLAN tags inserted after the MAC addresses, then the ERSPAN
// mirror). MAC Control frames (PFC, PAUSE) are never VLAN-tagged, as on
// the wire, but they are mirrored when w mirrors. The snaplen is applied
// again to the new frames.
func Rewrap(c *Capture, w Wrap) (*Capture, error) {
	out := &Capture{Snaplen: c.Snaplen}
	for _, f := range c.Frames {
		if len(f.Data) != f.Len {
			return nil, fmt.Errorf("Rewrap needs whole frames (frame at %d is cut)", f.TsNs)
		}
		b := append([]byte(nil), f.Data...)
		macControl := len(b) >= 14 && b[12] == 0x88 && b[13] == 0x08
		if len(w.VLANs) > 0 && !macControl {
			var tags []byte
			for i, v := range w.VLANs {
				tpid := uint16(0x8100)
				if i == 0 && w.QinQ {
					tpid = 0x88A8
				}
				tags = binary.BigEndian.AppendUint16(tags, tpid)
				tags = binary.BigEndian.AppendUint16(tags, uint16(v.PCP)<<13|v.VID&0x0FFF)
			}
			b = append(b[:12:12], append(tags, f.Data[12:]...)...)
		}
		if w.ERSPAN != 0 {
			var err error
			if b, err = mirror(b, w); err != nil {
				return nil, err
			}
		}
		out.Add(f.TsNs, b)
	}
	return out, nil
}
