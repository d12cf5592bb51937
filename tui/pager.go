package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Pager reads frames again from the capture files when they are shown, so
// that the TUI keeps no packets (see index.go). Rows for the packet tables
// are fetched by a background goroutine: a table asks for a row with Row,
// gets nil when it is not cached yet (and shows a placeholder), and the
// worker reads the missing rows in a batch, caches them and calls notify so
// the UI redraws on its next tick. The cache keeps the last 4096 to 8192
// rows used (two generations of maps: O(1) per lookup).
//
// Detail and Resolve read synchronously; the UI calls them from job
// goroutines, never from its own.
type Pager struct {
	files    []io.ReaderAt
	names    []string
	cfg      decode.Config
	linkBps  int64
	notify   func()
	cacheGen int

	mu   sync.Mutex
	snap *Snapshot
	cur  map[int]*PacketRow
	old  map[int]*PacketRow
	want map[int]struct{}
	busy bool

	kick    chan struct{}
	version atomic.Uint64
}

// NewPager returns a pager over the files (by file index; nil for files
// that could not be opened). notify is called after rows arrive; it must
// not block.
func NewPager(files []io.ReaderAt, names []string, cfg decode.Config, linkBps int64, notify func()) *Pager {
	if notify == nil {
		notify = func() {}
	}
	return &Pager{
		files: files, names: names, cfg: cfg, linkBps: linkBps, notify: notify, cacheGen: 4096,
		cur: map[int]*PacketRow{}, old: map[int]*PacketRow{}, want: map[int]struct{}{},
		kick: make(chan struct{}, 1),
	}
}

// Version changes whenever new rows are cached.
func (p *Pager) Version() uint64 { return p.version.Load() }

// Idle reports whether no row is wanted or being read.
func (p *Pager) Idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.busy && len(p.want) == 0
}

// Row returns the row of frame pos (an Index position of s) if it is
// cached; otherwise it asks the worker for it and returns nil.
func (p *Pager) Row(s *Snapshot, pos int) *PacketRow {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.cur[pos]; r != nil {
		return r
	}
	if r := p.old[pos]; r != nil {
		p.put(pos, r)
		return r
	}
	if p.snap == nil || s.Index.Len() > p.snap.Index.Len() {
		p.snap = s
	}
	p.want[pos] = struct{}{}
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return nil
}

// put caches a row (p.mu held).
func (p *Pager) put(pos int, r *PacketRow) {
	if len(p.cur) >= p.cacheGen {
		p.old, p.cur = p.cur, make(map[int]*PacketRow, p.cacheGen)
	}
	p.cur[pos] = r
}

// Run fetches wanted rows until ctx is cancelled.
func (p *Pager) Run(ctx context.Context) {
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
		}
		for ctx.Err() == nil {
			p.mu.Lock()
			if len(p.want) == 0 {
				p.busy = false
				p.mu.Unlock()
				break
			}
			batch := make([]int, 0, len(p.want))
			for pos := range p.want {
				batch = append(batch, pos)
			}
			clear(p.want)
			s := p.snap
			p.busy = true
			p.mu.Unlock()

			slices.Sort(batch) // read in file order
			rows := make([]*PacketRow, len(batch))
			for i, pos := range batch {
				rows[i], buf = p.row(s, pos, buf)
			}
			p.mu.Lock()
			for i, pos := range batch {
				p.put(pos, rows[i])
			}
			p.mu.Unlock()
			p.version.Add(1)
			p.notify()
		}
	}
}

// row reads and describes frame pos.
func (p *Pager) row(s *Snapshot, pos int, buf []byte) (*PacketRow, []byte) {
	var (
		rec pcapio.Record
		pkt decode.Packet
	)
	buf, err := p.read(s, pos, &rec, &pkt, buf)
	if err != nil {
		file, _ := s.Index.At(pos)
		return &PacketRow{Frame: s.Index.Frame(pos), File: file, Err: err.Error(), Mark: markProblem}, buf
	}
	return makeRow(&pkt, p.linkBps), buf
}

// read reads frame pos of s again and decodes it.
func (p *Pager) read(s *Snapshot, pos int, rec *pcapio.Record, pkt *decode.Packet, buf []byte) ([]byte, error) {
	if pos < 0 || pos >= s.Index.Len() {
		return buf, fmt.Errorf("no frame at position %d", pos)
	}
	file, off := s.Index.At(pos)
	if file >= len(p.files) || p.files[file] == nil || file >= len(s.layouts) {
		return buf, errNotReReadable
	}
	lay := layoutAt(s.layouts[file], off)
	if lay == nil {
		return buf, errors.New("no layout for this offset")
	}
	buf, err := pcapio.ReadRecordAt(p.files[file], lay, off, rec, buf)
	if err != nil {
		return buf, fmt.Errorf("%s: reading the record at byte offset %d: %w", p.names[file], off, err)
	}
	rec.File = file
	rec.Frame = s.Index.Frame(pos)
	decode.NewDecoder(p.cfg).DecodeRecord(rec, pkt)
	return buf, nil
}

// Detail reads frame pos and returns its header tree and hex dump.
func (p *Pager) Detail(s *Snapshot, pos int) *PacketDetail {
	var (
		rec pcapio.Record
		pkt decode.Packet
	)
	if _, err := p.read(s, pos, &rec, &pkt, nil); err != nil {
		return &PacketDetail{Pos: pos, Err: err}
	}
	return makeDetail(pos, p.names[rec.File], &rec, &pkt, p.cfg, p.linkBps)
}

// errNotReReadable is the error of a frame whose file the pager has no
// handle to: not a regular file (or it could not be opened again).
var errNotReReadable = errors.New("this frame cannot be read again: its file is not a regular file (a pipe or FIFO cannot be re-read)")

// errNoPacket is returned by Resolve when no frame shows the event.
var errNoPacket = errors.New("no frame of the capture shows this event")

// Resolve finds the frame that shows an event: on the event's flow (its
// frame list) or, for a pause, among the PFC/PAUSE frames, the frame with
// the event's time that matches it (PSN for gaps, replays and NAKs; a CNP;
// the pause's source MAC and priority). The frames are read again from the
// file: a binary search by time, O(log n) reads.
func (p *Pager) Resolve(s *Snapshot, ev *analysis.EventReport) (int, error) {
	var list FrameList
	switch {
	case ev.Kind == "pause":
		list = s.PFCFrames
	case ev.Kind == "hop_loss" && ev.Flow != nil && ev.From != nil:
		// A frame lost between two points is a frame of `from`
		// (pointsmodel.go), which need not be the reference.
		list = s.pointFlowFrames(*ev.From, *ev.Flow)
	case ev.Flow != nil:
		i, ok := s.FlowIndex[*ev.Flow]
		if !ok {
			return 0, errNoPacket
		}
		list = s.FlowFramesOf(i)
	}
	if list.Len() == 0 {
		return 0, errNoPacket
	}
	var (
		rec pcapio.Record
		pkt decode.Packet
		buf []byte
		err error
	)
	tsAt := func(j int) int64 {
		buf, err = p.read(s, int(list.At(j)), &rec, &pkt, buf)
		if err != nil {
			return 0
		}
		return pkt.TsNs
	}
	lo, hi := 0, list.Len()
	for lo < hi && err == nil {
		m := (lo + hi) / 2
		if tsAt(m) < ev.TsNs {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if err != nil {
		return 0, err
	}
	for j := lo; j < list.Len(); j++ {
		if tsAt(j) != ev.TsNs || err != nil {
			break
		}
		if eventShownBy(ev, &pkt) {
			return int(list.At(j)), nil
		}
	}
	// Captures whose files are not in time order defeat the binary search:
	// look at every frame of short lists.
	if list.Len() <= 1<<14 {
		for j := range list.Len() {
			if tsAt(j) == ev.TsNs && err == nil && eventShownBy(ev, &pkt) {
				return int(list.At(j)), nil
			}
		}
	}
	if err != nil {
		return 0, err
	}
	return 0, errNoPacket
}

// eventShownBy reports whether frame pkt is the one that shows ev (its time
// already matches).
func eventShownBy(ev *analysis.EventReport, pkt *decode.Packet) bool {
	psnIs := func() bool { return ev.PSN == nil || pkt.BTH.PSN == *ev.PSN }
	switch ev.Kind {
	case "psn_gap", "retransmission":
		return pkt.Kind == decode.KindRoCE && psnIs()
	case "nak", "rnr_nak":
		return pkt.Ext&decode.ExtAETH != 0 && psnIs()
	case "cnp":
		return pkt.Kind == decode.KindCNP
	case "hop_loss", "psn_conflict": // the frame's own PSN and opcode
		return pkt.Kind == decode.KindRoCE && psnIs() && (ev.OpcodeName == nil || pkt.BTH.Opcode.String() == *ev.OpcodeName)
	case "pause":
		if ev.SrcMAC == nil || net.HardwareAddr(pkt.SrcMAC[:]).String() != *ev.SrcMAC {
			return false
		}
		if ev.Priority == nil {
			return pkt.Kind == decode.KindPause
		}
		return pkt.Kind == decode.KindPFC && pkt.PFCEnable&(1<<*ev.Priority) != 0
	}
	return false
}
