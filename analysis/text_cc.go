package analysis

import (
	"fmt"
	"strconv"
	"text/tabwriter"
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
	fmt.Fprintf(tw, "  %-*s\tCNPs WITH RATES\tMEDIAN RATE AFTER/BEFORE\t  %s\n", idW, "FLOW", "REACTION")
	for _, f := range list[:min(len(list), ccTextMax)] {
		verdict := "slowed down"
		if noReaction[f.ID] {
			verdict = tx.paint(ansiYellow, "cc_no_reaction")
		} else if f.CCReactionCNPs < ccMinCNPs {
			verdict = "too few CNPs"
		}
		fmt.Fprintf(tw, "  %-*s\t%s\t%s\t  %s\n", idW, f.ID, num(f.CCReactionCNPs),
			strconv.FormatFloat(*f.CCRateRatioP50, 'f', 3, 64), verdict)
	}
	_ = tw.Flush()
	if len(list) > ccTextMax {
		tx.ew.printf("  ... %d more flows (use --json for all)\n", len(list)-ccTextMax)
	}
}
