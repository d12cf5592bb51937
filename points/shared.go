package points

import "github.com/rocetrace/rocetrace/decode"

// SharedWindowNs is Shared's window: the same frame in two files is
// looked for within 100 ms (taps of one traffic see a frame within
// microseconds to milliseconds of each other); it bounds the memory of the
// ordinary multi-file report (rotated or per-direction files of one
// capture, which share nothing) to 100 ms of traffic.
const SharedWindowNs int64 = 100_000_000

// SharedPair is two files (indexes, A < B) and the RoCE frames they share.
type SharedPair struct {
	A, B   int
	Shared int64
}

// Shared counts the RoCE frames that several files have in common (same
// identity; the k-th occurrence in one file is the k-th in the other), for
// the finding same_traffic_in_several_files. Feed it every file's frames in
// one time-ordered stream.
type Shared struct {
	w     *window
	roce  []int64
	pairs map[[2]int32]int64
	cnt   []int
	masks *flowMasks
}

// NewShared returns a Shared for n files.
func NewShared(n int) *Shared {
	s := &Shared{roce: make([]int64, n), pairs: make(map[[2]int32]int64), cnt: make([]int, n)}
	s.w = newWindow(SharedWindowNs, s.resolve)
	s.masks = newFlowMasks(n, s.w)
	s.w.complete = s.masks.complete
	return s
}

// Observe takes one frame of file (p.File is not used: the caller says).
func (s *Shared) Observe(file int, p *decode.Packet) {
	if id, ok := identOf(p); ok {
		s.masks.see(id.key, file, p.TsNs)
		s.w.addID(file, id, p.TsNs)
		s.roce[file]++
	}
}

func (s *Shared) resolve(e *entry) {
	if len(e.occs) < 2 {
		return
	}
	// the points present: few per entry, so walk the occurrences, not all files
	for _, o := range e.occs {
		s.cnt[o.point]++
	}
	for a, oa := range e.occs {
		ca := s.cnt[oa.point]
		if ca == 0 || !firstOf(e, a) {
			continue
		}
		for b, ob := range e.occs {
			if ob.point <= oa.point || !firstOf(e, b) {
				continue
			}
			s.pairs[[2]int32{oa.point, ob.point}] += int64(min(ca, s.cnt[ob.point]))
		}
	}
	for _, o := range e.occs {
		s.cnt[o.point] = 0
	}
}

// firstOf reports whether occurrence i is the first of its point in e.
func firstOf(e *entry, i int) bool {
	for _, o := range e.occs[:i] {
		if o.point == e.occs[i].point {
			return false
		}
	}
	return true
}

// Finish resolves what is in flight and returns the RoCE frames per file
// and the pairs that share at least one frame, ordered by (A, B).
func (s *Shared) Finish() (roce []int64, pairs []SharedPair) {
	s.w.flush()
	for k, v := range s.pairs {
		pairs = append(pairs, SharedPair{A: int(k[0]), B: int(k[1]), Shared: v})
	}
	sortPairs(pairs)
	return s.roce, pairs
}

func sortPairs(p []SharedPair) {
	for i := 1; i < len(p); i++ { // few pairs: insertion sort
		for j := i; j > 0 && (p[j].A < p[j-1].A || p[j].A == p[j-1].A && p[j].B < p[j-1].B); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}
