package points

import (
	"math/bits"
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

// entry is an identity in flight: its occurrences in arrival order. seq
// tells a queued slot of the entry from a later use of the recycled entry.
type entry struct {
	id    ident
	first int64
	seq   uint64
	occs  []occ
}

// slot is a FIFO slot: an entry as it was queued.
type slot struct {
	e   *entry
	seq uint64
}

// window holds the identities in flight and resolves them, in the order of
// their first occurrence, once that is older than the window.
type window struct {
	m       map[ident]*entry
	fifo    []slot // ring of the entries in flight, by first occurrence
	head, n int
	seq     uint64
	free    []*entry
	now     int64
	minW    int64
	w       int64
	samples []int64 // |delay| of the first matches, until the window is set
	resolve func(e *entry)
	// complete, when set, says after each occurrence whether e can be
	// resolved at once (every point that sees its flow has seen it
	// equally often): its later occurrences then start a new entry, which
	// keeps the k-th-to-k-th pairing.
	complete func(e *entry) bool
}

func newWindow(minW int64, resolve func(e *entry)) *window {
	if minW <= 0 {
		minW = DefaultMinWindowNs
	}
	return &window{m: make(map[ident]*entry), fifo: make([]slot, 64), minW: minW, w: minW, resolve: resolve}
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

// addID records an occurrence of identity id at point, at time ts, after
// resolving what the stream time ts makes old.
func (w *window) addID(point int, id ident, ts int64) {
	if ts > w.now {
		w.now = ts
		w.expire(w.now - w.w)
	}
	e := w.m[id]
	if e == nil {
		e = w.get()
		e.id, e.first = id, ts
		w.m[id] = e
		w.push(e)
	}
	e.occs = append(e.occs, occ{ts: ts, point: int32(point)})
	if w.complete != nil && w.complete(e) {
		w.done(e) // its FIFO slot goes stale (seq)
	}
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
		s := w.fifo[w.head]
		if s.e.seq != s.seq { // resolved early
			w.pop()
			continue
		}
		if s.e.first >= cut {
			return
		}
		w.pop()
		w.done(s.e)
	}
}

// flush resolves every entry in flight.
func (w *window) flush() {
	for w.n > 0 {
		s := w.fifo[w.head]
		w.pop()
		if s.e.seq == s.seq {
			w.done(s.e)
		}
	}
}

func (w *window) done(e *entry) {
	w.resolve(e)
	delete(w.m, e.id)
	e.occs = e.occs[:0]
	e.seq = 0 // no queued slot matches it any more
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
	w.seq++
	e.seq = w.seq
	if w.n == len(w.fifo) && w.n > 2*len(w.m)+64 {
		w.compact() // mostly slots of entries resolved early
	}
	if w.n == len(w.fifo) {
		grown := make([]slot, 2*len(w.fifo))
		for i := 0; i < w.n; i++ {
			grown[i] = w.fifo[(w.head+i)%len(w.fifo)]
		}
		w.fifo, w.head = grown, 0
	}
	w.fifo[(w.head+w.n)%len(w.fifo)] = slot{e, e.seq}
	w.n++
}

func (w *window) pop() {
	w.fifo[w.head] = slot{}
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

// compact drops the stale slots (entries resolved early) from the ring,
// keeping the order of the others: amortised O(1) per push, as it runs
// only when more than half the slots are stale.
func (w *window) compact() {
	k := 0
	for i := 0; i < w.n; i++ {
		s := w.fifo[(w.head+i)%len(w.fifo)]
		if s.e.seq == s.seq {
			w.fifo[(w.head+k)%len(w.fifo)] = s
			k++
		}
	}
	for i := k; i < w.n; i++ {
		w.fifo[(w.head+i)%len(w.fifo)] = slot{}
	}
	w.n = k
}

// flowMasks records which points (the first 64) have seen each flow and
// when that set last grew, for the early resolution of an identity that
// every one of them saw equally often.
type flowMasks struct {
	m    map[flows.Key]maskState
	full uint64 // every point (0 when more than 64)
	w    *window
}

type maskState struct {
	mask    uint64
	changed int64 // stream time the mask last grew
}

func newFlowMasks(points int, w *window) *flowMasks {
	fm := &flowMasks{m: make(map[flows.Key]maskState), w: w}
	if points <= 64 {
		fm.full = 1<<points - 1
		if points == 64 {
			fm.full = ^uint64(0)
		}
	}
	return fm
}

func (fm *flowMasks) see(k flows.Key, point int, ts int64) {
	if point < 64 {
		if st := fm.m[k]; st.mask&(1<<point) == 0 {
			fm.m[k] = maskState{mask: st.mask | 1<<point, changed: ts}
		}
	}
}

// complete reports whether e can be resolved now: it was seen equally often
// at every point that has seen its flow, two or more, and those are all the
// points or no other point joined the flow in the window before e.
func (fm *flowMasks) complete(e *entry) bool {
	st := fm.m[e.id.key]
	if st.mask != fm.full && e.first-st.changed <= fm.w.w {
		return false // another point may still see e
	}
	want := bits.OnesCount64(st.mask)
	if want < 2 || len(e.occs)%want != 0 {
		return false
	}
	per := len(e.occs) / want
	var seen uint64
	for i, o := range e.occs {
		if o.point >= 64 {
			return false
		}
		if seen&(1<<o.point) != 0 {
			continue
		}
		seen |= 1 << o.point
		n := 0
		for _, q := range e.occs[i:] {
			if q.point == o.point {
				n++
			}
		}
		if n != per {
			return false
		}
	}
	return bits.OnesCount64(seen) == want
}
