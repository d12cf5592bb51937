package points

import (
	"slices"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// DefaultMinWindowNs is the smallest window: 1 s of stream time.
const DefaultMinWindowNs int64 = 1_000_000_000

// windowSamples is the number of matched delays whose |p50| sets the window
// (100 x |p50|, at least DefaultMinWindowNs).
const windowSamples = 1024

// ident is a RoCE frame's identity across capture points.
type ident struct {
	key     flows.Key
	psn     uint32
	icrc    uint32
	opcode  uint8
	hasICRC bool
}

// occ is one occurrence of an identity at a point.
type occ struct {
	ts    int64
	point int32
}

// entry is an identity in flight: its occurrences in arrival order.
type entry struct {
	id    ident
	first int64
	occs  []occ
}

// window holds the identities in flight and resolves them, in the order of
// their first occurrence, once that is older than the window.
type window struct {
	m       map[ident]*entry
	fifo    []*entry // ring of the entries in flight, by first occurrence
	head, n int
	free    []*entry
	now     int64
	minW    int64
	w       int64
	samples []int64 // |delay| of the first matches, until the window is set
	resolve func(e *entry)
}

func newWindow(minW int64, resolve func(e *entry)) *window {
	if minW <= 0 {
		minW = DefaultMinWindowNs
	}
	return &window{m: make(map[ident]*entry), fifo: make([]*entry, 64), minW: minW, w: minW, resolve: resolve}
}

// identOf returns p's identity, and false when p is no RoCE frame of a flow.
func identOf(p *decode.Packet) (ident, bool) {
	if (p.Kind != decode.KindRoCE && p.Kind != decode.KindCNP) || p.Malformed {
		return ident{}, false
	}
	k, ok := flows.KeyOf(p)
	if !ok {
		return ident{}, false
	}
	id := ident{key: k, psn: p.BTH.PSN, opcode: uint8(p.BTH.Opcode)}
	if p.ICRCStatus.Checked() {
		id.icrc, id.hasICRC = p.ICRC, true
	}
	return id, true
}

// add records an occurrence of p at point, after resolving what the stream
// time p.TsNs makes old. It reports whether p is a RoCE frame.
func (w *window) add(point int, p *decode.Packet) bool {
	id, ok := identOf(p)
	if !ok {
		return false
	}
	if p.TsNs > w.now {
		w.now = p.TsNs
		w.expire(w.now - w.w)
	}
	e := w.m[id]
	if e == nil {
		e = w.get()
		e.id, e.first = id, p.TsNs
		w.m[id] = e
		w.push(e)
	}
	e.occs = append(e.occs, occ{ts: p.TsNs, point: int32(point)})
	return true
}

// sample feeds a matched delay to the window's rule.
func (w *window) sample(d int64) {
	if len(w.samples) >= windowSamples { // the window is set
		return
	}
	if d < 0 {
		d = -d
	}
	w.samples = append(w.samples, d)
	if len(w.samples) == windowSamples {
		s := slices.Clone(w.samples)
		slices.Sort(s)
		if v := 100 * s[(len(s)+1)/2-1]; v > w.w {
			w.w = v
		}
	}
}

// expire resolves the entries whose first occurrence is before cut.
func (w *window) expire(cut int64) {
	for w.n > 0 {
		e := w.fifo[w.head]
		if e.first >= cut {
			return
		}
		w.pop()
		w.done(e)
	}
}

// flush resolves every entry in flight.
func (w *window) flush() {
	for w.n > 0 {
		e := w.fifo[w.head]
		w.pop()
		w.done(e)
	}
}

func (w *window) done(e *entry) {
	w.resolve(e)
	delete(w.m, e.id)
	e.occs = e.occs[:0]
	w.free = append(w.free, e)
}

func (w *window) get() *entry {
	if n := len(w.free); n > 0 {
		e := w.free[n-1]
		w.free = w.free[:n-1]
		return e
	}
	return &entry{occs: make([]occ, 0, 2)}
}

func (w *window) push(e *entry) {
	if w.n == len(w.fifo) {
		grown := make([]*entry, 2*len(w.fifo))
		for i := 0; i < w.n; i++ {
			grown[i] = w.fifo[(w.head+i)%len(w.fifo)]
		}
		w.fifo, w.head = grown, 0
	}
	w.fifo[(w.head+w.n)%len(w.fifo)] = e
	w.n++
}

func (w *window) pop() {
	w.fifo[w.head] = nil
	w.head = (w.head + 1) % len(w.fifo)
	w.n--
}

// inFlight returns the identities in flight and the memory of the maps'
// and rings' slots (entries in the map, FIFO capacity, free entries).
func (w *window) inFlight() (entries, fifoCap, free int) {
	return len(w.m), len(w.fifo), len(w.free)
}

// counts returns, for the occurrences of e, the count per point in buf
// (len = number of points).
func counts(e *entry, buf []int) {
	clear(buf)
	for _, o := range e.occs {
		buf[o.point]++
	}
}

// kth returns the time of the k-th (0-based) occurrence of e at point.
func kth(e *entry, point int32, k int) int64 {
	for _, o := range e.occs {
		if o.point == point {
			if k == 0 {
				return o.ts
			}
			k--
		}
	}
	return 0
}
