package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/rocetrace/rocetrace/internal/units"
)

// ccTextMax is the number of flows the text report's DCQCN section lists.
const ccTextMax = 20

// ccReaction writes the DCQCN reaction section: the flows with
// cc_reaction_cnps > 0, those with a cc_no_reaction finding first, at most
// ccTextMax. Nothing when no flow has a CNP with both rates.
func (tx *textWriter) ccReaction(r *Report) {
	noReaction := map[string]bool{}
	for _, f := range r.Findings {
		if f.Code == CodeCCNoReaction && f.Flow != nil {
			noReaction[*f.Flow] = true
		}
	}
	var first, rest []*FlowReport
	for i := range r.Flows {
		f := &r.Flows[i]
		switch {
		case f.CCReactionCNPs == 0 || f.CCRateRatioP50 == nil:
		case noReaction[f.ID]:
			first = append(first, f)
		default:
			rest = append(rest, f)
		}
	}
	list := append(first, rest...)
	if len(list) == 0 {
		return
	}
	tx.heading(fmt.Sprintf("== DCQCN reaction: %d flows with CNP rates (%d did not slow down)", len(list), len(first)), false)
	tw := tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	idW := len("FLOW")
	for _, f := range list[:min(len(list), ccTextMax)] {
		idW = max(idW, len(f.ID))
	}
	rates := ccMedianRates(r, list[:min(len(list), ccTextMax)])
	fmt.Fprintf(tw, "  %-*s\tCNPs WITH RATES\tRATE BEFORE (p50)\tRATE AFTER (p50)\tMEDIAN RATE AFTER/BEFORE\t  %s\n", idW, "FLOW", "REACTION")
	for _, f := range list[:min(len(list), ccTextMax)] {
		verdict := "slowed down"
		if noReaction[f.ID] {
			verdict = tx.paint(ansiYellow, "cc_no_reaction")
		} else if f.CCReactionCNPs < ccMinCNPs {
			verdict = "too few CNPs"
		}
		rb := rates[f.ID]
		fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%s\t%s\t  %s\n", idW, f.ID, num(f.CCReactionCNPs),
			units.BitRate(rb[0]), units.BitRate(rb[1]), strconv.FormatFloat(*f.CCRateRatioP50, 'f', 3, 64), verdict)
	}
	_ = tw.Flush()
	if len(list) > ccTextMax {
		tx.ew.printf("  ... %d more flows (use --json for all)\n", len(list)-ccTextMax)
	}
}

// ccMedianRates returns, for each of the listed flows, the nearest-rank
// medians (the ceil(n/2)-th smallest) of rate_before_bps and of
// rate_after_bps over the cnp events that target it with both rates (and
// rate_before_bps > 0, the CNPs cc_reaction_cnps counts): the contract's
// "Rates appear in the text report", next to the median ratio. The events
// are read rowChunk at a time (a lean report builds them from the table).
func ccMedianRates(r *Report, list []*FlowReport) map[string][2]int64 {
	byFlow := make(map[string][2][]int64, len(list))
	for _, f := range list {
		byFlow[f.ID] = [2][]int64{}
	}
	ec := r.eventCursor()
	for i := range r.NumEvents() {
		e := ec.at(i)
		if e.Kind != "cnp" || e.TargetFlow == nil || e.RateBeforeBps == nil || e.RateAfterBps == nil || *e.RateBeforeBps <= 0 {
			continue
		}
		v, ok := byFlow[*e.TargetFlow]
		if !ok {
			continue
		}
		v[0], v[1] = append(v[0], *e.RateBeforeBps), append(v[1], *e.RateAfterBps)
		byFlow[*e.TargetFlow] = v
	}
	out := make(map[string][2]int64, len(byFlow))
	for id, v := range byFlow {
		var m [2]int64
		for k := range v {
			if n := len(v[k]); n > 0 {
				slices.Sort(v[k])
				m[k] = v[k][nearestRank(50, n)-1]
			}
		}
		out[id] = m
	}
	return out
}
