package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rocetrace/rocetrace/pcapio"
)

// WriterOptions configures a Writer.
type WriterOptions struct {
	// Path is the file to write. A name ending in ".pcap" gets pcap with
	// nanosecond timestamps (magic 0xA1B23C4D); any other name gets pcapng
	// with one interface whose if_tsresol is 9 (nanoseconds).
	Path string
	// RotateSize, when > 0, makes the Writer start a new file before one
	// would grow past this many bytes (a file always holds at least one
	// record). The files are then named Path's stem + "-NNNNNN" + Path's
	// extension, numbered from 000001: capture.pcapng becomes
	// capture-000001.pcapng, capture-000002.pcapng, ...
	RotateSize int64
	// RotateCount, when > 0, keeps only the newest RotateCount files: a
	// ring. It needs RotateSize.
	RotateCount int
	// Snaplen is written in the file header (0: DefaultSnaplen).
	Snaplen int
	// LinkType of every record (0: Ethernet).
	LinkType pcapio.LinkType
	// Interface is the pcapng if_name option ("" leaves it out).
	Interface string
	// FlushInterval is the longest time a written record stays in the
	// Writer's buffer (0: 100 ms; negative: every record is written through
	// at once).
	FlushInterval time.Duration
	// Stats, when set, is called when a pcapng file is finished; its
	// cumulative received and dropped counts go into an Interface
	// Statistics Block (isb_ifrecv, isb_ifdrop).
	Stats func() (received, dropped uint64)
}

// Writer writes records to a pcap or pcapng file, rotating files if asked.
// It buffers whole records and writes only whole records, so the file on
// disk is a valid capture at every moment, at most FlushInterval behind.
// A Writer is safe for concurrent use.
type Writer struct {
	opts  WriterOptions
	ng    bool
	stem  string
	ext   string
	seq   int
	files []string // files on disk, oldest first

	mu      sync.Mutex
	f       *os.File
	buf     memBuf           // encoded records not yet in the file
	pcap    *pcapio.Writer   // encodes into buf (pcap), or
	pcapng  *pcapio.NgWriter // encodes into buf (pcapng)
	size    int64            // bytes in the current file, buffered ones included
	inFile  int              // records in the current file
	frames  uint64
	err     error
	closed  bool
	stop    chan struct{}
	stopped chan struct{}

	removing sync.WaitGroup // old ring files being removed
}

// flushThreshold is the buffer size that triggers a write.
const flushThreshold = 256 << 10

// ErrWriterClosed is returned by WriteRecord after Close.
var ErrWriterClosed = errors.New("capture writer is closed")

// NewWriter creates the (first) file and writes its header.
func NewWriter(opts WriterOptions) (*Writer, error) {
	if opts.Path == "" {
		return nil, errors.New("capture writer: no file name")
	}
	if opts.RotateCount < 0 || opts.RotateSize < 0 {
		return nil, errors.New("capture writer: negative rotation limits")
	}
	if opts.RotateCount > 0 && opts.RotateSize == 0 {
		return nil, errors.New("capture writer: a rotate count needs a rotate size")
	}
	if opts.Snaplen <= 0 {
		opts.Snaplen = DefaultSnaplen
	}
	if opts.LinkType == 0 {
		opts.LinkType = pcapio.LinkTypeEthernet
	}
	if opts.FlushInterval == 0 {
		opts.FlushInterval = 100 * time.Millisecond
	}
	w := &Writer{opts: opts}
	w.ext = filepath.Ext(opts.Path)
	w.stem = strings.TrimSuffix(opts.Path, w.ext)
	w.ng = !strings.EqualFold(w.ext, ".pcap")
	w.buf.b = make([]byte, 0, flushThreshold+64<<10)
	if err := w.open(); err != nil {
		return nil, err
	}
	if opts.FlushInterval > 0 {
		w.stop = make(chan struct{})
		w.stopped = make(chan struct{})
		go w.flusher(opts.FlushInterval)
	}
	return w, nil
}

// Files returns the files the Writer has written that are still on disk,
// oldest first.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.files...)
}

// Offset returns the byte offset in the current file at which the next
// record will start (its pcap record header or pcapng block), buffered
// records included. Without rotation there is one file, and the offset a
// record was written at is where a reader (pcapio.ReadRecordAt) finds it once
// flushed. With rotation the next WriteRecord may start a new file first.
func (w *Writer) Offset() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// Frames returns the number of records written.
func (w *Writer) Frames() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.frames
}

func (w *Writer) flusher(every time.Duration) {
	defer close(w.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			if !w.closed && w.err == nil {
				w.err = w.flushLocked()
			}
			w.mu.Unlock()
		}
	}
}

// name returns the name of file number seq.
func (w *Writer) name(seq int) string {
	if w.opts.RotateSize == 0 {
		return w.opts.Path
	}
	return fmt.Sprintf("%s-%06d%s", w.stem, seq, w.ext)
}

// open creates the next file and writes its header through.
func (w *Writer) open() error {
	w.seq++
	name := w.name(w.seq)
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w.f = f
	w.files = append(w.files, name)
	w.inFile = 0
	w.buf.b = w.buf.b[:0]
	if w.ng {
		ifc := pcapio.NgInterface{LinkType: w.opts.LinkType, Snaplen: uint32(w.opts.Snaplen), Name: w.opts.Interface}
		w.pcapng, err = pcapio.NewNgWriter(&w.buf, "rocetrace", ifc)
	} else {
		w.pcap, err = pcapio.NewWriter(&w.buf, pcapio.PcapHeader{Nanos: true, Snaplen: uint32(w.opts.Snaplen), LinkType: w.opts.LinkType})
	}
	if err != nil {
		return fmt.Errorf("capture writer: %w", err)
	}
	w.size = int64(len(w.buf.b))
	if err := w.flushLocked(); err != nil {
		return err
	}
	if n := w.opts.RotateCount; n > 0 {
		for len(w.files) > n {
			// Removing a big file can take a while (its pages leave the page
			// cache): off the capture's path. Close waits for it.
			old := w.files[0]
			w.files = w.files[1:]
			w.removing.Add(1)
			go func() {
				defer w.removing.Done()
				if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
					w.mu.Lock()
					if w.err == nil {
						w.err = err
					}
					w.mu.Unlock()
				}
			}()
		}
	}
	return nil
}

// finish ends the current file: statistics block, flush, close.
func (w *Writer) finish() error {
	var err error
	if w.ng && w.opts.Stats != nil {
		recv, drop := w.opts.Stats()
		if serr := w.pcapng.WriteInterfaceStats(time.Now().UnixNano(), recv, drop); serr != nil {
			err = fmt.Errorf("capture writer: %w", serr)
		}
	}
	if ferr := w.flushLocked(); err == nil {
		err = ferr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

func (w *Writer) flushLocked() error {
	if len(w.buf.b) == 0 || w.f == nil {
		return nil
	}
	_, err := w.f.Write(w.buf.b)
	w.buf.b = w.buf.b[:0]
	return err
}

// recordSize is the number of bytes rec takes in the file.
func (w *Writer) recordSize(rec *pcapio.Record) int64 {
	if w.ng {
		return int64(pcapio.EnhancedPacketSize(len(rec.Data)))
	}
	return int64(pcapio.PcapRecordSize(len(rec.Data)))
}

// WriteRecord appends one record (its Data, TsNs and Len). The bytes are
// copied: rec may be reused as soon as it returns.
func (w *Writer) WriteRecord(rec *pcapio.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWriterClosed
	}
	if w.err != nil {
		return w.err
	}
	sz := w.recordSize(rec)
	if w.opts.RotateSize > 0 && w.inFile > 0 && w.size+sz > w.opts.RotateSize {
		if w.err = w.finish(); w.err != nil {
			return w.err
		}
		if w.err = w.open(); w.err != nil {
			return w.err
		}
	}
	var err error
	if w.ng {
		err = w.pcapng.WriteRecord(rec)
	} else {
		err = w.pcap.WriteRecord(rec)
	}
	if err != nil {
		w.err = fmt.Errorf("capture writer: %w", err)
		return w.err
	}
	w.size += sz
	w.inFile++
	w.frames++
	if len(w.buf.b) >= flushThreshold || w.opts.FlushInterval < 0 {
		w.err = w.flushLocked()
	}
	return w.err
}

// Flush writes the buffered records to the file.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWriterClosed
	}
	if w.err == nil {
		w.err = w.flushLocked()
	}
	return w.err
}

// Close writes what is buffered (and, for pcapng with Stats, a statistics
// block) and closes the file. It returns the first error the Writer met.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	if w.f != nil {
		err := w.finish()
		if w.err == nil {
			w.err = err
		}
	}
	w.mu.Unlock()
	if w.stop != nil {
		close(w.stop)
		<-w.stopped
	}
	w.removing.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// memBuf is the Writer's buffer: the pcapio writers encode into it, one
// whole record per Write, and flushLocked hands it to the file.
type memBuf struct{ b []byte }

// Write appends p.
func (m *memBuf) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}
