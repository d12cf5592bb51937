package analysis

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/rocetrace/rocetrace/flows"
)

// Finding codes of the DCQCN reaction (issue 17).
const (
	CodeCCNoReaction     = "cc_no_reaction"     // warning: a flow's sender did not slow down after its CNPs
	CodeCNPIntervalShort = "cnp_interval_short" // info: CNPs to one flow closer than --cnp-interval
	CodeCNPMarking       = "cnp_marking"        // info: CNPs of one host not on --cnp-dscp / --cnp-pcp
)

// DefaultCNPIntervalNs is the default of Options.CNPIntervalNs: NVIDIA's
// min_time_between_cnps, 4 µs.
const DefaultCNPIntervalNs int64 = 4_000

// Defaults of Options.CNPDSCP and Options.CNPPCP: the DSCP and VLAN PCP
// NVIDIA NICs send CNPs with.
const (
	DefaultCNPDSCP = 48
	DefaultCNPPCP  = 6
)

// ccMinCNPs is the number of CNPs with both rates cc_no_reaction needs.
const ccMinCNPs = 3

// rateRatio is one CNP's rate_after_bps / rate_before_bps, kept exact.
type rateRatio struct{ after, before int64 }

// less reports whether a/b < c/d, in 128-bit integer arithmetic (every
// term is >= 0, before > 0).
func (r rateRatio) less(o rateRatio) bool {
	hi1, lo1 := bits.Mul64(uint64(r.after), uint64(o.before))
	hi2, lo2 := bits.Mul64(uint64(o.after), uint64(r.before))
	return hi1 < hi2 || (hi1 == hi2 && lo1 < lo2)
}

// above reports whether after/before > num/den.
func (r rateRatio) above(num, den int64) bool {
	return rateRatio{num, den}.less(r)
}

func (r rateRatio) float() float64 { return float64(r.after) / float64(r.before) }

// ccFlow is the DCQCN reaction of one target flow.
type ccFlow struct {
	ratios []rateRatio // CNPs with both rates (and rate_before_bps > 0), in event order
	median rateRatio   // nearest-rank p50 of ratios, when len(ratios) > 0
}

// ccReactions gathers, per target flow, the CNPs with both rates and their
// median ratio: the ceil(n/2)-th smallest, compared exactly.
func ccReactions(t *flows.Table) map[*flows.Flow]*ccFlow {
	m := map[*flows.Flow]*ccFlow{}
	for i := range t.NumEvents() {
		e := t.Event(i)
		if e.Kind != flows.EventCNP || e.Target == nil || !e.HasRateBefore() || !e.HasRateAfter() || e.RateBeforeBps() <= 0 {
			continue
		}
		c := m[e.Target]
		if c == nil {
			c = &ccFlow{}
			m[e.Target] = c
		}
		c.ratios = append(c.ratios, rateRatio{e.RateAfterBps(), e.RateBeforeBps()})
	}
	for _, c := range m {
		c.median = medianRatio(c.ratios)
	}
	return m
}

// medianRatio returns the nearest-rank p50 of rs (len > 0): the
// ceil(n/2)-th smallest, compared exactly.
func medianRatio(rs []rateRatio) rateRatio {
	s := slices.Clone(rs)
	slices.SortStableFunc(s, func(a, b rateRatio) int {
		switch {
		case a.less(b):
			return -1
		case b.less(a):
			return 1
		}
		return 0
	})
	return s[(len(s)+1)/2-1]
}

// ccFindings adds cc_no_reaction, cnp_interval_short and cnp_marking.
func (fd *finder) ccFindings(cc map[*flows.Flow]*ccFlow) {
	for _, f := range fd.t.Flows() {
		c := cc[f]
		// median > 0.95: after*100 > 95*before.
		if c != nil && len(c.ratios) >= ccMinCNPs && c.median.above(95, 100) {
			fd.add(SeverityWarning, CodeCCNoReaction, f,
				"the sender did not slow down after its CNPs: median rate after/before %.3f over %d CNPs (above 0.95: DCQCN off, or CNPs not reaching it)",
				c.median.float(), len(c.ratios))
		}
	}
	fd.cnpIntervals()
	fd.cnpMarking()
}

// cnpIntervals adds cnp_interval_short per target flow whose CNPs came
// closer together than opts.CNPIntervalNs.
func (fd *finder) cnpIntervals() {
	type stat struct {
		last, shortest int64
		seen, short    int
	}
	per := map[*flows.Flow]*stat{}
	for i := range fd.t.NumEvents() { // sorted by time
		e := fd.t.Event(i)
		if e.Kind != flows.EventCNP || e.Target == nil {
			continue
		}
		s := per[e.Target]
		if s == nil {
			s = &stat{}
			per[e.Target] = s
		}
		if s.seen > 0 {
			if d := e.TsNs - s.last; d < fd.opts.CNPIntervalNs {
				if s.short == 0 || d < s.shortest {
					s.shortest = d
				}
				s.short++
			}
		}
		s.seen++
		s.last = e.TsNs
	}
	for _, f := range fd.t.Flows() {
		if s := per[f]; s != nil && s.short > 0 {
			fd.add(SeverityInfo, CodeCNPIntervalShort, f,
				"%s to this flow came less than %s after the previous one (shortest %s): the notification point does not space CNPs by min_time_between_cnps",
				plural(int64(s.short), "CNP"), fmtDur(fd.opts.CNPIntervalNs), fmtDur(s.shortest))
		}
	}
}

// cnpMarking adds cnp_marking per host that sends CNPs with a DSCP other
// than opts.CNPDSCP or, tagged, a VLAN PCP other than opts.CNPPCP.
func (fd *finder) cnpMarking() {
	type host struct {
		dscp uint64
		pcp  uint16
	}
	hosts := map[string]*host{}
	var order []string // hosts in the first-seen order of their first CNP flow
	for _, f := range fd.t.Flows() {
		if f.CNPs == 0 {
			continue
		}
		ip := f.Key.Src.String()
		h := hosts[ip]
		if h == nil {
			h = &host{}
			hosts[ip] = h
			order = append(order, ip)
		}
		h.dscp |= f.CNPDSCPMask
		h.pcp |= f.CNPPCPMask
	}
	wantDSCP, wantPCP := *fd.opts.CNPDSCP, *fd.opts.CNPPCP
	for _, ip := range order {
		h := hosts[ip]
		badDSCP := h.dscp &^ (1 << uint(wantDSCP))
		badPCP := h.pcp & 0xFF &^ (1 << uint(wantPCP))
		var what string
		switch {
		case badDSCP != 0 && badPCP != 0:
			what = fmt.Sprintf("DSCP %s (expected %d) and VLAN priority %s (expected %d)", dscpList(badDSCP), wantDSCP, pcpList(badPCP), wantPCP)
		case badDSCP != 0:
			what = fmt.Sprintf("DSCP %s (expected %d)", dscpList(badDSCP), wantDSCP)
		case badPCP != 0:
			what = fmt.Sprintf("VLAN priority %s (expected %d)", pcpList(badPCP), wantPCP)
		default:
			continue
		}
		fd.add(SeverityInfo, CodeCNPMarking, nil,
			"CNPs sent by %s use %s: switches may queue them with data or drop them", ip, what)
	}
}
