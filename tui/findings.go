package tui

import (
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
)

// The overview's findings, grouped by code: one row per code (in the
// report's order of first appearance: most serious first) with its count,
// the flow and message of its first finding; Enter on a group of several
// opens it (its findings follow it, indented) or closes it, Enter on a
// single finding opens what it is about: its flow, or for a PFC finding
// (no flow) the PFC entry whose source MAC and priority its message names.

// findingGroup is the findings of one code: indices into Report.Findings.
type findingGroup struct {
	code    string
	members []int32
}

// groupFindings groups the report's findings by code.
func groupFindings(r *analysis.Report) []findingGroup {
	var out []findingGroup
	at := map[string]int{}
	for i := range r.Findings {
		c := r.Findings[i].Code
		g, ok := at[c]
		if !ok {
			g = len(out)
			at[c] = g
			out = append(out, findingGroup{code: c})
		}
		out[g].members = append(out[g].members, int32(i))
	}
	return out
}

// findingRow is one row of the findings table: a group (member -1) or one
// finding of an open group.
type findingRow struct {
	group  int
	member int
}

// findingRows lists the groups, each open one followed by its findings.
func findingRows(groups []findingGroup, open map[string]bool) []findingRow {
	rows := make([]findingRow, 0, len(groups))
	for g := range groups {
		rows = append(rows, findingRow{group: g, member: -1})
		if open[groups[g].code] && len(groups[g].members) > 1 {
			for m := range groups[g].members {
				rows = append(rows, findingRow{group: g, member: m})
			}
		}
	}
	return rows
}

var findingColumns = []column{
	{title: "Sev"}, {title: "Code"}, {title: "Count", right: true}, {title: "Flow", max: 48}, {title: "Message", expand: 1},
}

// findingContent is the findings table over rows.
func findingContent(r *analysis.Report, groups []findingGroup, rows []findingRow, open map[string]bool) *tableContent {
	return &tableContent{
		cols: findingColumns, n: len(rows), sortCol: -1,
		cell: func(row, col int) (string, mark) {
			fr := rows[row]
			g := &groups[fr.group]
			f := &r.Findings[g.members[max(fr.member, 0)]]
			m := markNone
			switch f.Severity {
			case analysis.SeverityError:
				m = markProblem
			case analysis.SeverityWarning:
				m = markCongestion
			case analysis.SeverityInfo:
			}
			switch col {
			case 0:
				if fr.member >= 0 {
					return "", m
				}
				return strings.ToUpper(string(f.Severity)[:1]), m // E, W, I: the colour says it too
			case 1:
				if fr.member >= 0 {
					return "  └", m
				}
				if len(g.members) > 1 {
					if open[g.code] {
						return "▾ " + g.code, m
					}
					return "▸ " + g.code, m
				}
				return g.code, m
			case 2:
				if fr.member >= 0 {
					return "", m
				}
				return strconv.Itoa(len(g.members)), m
			case 3:
				if fr.member < 0 && len(g.members) > 1 {
					return plural(int64(len(g.members)), "finding"), m
				}
				return optString(f.Flow), m
			}
			return f.Message, m
		},
	}
}

// pfcOfFinding returns the PFC entry a finding without a flow is about:
// the one whose source MAC and priority ("priority N", or "802.3x PAUSE")
// its message names; -1 when none does.
func pfcOfFinding(r *analysis.Report, f *analysis.Finding) int {
	for i := range r.PFC {
		p := &r.PFC[i]
		name := "802.3x PAUSE"
		if p.Priority != nil {
			name = "priority " + strconv.Itoa(*p.Priority)
		}
		if strings.Contains(f.Message, p.SrcMAC) && strings.Contains(f.Message, name) {
			return i
		}
	}
	return -1
}
