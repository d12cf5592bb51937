package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Text report at scale (contract "Text report at scale"): problem flows
// worst first, an exact "left out" line, findings rolled up per code.

// rolledFlows is how many flows a rolled-up findings line names.
const rolledFlows = 3

// compareWorst orders problem flows worst first: most missing PSNs, then
// NAKs, retransmitted packets, CNPs received; equal flows keep first-seen
// order (the sort is stable).
func compareWorst(a, b *FlowReport) int {
	if c := cmp.Compare(b.MissingPSNs, a.MissingPSNs); c != 0 {
		return c
	}
	if c := cmp.Compare(b.NAKs, a.NAKs); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Retransmitted, a.Retransmitted); c != 0 {
		return c
	}
	return cmp.Compare(b.CNPsReceived, a.CNPsReceived)
}

// splitFlows returns the problem flows worst first and the other flows in
// first-seen order.
func splitFlows(all []FlowReport) (problems, clean []*FlowReport) {
	for i := range all {
		if hasProblem(&all[i]) {
			problems = append(problems, &all[i])
		} else {
			clean = append(clean, &all[i])
		}
	}
	slices.SortStableFunc(problems, compareWorst)
	return problems, clean
}

// leftOut is the line after the flow table when some flows are not listed.
func leftOut(problems, clean int) string {
	what := "flows"
	if problems+clean == 1 {
		what = "flow"
	}
	return fmt.Sprintf("  ... %d %s left out (%d with problems, %d without): --all-flows lists every flow, --json has them all\n",
		problems+clean, what, problems, clean)
}

// findingGroup is the findings of one code, in report order.
type findingGroup struct {
	code  string
	items []*Finding
}

// groupFindings groups findings by code, the groups in the order of their
// first finding (the report's order: severity first).
func groupFindings(findings []Finding) []findingGroup {
	var groups []findingGroup
	at := make(map[string]int)
	for i := range findings {
		f := &findings[i]
		j, ok := at[f.Code]
		if !ok {
			j = len(groups)
			at[f.Code] = j
			groups = append(groups, findingGroup{code: f.Code})
		}
		groups[j].items = append(groups[j].items, f)
	}
	return groups
}

// worstFirst sorts a group's findings by the rank of their flow in the flow
// table (rank: flow id -> position, problem flows worst first); findings of
// no flow or of an unranked flow keep their order after the ranked ones.
func worstFirst(items []*Finding, rank map[string]int) []*Finding {
	s := slices.Clone(items)
	pos := func(f *Finding) int {
		if f.Flow != nil {
			if r, ok := rank[*f.Flow]; ok {
				return r
			}
		}
		return len(rank)
	}
	slices.SortStableFunc(s, func(a, b *Finding) int { return cmp.Compare(pos(a), pos(b)) })
	return s
}

// rolledUp is the one line of a code's findings: the code as written, the
// count, the worst few flows (capture-wide findings have none), the
// message of the worst (of the first, for capture-wide findings).
func rolledUp(sev string, g findingGroup, rank map[string]int) string {
	items := worstFirst(g.items, rank)
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %s: %d findings", sev, g.code, len(items))
	var ids []string
	for _, f := range items {
		if f.Flow != nil && len(ids) < rolledFlows {
			ids = append(ids, "["+*f.Flow+"]")
		}
	}
	if len(ids) > 0 {
		fmt.Fprintf(&b, ", worst %s", strings.Join(ids, " "))
	}
	which := "the worst"
	if items[0].Flow == nil {
		which = "the first" // capture-wide findings are not ranked
	}
	fmt.Fprintf(&b, "; %s: %s (--json lists every finding)\n", which, items[0].Message)
	return b.String()
}
