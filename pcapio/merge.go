package pcapio

import (
	"errors"
	"io"
)

// Merger merges several readers in timestamp order; equal timestamps keep the
// order of the readers (argument order), then record order.
//
// Errors: when a reader fails (a *DamageError, or a read error), Merger.Next
// returns that error once, at the point where the reader hits it — after all
// of that file's earlier records have been returned (though possibly before
// later-timestamped records of other files). The failed reader then drops
// out, and further calls continue with the other readers; the caller collects
// the errors and keeps calling Next until io.EOF, which it returns once every
// reader has ended or failed (and then on every later call).
//
// A record returned by Next is valid until the next call to Next: its Data
// aliases the buffer of the reader it came from, which is only advanced by
// the next call. Merging costs no allocation per record.
type Merger struct {
	readers []*Reader
	recs    []Record // pending record of each reader in heap
	heap    []int    // indices of readers with a pending record, min-heap by (TsNs, index)
	primed  int      // readers [0, primed) have been read once
	last    int      // reader whose record was returned last (at heap[0]), or -1
	done    bool     // single reader only: it has ended or failed
}

// NewMerger returns a Merger over readers (which it does not copy). The order
// of readers breaks timestamp ties.
func NewMerger(readers []*Reader) *Merger {
	return &Merger{
		readers: readers,
		recs:    make([]Record, len(readers)),
		heap:    make([]int, 0, len(readers)),
		last:    -1,
	}
}

// Next reads the next record in merged order into rec. See Merger for the
// errors it returns.
func (m *Merger) Next(rec *Record) error {
	if len(m.readers) == 1 {
		// One reader, without the heap: its records in order, then its
		// error once (unless io.EOF), then io.EOF; straight into rec (a
		// copy of m.recs[0] would load the 80-byte record just stored
		// field by field, a store-forwarding stall). On an error rec may
		// have been written to; callers do not use it then.
		if m.done {
			return io.EOF
		}
		r := m.readers[0]
		if r.NextBuffered(rec) {
			return nil // Next's common case, without its call
		}
		if err := r.Next(rec); err != nil {
			m.done = true
			return err
		}
		return nil
	}
	if i := m.last; i >= 0 {
		// Advance the reader whose record was returned last; it is still at
		// the top of the heap.
		m.last = -1
		if err := m.readers[i].Next(&m.recs[i]); err != nil {
			m.pop()
			if err != io.EOF {
				return err
			}
		} else {
			m.down(0)
		}
	}
	for m.primed < len(m.readers) {
		i := m.primed
		m.primed++
		if err := m.readers[i].Next(&m.recs[i]); err != nil {
			if err != io.EOF {
				return err
			}
			continue
		}
		m.push(i)
	}
	if len(m.heap) == 0 {
		return io.EOF
	}
	i := m.heap[0]
	*rec = m.recs[i]
	m.last = i
	return nil
}

// Close closes every reader and returns the first error.
func (m *Merger) Close() error {
	var errs []error
	for _, r := range m.readers {
		if err := r.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// less orders readers i and j by their pending records' timestamps, then by
// reader index.
func (m *Merger) less(i, j int) bool {
	ti, tj := m.recs[i].TsNs, m.recs[j].TsNs
	return ti < tj || (ti == tj && i < j)
}

func (m *Merger) push(i int) {
	m.heap = append(m.heap, i)
	m.up(len(m.heap) - 1)
}

// pop removes the top of the heap.
func (m *Merger) pop() {
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap = m.heap[:n]
	if n > 0 {
		m.down(0)
	}
}

func (m *Merger) up(k int) {
	h := m.heap
	for k > 0 {
		p := (k - 1) / 2
		if !m.less(h[k], h[p]) {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
}

func (m *Merger) down(k int) {
	h := m.heap
	n := len(h)
	for {
		c := 2*k + 1
		if c >= n {
			return
		}
		if c+1 < n && m.less(h[c+1], h[c]) {
			c++
		}
		if !m.less(h[c], h[k]) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}
