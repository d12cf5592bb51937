package engine

import (
	"context"
	"math"
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// Pipeline sizes. A batch holds pipelineBatch packets (336 bytes each) and
// the copies of the IP packets whose ICRC the consumer checks, up to about
// pipelineSlab bytes; pipelineRing batches are in flight. Measured on 10M
// frames: rings of 1.4 MB of packets or more (256 x 16, 512 x 8, 1024 x 8)
// run 25% faster than 540 KB (256 x 6) and 40% faster than 90 KB (64 x 4):
// the stages' speeds vary from batch to batch, and a deep ring absorbs it.
//
// The CRC over a 1 KiB frame costs more than the rest of its decoding, so
// to balance the two goroutines the ICRC checks of a batch are left to the
// consumer (on copies of the frames) when the producer starts the batch
// without having to wait for a free one: while the consumer keeps up.
const (
	pipelineBatch = 256
	pipelineSlab  = 128 << 10
	pipelineRing  = 16
	maxIPPacket   = 40 + 65535 // IPv6 header and the largest payload length
	// deferICRCMin: the ICRCs of smaller IP packets (ACKs, CNPs, frames
	// cut by a mirror's snaplen) are checked where they are decoded, while
	// their bytes are in that core's cache; only bigger ones go to the
	// consumer. Also when the inputs are mapped (the hand-over then costs
	// no copy): the consumer, which runs the flow table, is the slower
	// stage on mirror captures, and a small frame's check costs it a cache
	// miss on the mapping besides the CRC.
	deferICRCMin = 256
	pipelineSpin = 2000
)

// packetBatch is a reusable batch of decoded packets.
type packetBatch struct {
	p    [pipelineBatch]decode.Packet
	h    [pipelineBatch]uint64 // flows.FlowHash of each packet, computed by the producer
	n    int
	icrc []pendingICRC // ICRC checks left to the consumer, in packet order
	slab []byte        // the IP packets they cover, copied (unless the inputs are mapped)
	idle bool          // sent part-full: the input waits (a pipe or FIFO)
}

// pendingICRC is an ICRC check left to the consumer: packet i, its IP
// packet (in the batch's slab, or in the mapped file) and its UDP offset.
type pendingICRC struct {
	i      int
	ip     []byte
	udpOff int
}

// recvBatch receives from ch. When ch is empty it polls it for a while
// (pipelineSpin times, some tens of microseconds, less than a batch takes)
// before blocking: the two stages run at about the same speed, and parking
// a goroutine and waking it costs the kernel more than the wait.
func recvBatch(ch chan *packetBatch) (*packetBatch, bool) {
	for range pipelineSpin {
		select {
		case b, ok := <-ch:
			return b, ok
		default:
		}
	}
	b, ok := <-ch
	return b, ok
}

// Batches reads the inputs (in.Each: in records their errors) and decodes
// the records with a Decoder for cfg on a second goroutine, and calls fn on
// this one with the decoded packets, batch by batch, in order, once their
// ICRCs are checked. fn may use the packets only until it returns. There is
// one channel operation per batch, not per packet, and the batches are
// recycled: memory stays flat. It returns in.Each's error once every packet
// decoded has been passed to fn.
//
// When the inputs are memory-mapped, the consumer checks the ICRCs on the
// frames in the mapping (they stay valid until the inputs are closed);
// otherwise on copies, since a buffered reader reuses its buffer. A mapped
// file that shrinks under the consumer ends the analysis there, recorded as
// damage in the inputs' errors: one error per file, naming the first record
// not fully read, whichever goroutine (or both) met the fault.
//
// When a read of a pipe or FIFO would block (nothing more written yet),
// the batch so far is handed over part-full first: the frames read are
// never held back waiting for more input.
func Batches(ctx context.Context, in *Inputs, cfg decode.Config, fn func([]decode.Packet)) error {
	return batches(ctx, in, cfg, func(ps []decode.Packet, _ []uint64) { fn(ps) }, nil)
}

// batches is Batches, and passes fn each packet's flows.FlowHash too (hs[i]
// for ps[i]), computed on the producer's goroutine: the flow table's
// goroutine is the slower of the two on mirror captures; and calls idle
// (when set) after a batch handed over because the input waits (see
// Config.Idle).
func batches(ctx context.Context, in *Inputs, cfg decode.Config, fn func(ps []decode.Packet, hs []uint64), idle func() time.Duration) error {
	free := make(chan *packetBatch, pipelineRing)
	full := make(chan *packetBatch, pipelineRing)
	for range pipelineRing {
		free <- new(packetBatch)
	}
	var err error
	go func() {
		defer close(full)
		err = produce(ctx, in, cfg, free, full)
	}()
	check := decode.NewDecoder(cfg)
	recycle := func(b *packetBatch) {
		clear(b.icrc) // drop references to the mapping
		b.n, b.icrc, b.slab, b.idle = 0, b.icrc[:0], b.slab[:0], false
		free <- b
	}
	// cur is the batch and packet whose ICRC is being checked on the
	// mapping: a fault there names its record, and the packets before it
	// are still analysed.
	var (
		cur  *packetBatch
		curI = -1
	)
	ferr := pcapio.GuardFaultsAt(func() error {
		var (
			b  *packetBatch // received while idle waited
			ok = true
		)
		for {
			if b == nil {
				b, ok = recvBatch(full)
			}
			if !ok {
				return nil
			}
			cur = b
			for _, q := range b.icrc {
				curI = q.i
				check.FinishICRC(&b.p[q.i], q.ip, q.udpOff)
			}
			cur, curI = nil, -1
			fn(b.p[:b.n], b.h[:b.n])
			waits := b.idle && idle != nil
			recycle(b)
			b = nil
			if waits {
				b, ok = awaitIdle(full, idle)
			}
		}
	}, func() (int, int64, bool) {
		if curI < 0 {
			return 0, 0, false
		}
		p := &cur.p[curI]
		return p.File, p.Offset, true
	}, in.readers...)
	if ferr != nil {
		if curI >= 0 {
			fn(cur.p[:curI], cur.h[:curI]) // their ICRCs are checked, and they no longer read the mapping
			recycle(cur)
		}
		for b := range full { // let the producer finish
			recycle(b)
		}
		in.addFault(ferr)
	}
	return err // written before full was closed
}

// awaitIdle calls idle, and again each time the wait it asks for passes
// with no batch on full; it returns the batch that came meanwhile (ok
// false: full was closed), or nil once idle asks for no more calls.
func awaitIdle(full chan *packetBatch, idle func() time.Duration) (*packetBatch, bool) {
	again := idle()
	if again <= 0 {
		return nil, true
	}
	t := time.NewTimer(again)
	defer t.Stop()
	for {
		select {
		case b, ok := <-full:
			return b, ok
		case <-t.C:
			if again = idle(); again <= 0 {
				return nil, true
			}
			t.Reset(again)
		}
	}
}

// noDefer is the deferICRCMin of a batch whose ICRCs the producer checks
// itself: no IP packet is that long.
const noDefer = math.MaxInt

// clearChunk is how many packets fresh clears at a time: 6 of 336 bytes,
// under 2 KiB, so that the runtime clears with vector stores (a bigger
// clear is a REP STOSQ, which valgrind counts as an instruction per 8
// bytes). TestClearChunk checks the size.
const clearChunk = 6

// fresh readies a batch the consumer is done with for the producer: it
// clears its packets (the producer decodes into zero Packets:
// decode.Decoder.DecodeZeroedRecordDeferICRC), a few at a time, for a
// third of the instructions of clearing each on its own.
func fresh(b *packetBatch) *packetBatch {
	for i := 0; i < len(b.p); i += clearChunk {
		clear(b.p[i:min(i+clearChunk, len(b.p))])
	}
	return b
}

// produce is Batches' reading and decoding goroutine: it fills the batches
// of free and sends them on full, and returns the reading's error (see
// Inputs.Each). A batch goes when full, or part-full when a read of a pipe
// or FIFO would block (Inputs.onWait): regular files never wait, and the
// per-frame path has no test for it.
//
// Its loop is Each's, written out (records.fast, else records.nextSlow):
// for a single pcap file a record costs one call to read it and one to
// decode it, with no call of a function per record in between.
func produce(ctx context.Context, in *Inputs, cfg decode.Config, free, full chan *packetBatch) error {
	mapped := in.Mapped()
	dec := decode.NewDecoder(cfg)
	// cur is the batch being filled and whether its ICRCs go to the
	// consumer; the loop keeps copies in registers and writes them back
	// whenever they change, since onWait and a fault (which ends the loop)
	// see cur only.
	var cur struct {
		b        *packetBatch
		deferMin int // deferICRCMin, or noDefer
	}
	cur.b, cur.deferMin = fresh(<-free), deferICRCMin
	// A read of a pipe or FIFO would block: hand over the frames read so
	// far (the consumer keeps up, so it gets the next batch's ICRCs).
	in.onWait(func() {
		if cur.b.n > 0 {
			cur.b.idle = true
			full <- cur.b
			cur.b, cur.deferMin = fresh(<-free), deferICRCMin
		}
	})
	defer in.onWait(nil)
	err := in.read(ctx, func(it *records) error {
		var rec pcapio.Record
		b, deferMin := cur.b, cur.deferMin
		for {
			if !it.fast(&rec) {
				if !it.nextSlow(&rec) {
					return it.err
				}
				b, deferMin = cur.b, cur.deferMin // onWait may have handed b over
			}
			p := &b.p[b.n]
			if ip, udpOff := dec.DecodeZeroedRecordDeferICRC(&rec, p, deferMin); ip != nil {
				if !mapped {
					if b.slab == nil {
						// Room for one more IP packet past the limit: no growth,
						// so the slices of it stay put.
						b.slab = make([]byte, 0, pipelineSlab+maxIPPacket)
					}
					start := len(b.slab)
					b.slab = append(b.slab, ip...)
					ip = b.slab[start:len(b.slab):len(b.slab)]
				}
				b.icrc = append(b.icrc, pendingICRC{i: b.n, ip: ip, udpOff: udpOff})
			}
			b.h[b.n] = flows.FlowHash(p)
			if b.n++; b.n == len(b.p) || len(b.slab) >= pipelineSlab {
				full <- b
				// Balance: leave the ICRCs of the next batch to the consumer
				// only if it is keeping up (a batch is free without
				// waiting); otherwise check them here.
				select {
				case b = <-free:
					deferMin = deferICRCMin
				default:
					b, _ = recvBatch(free)
					deferMin = noDefer
				}
				b = fresh(b)
				cur.b, cur.deferMin = b, deferMin
			}
		}
	})
	if cur.b.n > 0 {
		full <- cur.b
	}
	return err
}
