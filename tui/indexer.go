package tui

import (
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Loading files, the loader's own per-frame work (the packet index, the
// frames' flow ids, the timelines: indexFrame) runs on a goroutine of its
// own, the indexer, so that it does not slow the engine's consumer, which
// sets the pace of the two-core pipeline while its producer idles part of
// the time. The consumer (the loader's goroutine, in the engine's Observer)
// writes what indexFrame needs of each frame into a frameRec of a chunk, the
// events the frame emitted and the latency samples found before it beside,
// and hands full chunks to the indexer, which replays them in the same
// order as the loader's synchronous path would (samples, frame, events) and
// publishes the snapshots. The chunks are recycled: nothing is allocated
// per frame once the ring is warm.
//
// The consumer keeps what needs the flow table: the interim report builds'
// copies of the table (maybeBuild) are made on it when a snapshot is due,
// and the chunk then carries the request to publish. A built report is
// shown only once the indexer has indexed its frames (ReportFrames never
// exceeds the index). Tests that publish every publishFrames frames, live
// captures and capture points keep the synchronous path.

// Chunk sizes: frames per chunk (a chunk's records are ~48 KB, in the
// cache when the indexer reads them) and chunks in flight.
const (
	chunkFrames = 1024
	chunkRing   = 8
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

// indexer is the consumer's side of the hand-over.
type indexer struct {
	free, full chan *frameChunk
	cur        *frameChunk
	done       chan struct{}
	n          int64 // frames handed over
	full32     bool  // the index cannot take more frames
}

// startIndexer starts the indexer goroutine.
func (l *loader) startIndexer() {
	x := &indexer{
		free: make(chan *frameChunk, chunkRing),
		full: make(chan *frameChunk, chunkRing),
		done: make(chan struct{}),
	}
	for range chunkRing {
		x.free <- new(frameChunk)
	}
	x.cur = <-x.free
	l.ix = x
	go l.runIndexer(x)
}

// stopIndexer hands over the last chunk and waits until the indexer has
// indexed it; the loader's state is then this goroutine's again.
func (l *loader) stopIndexer() {
	x := l.ix
	if x.cur.n > 0 || len(x.cur.lats) > 0 {
		x.full <- x.cur
	}
	close(x.full)
	<-x.done
	l.ix = nil
	if x.full32 {
		l.errs = append(l.errs, errIndexFullAt(int(x.n)))
	}
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

// handOver sends the current chunk to the indexer and takes a free one.
func (l *loader) handOver() {
	x := l.ix
	x.full <- x.cur
	x.cur = <-x.free
}

// runIndexer is the indexer goroutine: it indexes the chunks in order and
// recycles them.
func (l *loader) runIndexer(x *indexer) {
	defer close(x.done)
	for c := range x.full {
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
	}
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
