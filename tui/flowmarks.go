package tui

import "github.com/rocetrace/rocetrace/flows"

// Per-flow series besides the rate, on the flow rate grid (FlowRate's
// buckets, flowBucketRatio timeline buckets each), for the flow detail's
// charts: the CNPs that target the flow (the rate chart marks them) and its
// response latency over time. The loader collects them as flows reports
// them, computing nothing: a CNP event's target flow (flows.Event.Target),
// and each latency sample flows hands to Config.LatencySink (the request
// flow's sample at its response time). Memory is bounded like the rates:
// only the first maxFlowRates flows, and each series (512 bytes) is made
// for a flow only when it has a first value.

// FlowMarks are one flow's series besides its rate; a nil series has no
// value. Each bucket b covers the same time as FlowRate's bucket b.
type FlowMarks struct {
	// CNPs counts the CNP events that target the flow, by the CNP's time.
	CNPs *FlowRate
	// AckMaxNs and ReadMaxNs are the largest ack and read latency samples
	// (flows.LatencyAck, flows.LatencyRead; ns) whose response falls in the
	// bucket: the worst the flow waited then. Merging two buckets keeps the
	// larger, so the maximum is exact on every grid.
	AckMaxNs  *FlowRate
	ReadMaxNs *FlowRate
}

// flowMarks is the loader's mutable per-flow series, with dirty flags for
// copy-on-publish (as timelines.flows).
type flowMarks struct {
	flows []*FlowMarks
	dirty []bool
}

// at returns flow i's marks, made on first use; nil past maxFlowRates.
func (m *flowMarks) at(i int) *FlowMarks {
	if i < 0 || i >= maxFlowRates {
		return nil
	}
	for len(m.flows) <= i {
		m.flows = append(m.flows, nil)
		m.dirty = append(m.dirty, false)
	}
	if m.flows[i] == nil {
		m.flows[i] = new(FlowMarks)
	}
	m.dirty[i] = true
	return m.flows[i]
}

// addCNP counts a CNP that targets flow i in timeline bucket b.
func (t *timelines) addCNP(i, b int) {
	fm := t.marks.at(i)
	if fm == nil {
		return
	}
	if fm.CNPs == nil {
		fm.CNPs = new(FlowRate)
	}
	fm.CNPs[b/flowBucketRatio]++
}

// clearCNPs forgets every flow's CNP counts (the final publish counts the
// events again from the final list).
func (t *timelines) clearCNPs() {
	for i, fm := range t.marks.flows {
		if fm != nil && fm.CNPs != nil {
			clear(fm.CNPs[:])
			t.marks.dirty[i] = true
		}
	}
}

// addLatency keeps sample s in its request flow's latency series: ack and
// read samples only (read_first and atomic are in the percentiles only);
// in the sums of flowacc.go first.
func (t *timelines) addLatency(s *flows.LatencySample) {
	if s.Flow == nil || (s.Kind != flows.LatencyAck && s.Kind != flows.LatencyRead) {
		return
	}
	i, ts, a := s.Flow.Index(), s.ResponseTsNs, &t.acc
	if ts >= t.lastLo && ts < t.lastHi && uint(i) < uint(len(a.flags)) && a.bucket == t.last/flowBucketRatio {
		// The common case: the bucket of the last frame, and a flow in
		// the sums of its flow bucket.
		t.accLatency(s, i)
		return
	}
	if t.tl.WidthNs == 0 {
		// Before the first frame reached the timelines (the batch path:
		// the sink runs before the loader sees the batch): the first
		// frame sets the origin, so the sample waits for it.
		t.early = append(t.early, *s)
		return
	}
	if j := t.slot(i, t.bucket(ts)/flowBucketRatio); j >= 0 {
		t.accLatency(s, j)
	}
}

// accLatency adds sample s (ack or read) to flow i's sums.
func (t *timelines) accLatency(s *flows.LatencySample, i int) {
	a := &t.acc
	if s.Kind == flows.LatencyRead {
		a.read[i] = max(a.read[i], s.LatencyNs())
		a.mark(i, accRead)
	} else {
		a.ack[i] = max(a.ack[i], s.LatencyNs())
		a.mark(i, accAck)
	}
}

// drainEarly adds the latency samples that came before the first frame.
func (t *timelines) drainEarly() {
	if len(t.early) == 0 || t.tl.WidthNs == 0 {
		return
	}
	early := t.early
	t.early = nil
	for k := range early {
		t.addLatency(&early[k])
	}
}

// widenMarks merges pairs of flow buckets after the grid doubled: CNP counts
// add, latency maxima keep the larger.
func (t *timelines) widenMarks() {
	merge := func(f *FlowRate, op func(a, b int64) int64) {
		if f == nil {
			return
		}
		for j := 0; j < flowBuckets/2; j++ {
			f[j] = op(f[2*j], f[2*j+1])
		}
		clear(f[flowBuckets/2:])
	}
	sum := func(a, b int64) int64 { return a + b }
	larger := func(a, b int64) int64 { return max(a, b) }
	for i, fm := range t.marks.flows {
		if fm == nil {
			continue
		}
		merge(fm.CNPs, sum)
		merge(fm.AckMaxNs, larger)
		merge(fm.ReadMaxNs, larger)
		t.marks.dirty[i] = true
	}
}

// publishMarks returns the marks for a snapshot: prev's entries where
// nothing changed, fresh copies of the others.
func (t *timelines) publishMarks(prev []*FlowMarks) []*FlowMarks {
	t.flushFlows()
	out := make([]*FlowMarks, len(t.marks.flows))
	copy(out, prev)
	all := slabAll(t.marks.dirty)
	var nm, ns int // with all, the slabs' sizes; else none: an object each
	if all {
		for _, fm := range t.marks.flows {
			if fm != nil {
				nm++
				ns += fm.series()
			}
		}
	}
	marks, series := make([]FlowMarks, nm), make([]FlowRate, ns)
	cp := func(f *FlowRate) *FlowRate {
		if f == nil {
			return nil
		}
		if len(series) == 0 {
			c := *f
			return &c
		}
		c := &series[0]
		*c, series = *f, series[1:]
		return c
	}
	for i, fm := range t.marks.flows {
		if fm != nil && (all || t.marks.dirty[i] || out[i] == nil) {
			var m *FlowMarks
			if len(marks) > 0 {
				m, marks = &marks[0], marks[1:]
			} else {
				m = new(FlowMarks)
			}
			*m = FlowMarks{CNPs: cp(fm.CNPs), AckMaxNs: cp(fm.AckMaxNs), ReadMaxNs: cp(fm.ReadMaxNs)}
			out[i] = m
			t.marks.dirty[i] = false
		}
	}
	return out
}

// slabAll reports whether a snapshot copies every flow's series into one
// array (a slab) rather than the changed ones into an object each: when
// most changed. A slab is kept alive by any of its copies, so the
// snapshots' copies that are not all new (the previous snapshot's kept)
// are objects of their own, and what older slabs stay alive is at most
// the one the previous copy-all made.
func slabAll(dirty []bool) bool {
	n := 0
	for _, d := range dirty {
		if d {
			n++
		}
	}
	return 2*n >= len(dirty)
}

// series returns how many of the three series fm has.
func (fm *FlowMarks) series() int {
	n := 0
	for _, f := range [...]*FlowRate{fm.CNPs, fm.AckMaxNs, fm.ReadMaxNs} {
		if f != nil {
			n++
		}
	}
	return n
}

// FlowMarksOf returns flow i's marks, or nil.
func (s *Snapshot) FlowMarksOf(i int) *FlowMarks {
	if i < 0 || i >= len(s.FlowMarks) {
		return nil
	}
	return s.FlowMarks[i]
}

// latencySink returns the flows.Config.LatencySink of the loader: the
// samples go to the flows' latency series, then to next (the caller's
// sink) when set. It runs during the engine's Observe, on the goroutine
// that calls observe (live: under the same lock), so it needs no lock.
func (l *loader) latencySink(next func(flows.LatencySample)) func(flows.LatencySample) {
	return func(s flows.LatencySample) {
		l.tl.addLatency(&s)
		if next != nil {
			next(s)
		}
	}
}

// ResampleMax does for a latency series what FlowRate.Resample does for a
// rate, keeping each column's largest bucket instead of the mean: a
// column's value is the worst latency of its time.
func (f *FlowRate) ResampleMax(tl *Timeline, n int) []float64 {
	used := max((tl.Used+flowBucketRatio-1)/flowBucketRatio, 1)
	v := f[:used]
	if n <= 0 {
		return nil
	}
	out := make([]float64, n)
	if len(v) <= n {
		for c := range out {
			out[c] = float64(v[c*len(v)/n])
		}
		return out
	}
	for c := range out {
		var m int64
		for _, x := range v[c*len(v)/n : (c+1)*len(v)/n] {
			m = max(m, x)
		}
		out[c] = float64(m)
	}
	return out
}

// total returns the sum of the buckets (a CNP count).
func (f *FlowRate) total() int64 {
	var n int64
	for _, x := range f {
		n += x
	}
	return n
}
