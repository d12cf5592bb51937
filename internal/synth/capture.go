package synth

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/rocetrace/rocetrace/pcapio"
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

// writePcap writes the frames as pcap with link type Ethernet.
func writePcap(w io.Writer, frames []Frame, snaplen int, nanos bool) error {
	pw, err := pcapio.NewWriter(w, pcapio.PcapHeader{Nanos: nanos, Snaplen: uint32(snaplen), LinkType: pcapio.LinkTypeEthernet})
	if err != nil {
		return err
	}
	for i := range frames {
		if err := pw.WriteRecord(frames[i].record()); err != nil {
			return err
		}
	}
	return nil
}

// writePcapng writes the frames as pcapng with one Ethernet interface.
func writePcapng(w io.Writer, frames []Frame, snaplen int) error {
	nw, err := pcapio.NewNgWriter(w, "", pcapio.NgInterface{LinkType: pcapio.LinkTypeEthernet, Snaplen: uint32(snaplen)})
	if err != nil {
		return err
	}
	for i := range frames {
		if err := nw.WriteRecord(frames[i].record()); err != nil {
			return err
		}
	}
	return nil
}

// record returns f as a capture record, for the pcapio writers.
func (f *Frame) record() *pcapio.Record {
	return &pcapio.Record{Data: f.Data, TsNs: f.TsNs, CapLen: len(f.Data), Len: f.Len, LinkType: pcapio.LinkTypeEthernet}
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
		b, err := tunnel(b, w)
		if err != nil {
			return nil, err
		}
		out.Add(f.TsNs, b)
	}
	return out, nil
}
