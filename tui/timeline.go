package tui

import "github.com/rocetrace/rocetrace/flows"

// Timelines: per-bucket counters the loader collects while it reads, for
// the charts. There is a fixed number of buckets; the first frame sets the
// origin and buckets start 1 µs wide. When a frame falls past the last
// bucket, the width doubles and neighbouring buckets merge, so the buckets
// always cover the capture so far with at most 2x too many empty ones at
// the end. Per-flow byte counts use the same grid, four buckets to one.

// Series names one counter of a Timeline.
type Series int

// The timeline series.
const (
	SeriesBytes    Series = iota // wire bytes of every frame
	SeriesPackets                // frames
	SeriesCE                     // frames marked ECN CE
	SeriesCNP                    // CNP frames
	SeriesPaused                 // nanoseconds of pause (sum over PFC keys) from the pause episodes
	SeriesProblems               // psn_gap, retransmission, nak and rnr_nak events
	numSeries
)

const (
	timelineBuckets = 256
	flowBucketRatio = 4
	flowBuckets     = timelineBuckets / flowBucketRatio
	firstWidthNs    = 1_000
)

// Timeline is a set of counters per time bucket: bucket b covers
// [OriginNs + b*WidthNs, OriginNs + (b+1)*WidthNs).
type Timeline struct {
	OriginNs int64
	WidthNs  int64 // 0: no frame yet
	Used     int   // buckets up to the latest one touched
	EndNs    int64 // time of the latest frame (the span's end: the charts' axis ends there)
	V        [numSeries][timelineBuckets]int64
}

// FlowRate is one flow's wire bytes per bucket of its Timeline's grid with
// buckets flowBucketRatio times wider.
type FlowRate [flowBuckets]int64

// timelines is the loader's mutable state: the capture timeline and one
// FlowRate per flow (allocated for the first maxFlowRates flows).
type timelines struct {
	tl    Timeline
	flows []*FlowRate
	dirty []bool
	marks flowMarks             // per-flow CNP and latency series (flowmarks.go)
	acc   flowAcc               // the per-flow sums of the current flow bucket (flowacc.go)
	early []flows.LatencySample // latency samples before the first frame (drainEarly)

	// The last bucket returned and its span [lastLo, lastHi): frames come
	// in time order, so most fall in it and need no division.
	last           int
	lastLo, lastHi int64
}

// maxFlowRates bounds the per-flow rate memory (512 bytes a flow).
const maxFlowRates = 1 << 16

// bucket returns the bucket of ts, widening the grid as needed. Times before
// the origin (unsorted input) count in bucket 0.
func (t *timelines) bucket(ts int64) int {
	if ts >= t.lastLo && ts < t.lastHi {
		return t.last
	}
	tl := &t.tl
	if tl.WidthNs == 0 {
		tl.OriginNs, tl.WidthNs, tl.Used = ts, firstWidthNs, 1
	}
	d := ts - tl.OriginNs
	if d < 0 {
		return 0
	}
	for d/tl.WidthNs >= timelineBuckets {
		t.widen()
	}
	b := int(d / tl.WidthNs)
	if b+1 > tl.Used {
		tl.Used = b + 1
	}
	t.last = b
	t.lastLo = tl.OriginNs + int64(b)*tl.WidthNs
	t.lastHi = t.lastLo + tl.WidthNs
	return b
}

// SpanNs is the time from the first frame to the latest (at least one
// bucket, so that a chart of one frame has a width).
func (tl *Timeline) SpanNs() int64 {
	return max(tl.EndNs-tl.OriginNs, tl.WidthNs)
}

// ColumnNs is the time one of cols chart columns covers: the span over the
// columns, or one bucket when the buckets are fewer than the columns.
func (tl *Timeline) ColumnNs(cols int) int64 {
	if cols <= 0 {
		return tl.SpanNs()
	}
	return max(tl.SpanNs()/int64(cols), tl.WidthNs)
}

// widen doubles the bucket width, merging pairs of buckets.
func (t *timelines) widen() {
	t.flushFlows() // the sums are of a bucket of the grid before
	tl := &t.tl
	for s := range tl.V {
		v := &tl.V[s]
		for i := 0; i < timelineBuckets/2; i++ {
			v[i] = v[2*i] + v[2*i+1]
		}
		clear(v[timelineBuckets/2:])
	}
	tl.WidthNs *= 2
	tl.Used = (tl.Used + 1) / 2
	t.lastLo, t.lastHi = 0, 0
	for i, f := range t.flows {
		if f == nil {
			continue
		}
		for j := 0; j < flowBuckets/2; j++ {
			f[j] = f[2*j] + f[2*j+1]
		}
		clear(f[flowBuckets/2:])
		t.dirty[i] = true
	}
	t.widenMarks()
}

// add adds v to series s at ts.
func (t *timelines) add(s Series, ts, v int64) {
	t.tl.V[s][t.bucket(ts)] += v
}

// addSpan adds the nanoseconds of [start, end) that fall in each bucket to
// series s.
func (t *timelines) addSpan(s Series, start, end int64) {
	if end <= start {
		return
	}
	t.bucket(end - 1) // widen first: the whole span must fit
	first := t.bucket(start)
	tl := &t.tl
	for b := first; b < timelineBuckets; b++ {
		lo := max(start, tl.OriginNs+int64(b)*tl.WidthNs)
		hi := min(end, tl.OriginNs+int64(b+1)*tl.WidthNs)
		if hi <= lo {
			break
		}
		tl.V[s][b] += hi - lo
	}
}

// addFlow adds n bytes at ts to flow i's rate (into the series at once).
func (t *timelines) addFlow(i int, ts, n int64) {
	t.addFlowAt(i, t.bucket(ts), n)
	t.flushFlows()
}

// addFlowAt adds n bytes to flow i's rate in the flow bucket of timeline
// bucket b (as bucket returned it), in the sums of flowacc.go.
func (t *timelines) addFlowAt(i, b int, n int64) {
	a := &t.acc
	if fb := b / flowBucketRatio; uint(i) >= uint(len(a.flags)) || a.bucket != fb {
		if t.slotSlow(i, fb) < 0 {
			return
		}
	}
	a.bytes[i] += n
	a.mark(i, accBytes)
}

// publishFlows returns the flow rates for a snapshot: prev's entries where
// nothing changed, fresh copies of the others.
func (t *timelines) publishFlows(prev []*FlowRate) []*FlowRate {
	t.flushFlows()
	out := make([]*FlowRate, len(t.flows))
	copy(out, prev)
	var copies []FlowRate // a slab when most flows changed (slabAll)
	if slabAll(t.dirty) {
		copies = make([]FlowRate, len(t.flows))
	}
	for i, f := range t.flows {
		if f != nil && (copies != nil || t.dirty[i] || out[i] == nil) {
			var c *FlowRate
			if copies != nil {
				c = &copies[i]
			} else {
				c = new(FlowRate)
			}
			*c = *f
			out[i] = c
			t.dirty[i] = false
		}
	}
	return out
}

// Resample averages series s into n columns over the used buckets: each
// column's value is the mean of its buckets (so columns holding one bucket
// more than their neighbours do not stand out), and the second result is
// the time one value covers (one bucket). With fewer used buckets than
// columns, each bucket spans several columns.
func (tl *Timeline) Resample(s Series, n int) ([]float64, int64) {
	return resample(tl.V[s][:max(tl.Used, 1)], n, tl.WidthNs)
}

// Resample does for a flow's rate what Timeline.Resample does, over the
// flow buckets that the capture timeline uses.
func (f *FlowRate) Resample(tl *Timeline, n int) ([]float64, int64) {
	used := max((tl.Used+flowBucketRatio-1)/flowBucketRatio, 1)
	return resample(f[:used], n, tl.WidthNs*flowBucketRatio)
}

func resample(v []int64, n int, width int64) ([]float64, int64) {
	if n <= 0 {
		return nil, width
	}
	out := make([]float64, n)
	if len(v) <= n {
		for c := range out {
			out[c] = float64(v[c*len(v)/n])
		}
		return out, width
	}
	for c := range out {
		lo, hi := c*len(v)/n, (c+1)*len(v)/n
		var sum int64
		for b := lo; b < hi; b++ {
			sum += v[b]
		}
		out[c] = float64(sum) / float64(hi-lo)
	}
	return out, width
}

// PauseSpans buckets pause intervals [start, end) into n columns over the
// timeline's used span: the mean paused nanoseconds per bucket in each
// column, and the bucket width. It serves the PFC view's chart for one key.
func (tl *Timeline) PauseSpans(spans [][2]int64, n int) ([]float64, int64) {
	var t timelines
	t.tl.OriginNs, t.tl.WidthNs, t.tl.Used = tl.OriginNs, tl.WidthNs, tl.Used
	if t.tl.WidthNs == 0 {
		return make([]float64, n), 0
	}
	for _, sp := range spans {
		t.addSpan(SeriesPaused, sp[0], sp[1])
	}
	span := int64(tl.Used) * tl.WidthNs // the capture's span must stay the chart's
	t.tl.Used = max(t.tl.Used, int((span+t.tl.WidthNs-1)/t.tl.WidthNs))
	return t.tl.Resample(SeriesPaused, n)
}
