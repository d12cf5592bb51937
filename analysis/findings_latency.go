package analysis

import (
	"fmt"
	"strings"

	"github.com/rocetrace/rocetrace/flows"
)

// CodePMTUMismatch is the finding of a flow with psn_conflict events: the
// requester numbered a request inside its latest READ's range, so the two
// ends disagree on the path MTU.
const CodePMTUMismatch = "pmtu_mismatch"

// localAckTimeoutNs is the unit of the QP's local ACK timeout attribute:
// 4.096 µs x 2^k.
const localAckTimeoutNs = 4096

// TimeoutK returns the smallest k in 0..31 with 4.096 µs x 2^k >= idleNs,
// and false when even k = 31 is shorter.
func TimeoutK(idleNs int64) (int, bool) {
	for k := range 32 {
		if int64(localAckTimeoutNs)<<k >= idleNs {
			return k, true
		}
	}
	return 0, false
}

// timeoutDetail returns the retransmission_timeout finding's extra fields
// and message tail for the shortest idle of the flow's timeouts.
func timeoutDetail(idleNs int64) (k *int, tail string) {
	kk, ok := TimeoutK(idleNs)
	if !ok {
		return nil, fmt.Sprintf("; shortest idle %s, longer than any QP timeout", fmtDur(idleNs))
	}
	return &kk, fmt.Sprintf("; shortest idle %s: QP timeout attribute k = %d (4.096 µs x 2^%d = %s)",
		fmtDur(idleNs), kk, kk, fmtDur(int64(localAckTimeoutNs)<<kk))
}

// pmtuList names the PMTUs of a mask (bit i: 256<<i), "2048 or 4096", or
// "none of 256..4096".
func pmtuList(mask uint8) string {
	var parts []string
	for i := range 5 {
		if mask&(1<<i) != 0 {
			parts = append(parts, fmt.Sprint(256<<i))
		}
	}
	if len(parts) == 0 {
		return "none of 256..4096"
	}
	return strings.Join(parts, " or ")
}

// pmtuMismatch adds one pmtu_mismatch finding (error) per flow with
// psn_conflict events, from its first one.
func (fd *finder) pmtuMismatch() {
	type conflicts struct {
		n     int64
		first *flows.Event
	}
	by := map[*flows.Flow]*conflicts{}
	var order []*flows.Flow
	for i := range fd.t.NumEvents() {
		e := fd.t.Event(i)
		if e.Kind != flows.EventPSNConflict {
			continue
		}
		c := by[e.Flow]
		if c == nil {
			c = &conflicts{first: e}
			by[e.Flow] = c
			order = append(order, e.Flow)
		}
		c.n++
	}
	for _, f := range order {
		c := by[f]
		e := c.first
		fd.add(SeverityError, CodePMTUMismatch, f,
			"%s: requester behaves as PMTU %s, responder as %s (first at %s: the READ at PSN %d took %s, the next request came at +%d)",
			plural(c.n, "PSN conflict"), pmtuList(e.SenderPMTUs()), pmtuList(e.ResponderPMTUs()),
			fmtTs(e.TsNs, fd.c.FirstTsNs), e.ReadPSN(), plural(int64(e.ReadSpan()), "PSN"), e.SenderSpan())
	}
}
