package tui

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Marks and writing frames out. In Packets, m marks the selected frame (or
// unmarks it), ' goes to the next marked frame (after the last, the
// first), and w writes the marked frames, or every frame of the list shown
// (a filtered one too) when none is marked, to a pcap file whose name the
// bottom line asks for. The records are copied as read from the captures
// (timestamps in nanoseconds); the frames must share one link type, as a
// pcap file has one.

// markSet is the marked frames: Index positions, sorted.
type markSet []uint32

// has reports whether pos is marked.
func (m markSet) has(pos int) bool {
	_, ok := slices.BinarySearch(m, uint32(pos))
	return ok
}

// toggle marks pos, or unmarks it.
func (m *markSet) toggle(pos int) {
	i, ok := slices.BinarySearch(*m, uint32(pos))
	if ok {
		*m = slices.Delete(*m, i, i+1)
	} else {
		*m = slices.Insert(*m, i, uint32(pos))
	}
}

// after returns the first mark after pos, wrapping to the first; -1 when
// there is none.
func (m markSet) after(pos int) int {
	if len(m) == 0 {
		return -1
	}
	i, ok := slices.BinarySearch(m, uint32(pos))
	if ok {
		i++
	}
	if i >= len(m) {
		i = 0
	}
	return int(m[i])
}

// errLinkTypes: the frames to write have several link types.
var errLinkTypes = errors.New("the frames have different link types: a pcap file holds one")

// WriteFrames writes n frames of s, the Index positions pos(0..n-1), to w
// as a pcap file with nanosecond timestamps. It reads the records again
// from the captures.
func (p *Pager) WriteFrames(s *Snapshot, n int, pos func(i int) int, w io.Writer) error {
	var (
		rec pcapio.Record
		buf []byte
		pw  *pcapio.Writer
		lt  pcapio.LinkType
	)
	for i := range n {
		at := pos(i)
		if at < 0 || at >= s.Index.Len() {
			return fmt.Errorf("no frame at position %d", at)
		}
		file, off := s.Index.At(at)
		if file >= len(p.files) || p.files[file] == nil || file >= len(s.layouts) {
			return errNotReReadable
		}
		lay := layoutAt(s.layouts[file], off)
		if lay == nil {
			return errors.New("no layout for this offset")
		}
		var err error
		if buf, err = pcapio.ReadRecordAt(p.files[file], lay, off, &rec, buf); err != nil {
			return fmt.Errorf("%s: reading the record at byte offset %d: %w", p.names[file], off, err)
		}
		if pw == nil {
			lt = rec.LinkType
			if pw, err = pcapio.NewWriter(w, pcapio.PcapHeader{Nanos: true, Snaplen: 262144, LinkType: lt}); err != nil {
				return err
			}
		} else if rec.LinkType != lt {
			return errLinkTypes
		}
		if err := pw.WriteRecord(&rec); err != nil {
			return err
		}
	}
	if pw == nil { // no frame: a file with its header only
		_, err := pcapio.NewWriter(w, pcapio.PcapHeader{Nanos: true, Snaplen: 262144, LinkType: pcapio.LinkTypeEthernet})
		return err
	}
	return nil
}

// writePcapFile writes the frames to path (created, or truncated); a
// failed write leaves no file behind.
func (p *Pager) writePcapFile(s *Snapshot, n int, pos func(i int) int, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = p.WriteFrames(s, n, pos, bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
