package analysis

import (
	"strings"
	"testing"
)

// scaleReport has eight flows: six with problems, whose worst-first order
// is e (5 missing, 1 NAK), b (5 missing), a (1 missing), d (3 NAKs), g (4
// retransmitted), f (2 CNPs received); c and h have none. Findings: psn_gap
// on a, b and e (report order), nak on d, and two capture-wide info
// findings of one code.
func scaleReport() Report {
	fl := func(id string, missing, naks, retrans, cnpsRx int64) FlowReport {
		f := FlowReport{ID: id, Transport: "RC", Packets: 1, MissingPSNs: missing, NAKs: naks, Retransmitted: retrans, CNPsReceived: cnpsRx}
		if missing > 0 {
			f.PSNGaps = 1
		}
		return f
	}
	find := func(sev Severity, code, flow, msg string) Finding {
		f := Finding{Severity: sev, Code: code, Message: msg}
		if flow != "" {
			f.Flow = &flow
		}
		return f
	}
	return Report{
		Flows: []FlowReport{
			fl("a", 1, 0, 0, 0), fl("b", 5, 0, 0, 0), fl("c", 0, 0, 0, 0), fl("d", 0, 3, 0, 0),
			fl("e", 5, 1, 0, 0), fl("f", 0, 0, 0, 2), fl("g", 0, 0, 4, 0), fl("h", 0, 0, 0, 0),
		},
		Findings: []Finding{
			find(SeverityWarning, "mixed", "", "first capture-wide"),
			find(SeverityWarning, "mixed", "", "second capture-wide"),
			find(SeverityWarning, "psn_gap", "a", "msg a"),
			find(SeverityWarning, "psn_gap", "b", "msg b"),
			find(SeverityWarning, "nak", "d", "msg d"),
			find(SeverityWarning, "psn_gap", "e", "msg e"),
		},
	}
}

// tableIDs returns the flow ids of the text report's flow table rows.
func tableIDs(text string) []string {
	var ids []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "    FLOW "):
			in = true
		case in && strings.HasPrefix(line, "    "):
			ids = append(ids, strings.Fields(line)[0])
		default:
			in = false
		}
	}
	return ids
}

func TestTextAtScale(t *testing.T) {
	tests := []struct {
		name     string
		maxFlows int
		ids      string
		leftOut  string // "" = no such line
	}{
		// 3 listed (all problems): 3 problem flows and 2 clean ones left out.
		{"3 flows", 3, "e b a", "  ... 5 flows left out (3 with problems, 2 without): --all-flows lists every flow, --json has them all"},
		// 7 listed: the six problem flows and c; h left out.
		{"7 flows", 7, "e b a d g f c", "  ... 1 flow left out (0 with problems, 1 without): --all-flows lists every flow, --json has them all"},
		{"all flows", -1, "e b a d g f c h", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, scaleReport(), TextOptions{MaxFlows: tc.maxFlows}); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			if got := strings.Join(tableIDs(text), " "); got != tc.ids {
				t.Errorf("rows %q, want %q\n%s", got, tc.ids, text)
			}
			has := strings.Contains(text, " left out (")
			if tc.leftOut == "" && has || tc.leftOut != "" && !strings.Contains(text, tc.leftOut+"\n") {
				t.Errorf("want left-out line %q:\n%s", tc.leftOut, text)
			}
			// Findings: one line per code, in report order; psn_gap rolled
			// up with its worst flows in table order (e, b, a).
			_, findings, _ := strings.Cut(text, "== Findings: 6\n")
			want := "  WARNING mixed: 2 findings; the first: first capture-wide (--json lists every finding)\n" +
				"  WARNING psn_gap: 3 findings, worst [e] [b] [a]; the worst: msg e (--json lists every finding)\n" +
				"  WARNING nak [d]: msg d\n"
			if findings != want {
				t.Errorf("findings\n%s\nwant\n%s", findings, want)
			}
		})
	}
}
