package tui

import (
	"sync"
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Loading files, the loader's own per-frame work (the packet index, the
// frames' flow ids, the timelines: indexFrame) is done where it does not
// slow the engine's consumer, which sets the pace of the two-core pipeline
// while its producer idles part of the time. The consumer (the loader's
// goroutine, in the engine's Observer) writes what indexFrame needs of each
// frame into a frameRec of a chunk, the events the frame emitted and the
// latency samples found before it beside, and queues full chunks; the
// engine's reading goroutine indexes them when it would otherwise wait for
// the consumer (engine.Config.Idle), replaying them in the order of the
// loader's synchronous path (samples, frame, events), and publishes the
// snapshots they ask for. When the reader is the slower (no idle time) and
// every chunk is queued, the consumer indexes the oldest itself. (A third
// goroutine was tried: on two cores it had to take its time from the other
// two in the scheduler's slices, and the load took longer.) The chunks are
// recycled: nothing is allocated per frame once the ring is warm.
//
// The consumer keeps what needs the flow table: the interim report builds'
// copies of the table (maybeBuild) are made on it when a snapshot is due,
// and the chunk then carries the request to publish. A built report is
// shown only once the indexer has indexed its frames (ReportFrames never
// exceeds the index). Tests that publish every publishFrames frames, live
// captures and capture points keep the synchronous path.

// Chunk sizes: frames per chunk (a chunk's records are 40 KB) and chunks
// in flight.
const (
	chunkFrames = 1024
	chunkRing   = 128
)

// frameRec is what indexFrame needs of one frame.
type frameRec struct {
	off      int64 // the record's offset in its file
	ts       int64
	file     int32
	capLen   uint32
	length   uint32 // wire length (Packet.Len)
	frameLen uint32 // Packet.FrameLen
	id       uint32 // the frame's flow index + 1, 0 none
	kind     decode.Kind
	ce       bool // RoCE or CNP over IP marked CE
	ev       flows.EventMask
}

// makeFrameRec returns the frameRec of p, of flow fl (nil: none), showing
// events ev.
func makeFrameRec(p *decode.Packet, fl *flows.Flow, ev flows.EventMask) frameRec {
	r := frameRec{
		off: p.Offset, ts: p.TsNs, file: int32(p.File), capLen: uint32(p.CapLen),
		length: uint32(p.Len), frameLen: uint32(p.FrameLen), kind: p.Kind, ev: ev,
	}
	if p.Kind == decode.KindRoCE || p.Kind == decode.KindCNP {
		r.ce = p.ECN == 3 && p.IPVersion != 0
		if fl != nil {
			r.id = uint32(fl.Index()) + 1
		}
	}
	return r
}

// frameChunk is a run of frames handed to the indexer, with the latency
// samples and events found while they were observed, each at the frame it
// precedes (samples) or follows (events).
type frameChunk struct {
	frames  [chunkFrames]frameRec
	n       int
	lats    []chunkSample
	evs     []chunkEvent
	publish bool // publish a snapshot once the chunk is indexed
}

type chunkSample struct {
	at int // before frames[at]
	s  flows.LatencySample
}

type chunkEvent struct {
	at int // after frames[at]
	e  flows.Event
}

// indexer hands the chunks from the consumer to whichever goroutine
// indexes them, in order: the engine's reading goroutine when it would wait
// for the consumer (engine.Config.Idle: indexIdle), or the consumer itself
// when every chunk is full. mu makes the indexing one goroutine's at a
// time; the chunks are taken from full under it, so in order.
type indexer struct {
	free, full chan *frameChunk
	cur        *frameChunk // the consumer's
	mu         sync.Mutex  // held while a chunk is indexed (and published)
	n          int64       // frames handed over (the consumer's)
	full32     bool        // the index cannot take more frames (the consumer's)
}

// startIndexer makes the chunks; from now until stopIndexer the loader's
// indexed state (index, timelines, snapshots) is under ix.mu.
func (l *loader) startIndexer() {
	x := &indexer{
		free: make(chan *frameChunk, chunkRing),
		full: make(chan *frameChunk, chunkRing),
	}
	for range chunkRing {
		x.free <- new(frameChunk)
	}
	x.cur = <-x.free
	l.ix = x
}

// stopIndexer indexes what is left, once the engine's reading goroutine
// has ended: the loader's state is then this goroutine's again.
func (l *loader) stopIndexer() {
	x := l.ix
	if x.cur.n > 0 || len(x.cur.lats) > 0 {
		x.full <- x.cur
	}
	x.mu.Lock()
	for l.indexNext(x) {
	}
	x.mu.Unlock()
	l.ix = nil
	if x.full32 {
		l.errs = append(l.errs, errIndexFullAt(int(x.n)))
	}
}

// indexIdle is the engine's Config.Idle: on the reading goroutine, it
// indexes the oldest full chunk unless another goroutine is indexing. It
// reports whether it indexed one.
func (l *loader) indexIdle() bool {
	x := l.ix // set before the engine runs, cleared after
	if x == nil || !x.mu.TryLock() {
		return false
	}
	did := l.indexNext(x)
	x.mu.Unlock()
	return did
}

// observeAsync is observe with the indexer: it records the frame in the
// current chunk and hands the chunk over when full or when a snapshot is
// due.
func (l *loader) observeAsync(p *decode.Packet, f *flows.Flow) error {
	x := l.ix
	if x.n >= 1<<32-1 {
		x.full32 = true
		return errIndexFull
	}
	c := x.cur
	t := l.eng.Table()
	c.frames[c.n] = makeFrameRec(p, f, t.FrameEvents())
	if ne := t.NumEvents(); ne > l.nEvents {
		for i := l.nEvents; i < ne; i++ {
			c.evs = append(c.evs, chunkEvent{at: c.n, e: *t.Event(i)})
		}
		l.nEvents = ne
	}
	c.n++
	x.n++
	if x.n&1023 == 0 && time.Since(l.lastPub) >= l.m.cfg.PublishEvery {
		l.maybeBuild()
		c.publish = true
		l.lastPub = time.Now()
		l.handOver()
	} else if c.n == chunkFrames {
		l.handOver()
	}
	return nil
}

// handOver queues the current chunk and takes a free one, indexing the
// oldest queued chunk itself when none is free.
func (l *loader) handOver() {
	x := l.ix
	x.full <- x.cur // never blocks: full has room for every chunk
	select {
	case x.cur = <-x.free:
		return
	default:
	}
	// Every chunk is queued or being indexed: under mu, one is queued (the
	// one indexed before was put back in free).
	x.mu.Lock()
	l.indexNext(x)
	x.mu.Unlock()
	x.cur = <-x.free
}

// indexNext indexes the oldest queued chunk, if any, and publishes a
// snapshot if the chunk asks for one; x.mu is held. It reports whether there
// was a chunk.
func (l *loader) indexNext(x *indexer) bool {
	var c *frameChunk
	select {
	case c = <-x.full:
	default:
		return false
	}
	si, ei := 0, 0
	for i := range c.n {
		for ; si < len(c.lats) && c.lats[si].at == i; si++ {
			l.tl.addLatency(c.lats[si].s)
		}
		l.indexFrame(&c.frames[i])
		for ; ei < len(c.evs) && c.evs[ei].at == i; ei++ {
			l.event(&c.evs[ei].e)
		}
	}
	// Samples of frames observed after the Observer stopped.
	for ; si < len(c.lats); si++ {
		l.tl.addLatency(c.lats[si].s)
	}
	publish := c.publish
	clear(c.lats) // drop the flows they point at
	clear(c.evs)
	c.n, c.lats, c.evs, c.publish = 0, c.lats[:0], c.evs[:0], false
	x.free <- c
	if publish {
		l.publish(false, false)
	}
	return true
}

// addSample keeps a latency sample for the timelines: in the current chunk
// when the indexer runs, else at once.
func (l *loader) addSample(s flows.LatencySample) {
	if x := l.ix; x != nil {
		x.cur.lats = append(x.cur.lats, chunkSample{at: x.cur.n, s: s})
		return
	}
	l.tl.addLatency(s)
}
