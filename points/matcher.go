package points

import (
	"cmp"
	"slices"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// MaxPending is the number of unmatched frames per hop and side kept with
// their details while they wait for a later match (see the package doc).
const MaxPending = 1 << 16

// Frame is an unmatched frame of a hop: its time at its point, PSN and
// opcode.
type Frame struct {
	TsNs   int64
	PSN    uint32
	Opcode decode.Opcode
}

// Delay summarises the matched delays of a hop (ns, nearest-rank).
type Delay struct {
	Count, MinNs, P50Ns, P99Ns, MaxNs int64
}

// Hop is the result for one flow and one pair of points, oriented along the
// flow: From and To are point indexes.
type Hop struct {
	Flow           flows.Key
	From, To       int
	Matched        int64
	Lost           int64 // seen at From, not at To, between the first and last match
	UnseenUpstream int64 // seen at To, not at From, between the first and last match
	Delay          Delay
	LostFrames     []Frame // the lost frames with details (at most Lost), in From's time order
}

// hopKey is a flow and a pair of points i < j.
type hopKey struct {
	key  flows.Key
	i, j int32
}

// side is a hop's state at one of its two points.
type side struct {
	first, last int64 // first and last matched time at this point
	unmatched   int64 // committed: between the first and last match
	frames      []Frame
	pending     []Frame // unmatched after the last match, details
	pendingN    int64   // unmatched after the last match, count
}

type hop struct {
	seq     int // creation order, for a stable output
	matched int64
	s       [2]side
	delays  delayHist
}

// Matcher matches the frames of several capture points (see the package
// doc). Feed it every point's frames in one time-ordered stream (Observe),
// then call Finish once.
type Matcher struct {
	points int
	w      *window
	hops   map[hopKey]*hop
	cnt    []int
	masks  *flowMasks
}

// NewMatcher returns a matcher for n points with the window's lower bound
// minWindowNs (0: DefaultMinWindowNs).
func NewMatcher(n int, minWindowNs int64) *Matcher {
	m := &Matcher{points: n, hops: make(map[hopKey]*hop), cnt: make([]int, n)}
	m.w = newWindow(minWindowNs, m.resolve)
	m.masks = newFlowMasks(n, m.w)
	m.w.complete = m.masks.complete
	return m
}

// Observe takes one frame of point (0-based, argument order). Frames must
// come in timestamp order across all points (as pcapio.Merger gives them).
func (m *Matcher) Observe(point int, p *decode.Packet) {
	if id, ok := identOf(p); ok {
		m.masks.see(id.key, point, p.TsNs)
		m.w.addID(point, id, p.TsNs)
	}
}

// InFlight returns the identities in flight, the capacity of the ring that
// orders them, and the recycled entries: what the matcher's memory is
// bounded by.
func (m *Matcher) InFlight() (entries, ring, free int) { return m.w.inFlight() }

// WindowNs returns the current window.
func (m *Matcher) WindowNs() int64 { return m.w.w }

// resolve pairs the occurrences of e between every two points.
func (m *Matcher) resolve(e *entry) {
	counts(e, m.cnt)
	for i := 0; i < m.points; i++ {
		for j := i + 1; j < m.points; j++ {
			ci, cj := m.cnt[i], m.cnt[j]
			if ci == 0 && cj == 0 {
				continue
			}
			hk := hopKey{key: e.id.key, i: int32(i), j: int32(j)}
			h := m.hops[hk]
			if h == nil {
				if ci == 0 || cj == 0 {
					continue // no match yet: before the first, not counted
				}
				h = &hop{seq: len(m.hops)}
				m.hops[hk] = h
			}
			for k := 0; k < min(ci, cj); k++ {
				ti, tj := kth(e, int32(i), k), kth(e, int32(j), k)
				h.match(ti, tj)
				m.w.sample(tj - ti)
			}
			for k := cj; k < ci; k++ {
				h.s[0].unmatchedAt(Frame{TsNs: kth(e, int32(i), k), PSN: e.id.psn, Opcode: decode.Opcode(e.id.opcode)}, h.matched > 0)
			}
			for k := ci; k < cj; k++ {
				h.s[1].unmatchedAt(Frame{TsNs: kth(e, int32(j), k), PSN: e.id.psn, Opcode: decode.Opcode(e.id.opcode)}, h.matched > 0)
			}
		}
	}
}

func (h *hop) match(ti, tj int64) {
	first := h.matched == 0
	h.matched++
	h.delays.add(tj - ti)
	h.s[0].matchAt(ti, first)
	h.s[1].matchAt(tj, first)
}

// matchAt records a match at time t and commits the pending frames not
// later than t.
func (s *side) matchAt(t int64, first bool) {
	if first {
		s.first, s.last = t, t
		return
	}
	s.first = min(s.first, t)
	if t < s.last {
		return
	}
	s.last = t
	if s.pendingN == 0 {
		return
	}
	kept := s.pending[:0]
	var committed int64
	for _, f := range s.pending {
		if f.TsNs <= t {
			s.frames = append(s.frames, f)
			committed++
		} else {
			kept = append(kept, f)
		}
	}
	s.pending = kept
	extra := s.pendingN - int64(len(kept)) - committed // counted without details
	s.unmatched += committed + extra
	s.pendingN = int64(len(kept))
}

// unmatchedAt records an unmatched frame at this side.
func (s *side) unmatchedAt(f Frame, matched bool) {
	switch {
	case !matched || f.TsNs < s.first:
		// before the first match: not counted
	case f.TsNs <= s.last:
		s.unmatched++
		s.frames = append(s.frames, f)
	default:
		s.pendingN++
		if len(s.pending) < MaxPending {
			s.pending = append(s.pending, f)
		}
	}
}

// Finish resolves what is in flight and returns the hops, ordered by their
// first match; Observe must not be called after it.
func (m *Matcher) Finish() []Hop {
	m.w.flush()
	type kh struct {
		k hopKey
		h *hop
	}
	all := make([]kh, 0, len(m.hops))
	for k, h := range m.hops {
		all = append(all, kh{k, h})
	}
	slices.SortFunc(all, func(a, b kh) int { return cmp.Compare(a.h.seq, b.h.seq) })
	out := make([]Hop, 0, len(all))
	for _, x := range all {
		out = append(out, x.h.result(x.k))
	}
	return append(out, m.unmatchedHops()...)
}

// unmatchedHops returns a hop with nothing matched for every flow and pair
// of points (among the first 64) that both saw the flow but share no frame
// of it, ordered by flow id, then pair (from = the earlier point).
func (m *Matcher) unmatchedHops() []Hop {
	var out []Hop
	for k, st := range m.masks.m {
		for i := 0; i < min(m.points, 64); i++ {
			for j := i + 1; j < min(m.points, 64); j++ {
				if st.mask&(1<<i) == 0 || st.mask&(1<<j) == 0 {
					continue
				}
				if m.hops[hopKey{key: k, i: int32(i), j: int32(j)}] == nil {
					out = append(out, Hop{Flow: k, From: i, To: j})
				}
			}
		}
	}
	ids := make(map[flows.Key]string, len(out))
	for _, h := range out {
		ids[h.Flow] = h.Flow.String()
	}
	slices.SortFunc(out, func(a, b Hop) int {
		if c := cmp.Compare(ids[a.Flow], ids[b.Flow]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.From, b.From); c != 0 {
			return c
		}
		return cmp.Compare(a.To, b.To)
	})
	return out
}

// result orients the hop: d = time at j - time at i; from = i when the
// nearest-rank p50 of d is >= 0.
func (h *hop) result(k hopKey) Hop {
	r := Hop{Flow: k.key, From: int(k.i), To: int(k.j), Matched: h.matched}
	d := h.delays.summary(false)
	from, to := &h.s[0], &h.s[1]
	if d.Count > 0 && d.P50Ns < 0 {
		r.From, r.To = r.To, r.From
		from, to = to, from
		d = h.delays.summary(true)
	}
	r.Delay = d
	r.Lost, r.UnseenUpstream = from.unmatched, to.unmatched
	r.LostFrames = from.frames
	slices.SortStableFunc(r.LostFrames, func(a, b Frame) int { return cmp.Compare(a.TsNs, b.TsNs) })
	return r
}
