package engine

import (
	"context"
	"errors"
	"io"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Each calls fn for every record in timestamp order until the input ends,
// fn returns an error or ctx is cancelled (checked every 1024 records),
// and returns that error (nil at the end of the input). Damage in one file
// is recorded and the others go on. A mapped file that shrinks while it is
// read ends the loop, recorded as damage (pcapio.GuardFaults).
func (in *Inputs) Each(ctx context.Context, fn func(rec *pcapio.Record) error) error {
	return in.read(ctx, func(it *records) error {
		var rec pcapio.Record
		for it.next(&rec) {
			if err := fn(&rec); err != nil {
				return err
			}
		}
		return it.err
	})
}

// read runs loop, the reading loop of Each or of a pipeline's producer,
// over the records of it (see records): a read blocked on a pipe or FIFO
// returns when ctx ends, and a mapped file that shrinks while loop reads
// it is recorded as damage and ends the loop. It returns loop's error.
func (in *Inputs) read(ctx context.Context, loop func(it *records) error) error {
	stop := context.AfterFunc(ctx, func() {
		for _, r := range in.readers {
			r.Interrupt()
		}
	})
	defer stop()
	var err error
	if ferr := pcapio.GuardFaults(func() error {
		if in.stopOpen >= 0 {
			err = context.Canceled
			return nil
		}
		it := &records{in: in, ctx: ctx}
		err = loop(it)
		return nil
	}, in.readers...); ferr != nil {
		in.addFault(ferr)
	}
	return err
}

// records reads the inputs' records in timestamp order, with Each's rules
// (ctx looked at every 1024 records, damage recorded and passed over, the
// last file read and the layouts noted). Its next is small enough to
// inline: for the common case, a single pcap file whose record is whole in
// the buffer, a reading loop makes one call a record (Reader.NextBuffered),
// not the three of a loop that calls Merger.Next and a function per record.
type records struct {
	in  *Inputs
	ctx context.Context
	n   int
	one *pcapio.Reader // the only reader, once the records need no more bookkeeping (see nextSlow); else nil
	err error          // why next returned false: nil at the end of the input
}

// next reads the next record into rec; false means the reading ended, with
// it.err.
func (it *records) next(rec *pcapio.Record) bool { return it.fast(rec) || it.nextSlow(rec) }

// fast reads the next record into rec when it is the common case (see
// records), and reports whether it did; nextSlow reads it otherwise. A
// loop calls the two itself (next's two calls do not inline).
func (it *records) fast(rec *pcapio.Record) bool {
	it.n++
	return it.n&1023 != 1 && it.one != nil && it.one.NextBuffered(rec)
}

// nextSlow is next through the Merger, with the look at ctx, the errors and
// the bookkeeping of a record: the last file read, the layouts tracked.
// Records after the first of a single pcap file need none of it (the last
// file stays the same; a pcap file's layout is settled once seen), so it
// then sets it.one, and next reads them directly, but every 1024th.
func (it *records) nextSlow(rec *pcapio.Record) bool {
	in := it.in
	for {
		if it.n&1023 == 1 && it.ctx.Err() != nil {
			it.err = in.stopped(it.ctx)
			return false
		}
		err := in.merger.Next(rec)
		if err == io.EOF {
			return false
		}
		if err != nil {
			if it.ctx.Err() != nil { // Interrupt's deadline, or a read at the end
				it.err = in.stopped(it.ctx)
				return false
			}
			in.addErr(err)
			var de *pcapio.DamageError
			if errors.As(err, &de) {
				it.n++
				continue
			}
			return false
		}
		in.last = rec.File
		if in.track && !in.settled[rec.File] {
			in.trackLayout(rec)
		}
		if len(in.readers) == 1 && (!in.track || in.settled[rec.File]) {
			it.one = in.readers[0]
		}
		return true
	}
}
