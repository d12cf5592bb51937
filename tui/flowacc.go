package tui

// Per-flow series are summed first in dense arrays indexed by flow (8
// bytes a flow: 16 KB for 2,000 flows, in the cache), for the current flow
// bucket, and added to the flows' series (FlowRate and FlowMarks, 512
// bytes each, far apart in memory) when the bucket changes, the grid
// widens or a snapshot is published: one cache miss per flow and bucket
// instead of one per frame and latency sample.

// Flags of flowAcc.flags: what a flow has in the current bucket.
const (
	accBytes uint8 = 1 << iota
	accAck
	accRead
)

// flowAcc is the per-flow sums of the current flow bucket.
type flowAcc struct {
	bucket int     // the flow bucket summed (valid while used is not empty)
	bytes  []int64 // per flow: bytes
	ack    []int64 // per flow: largest ack latency sample
	read   []int64 // per flow: largest read latency sample
	flags  []uint8 // per flow: what it has (accBytes, accAck, accRead)
	used   []int32 // the flows with flags set
}

// slot returns flow i's index in the sums for flow bucket fb, flushing
// the sums of another bucket first; -1 past maxFlowRates.
func (t *timelines) slot(i, fb int) int {
	if a := &t.acc; uint(i) < uint(len(a.flags)) && a.bucket == fb {
		return i
	}
	return t.slotSlow(i, fb)
}

// slotSlow is slot for a new bucket or a flow past the arrays.
func (t *timelines) slotSlow(i, fb int) int {
	if i >= maxFlowRates || i < 0 {
		return -1
	}
	a := &t.acc
	if len(a.used) > 0 && a.bucket != fb {
		t.flushFlows()
	}
	a.bucket = fb
	if i >= len(a.flags) {
		n := min(max(i+1, 2*len(a.flags)), maxFlowRates)
		a.bytes = append(a.bytes, make([]int64, n-len(a.bytes))...)
		a.ack = append(a.ack, make([]int64, n-len(a.ack))...)
		a.read = append(a.read, make([]int64, n-len(a.read))...)
		a.flags = append(a.flags, make([]uint8, n-len(a.flags))...)
	}
	return i
}

// mark sets flag f of flow i, listing the flow at its first flag.
func (a *flowAcc) mark(i int, f uint8) {
	if a.flags[i] == 0 {
		a.used = append(a.used, int32(i))
	}
	a.flags[i] |= f
}

// flushFlows adds the sums to the flows' series and clears them.
func (t *timelines) flushFlows() {
	a := &t.acc
	fb := a.bucket
	for _, i32 := range a.used {
		i := int(i32)
		fl := a.flags[i]
		if fl&accBytes != 0 {
			t.flowRate(i)[fb] += a.bytes[i]
			t.dirty[i] = true
		}
		if fl&(accAck|accRead) != 0 {
			fm := t.marks.at(i)
			if fl&accAck != 0 {
				if fm.AckMaxNs == nil {
					fm.AckMaxNs = new(FlowRate)
				}
				fm.AckMaxNs[fb] = max(fm.AckMaxNs[fb], a.ack[i])
			}
			if fl&accRead != 0 {
				if fm.ReadMaxNs == nil {
					fm.ReadMaxNs = new(FlowRate)
				}
				fm.ReadMaxNs[fb] = max(fm.ReadMaxNs[fb], a.read[i])
			}
		}
		a.bytes[i], a.ack[i], a.read[i], a.flags[i] = 0, 0, 0, 0
	}
	a.used = a.used[:0]
}

// flowRate returns flow i's rate series, made on first use (i below
// maxFlowRates).
func (t *timelines) flowRate(i int) *FlowRate {
	for len(t.flows) <= i {
		t.flows = append(t.flows, nil)
		t.dirty = append(t.dirty, false)
	}
	f := t.flows[i]
	if f == nil {
		f = new(FlowRate)
		t.flows[i] = f
	}
	return f
}
