package analysis

import (
	"fmt"
	"text/tabwriter"
)

// maxLostListed is the number of lost frames the text report lists under a
// hop (the JSON has them all as hop_loss events).
const maxLostListed = 10

// points writes the capture points and the hops, with the lost frames of
// each hop under it (at most maxLostListed).
func (tx *textWriter) points(r *Report) {
	tx.heading(fmt.Sprintf("== Capture points: %d (reference, whose analysis the report shows: %s)", len(r.Points), r.Points[0].Name), false)
	tw := tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-12s\tPACKETS\tROCE PKTS\t  FILES\n", "POINT")
	for _, p := range r.Points {
		fmt.Fprintf(tw, "  %-12s\t%s\t%s\t  %s\n", p.Name, num(p.Packets), num(p.RoCEPackets), joinFiles(p.Files))
	}
	_ = tw.Flush()
	tx.heading(fmt.Sprintf("== Hops: %d (delay = time at TO - time at FROM: it includes any clock offset between the points)", len(r.Hops)), false)
	if len(r.Hops) == 0 {
		tx.ew.printf("  no frame matched between the points\n")
		return
	}
	lost := lostByHop(r.Events)
	tw = tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-36s  %-10s  %-10s\tMATCHED\tLOST\tUNSEEN UPSTREAM\tDELAY P50\tP99\tMAX\t\n", "FLOW", "FROM", "TO")
	for _, h := range r.Hops {
		row := fmt.Sprintf("  %-36s  %-10s  %-10s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", h.Flow, h.From, h.To, num(h.Matched),
			num(h.Lost), num(h.UnseenUpstream), fmtDur(h.Delay.P50Ns), fmtDur(h.Delay.P99Ns), fmtDur(h.Delay.MaxNs))
		if h.Lost > 0 {
			row = tx.paint(ansiRed, row)
		}
		fmt.Fprint(tw, row)
	}
	_ = tw.Flush()
	tx.lostFrames(r, lost)
}

// lostFrames lists the lost frames under their flow and hop, at most
// maxLostListed per hop.
func (tx *textWriter) lostFrames(r *Report, lost map[hopID][]*EventReport) {
	for _, h := range r.Hops {
		evs := lost[hopID{h.Flow, h.From, h.To}]
		if len(evs) == 0 {
			continue
		}
		tx.ew.printf("  %s lost between %s and %s:\n", h.Flow, h.From, h.To)
		for i, e := range evs {
			if i == maxLostListed {
				tx.ew.printf("    ... %d more (report --json: hop_loss events)\n", len(evs)-maxLostListed)
				break
			}
			tx.ew.printf("    PSN %d %s at %s (time at %s)\n", *e.PSN, *e.OpcodeName, fmtTs(e.TsNs, r.Capture.FirstTsNs), h.From)
		}
	}
}

type hopID struct{ flow, from, to string }

// lostByHop returns the hop_loss events by hop.
func lostByHop(evs []EventReport) map[hopID][]*EventReport {
	m := map[hopID][]*EventReport{}
	for i := range evs {
		e := &evs[i]
		if e.Kind == "hop_loss" && e.Flow != nil && e.From != nil && e.To != nil {
			k := hopID{*e.Flow, *e.From, *e.To}
			m[k] = append(m[k], e)
		}
	}
	return m
}

func joinFiles(fs []string) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += f
	}
	return s
}
