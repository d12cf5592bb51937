package analysis

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocetrace/rocetrace/internal/units"
)

// TextOptions tunes WriteText.
type TextOptions struct {
	Color    bool // ANSI colours for severities and problem rows
	MaxFlows int  // flows listed (problem flows first); 0 = 50, negative = all
}

const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// errWriter keeps the first write error so the report code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, nil
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// hasProblem reports whether a flow shows loss, replays, NAKs or congestion.
func hasProblem(f *FlowReport) bool {
	return f.PSNGaps > 0 || f.Retransmitted > 0 || f.NAKs > 0 || f.RNRNAKs > 0 || f.ECNCE > 0 || f.CNPsReceived > 0
}

// WriteText writes the human report: capture summary, flows (problem flows
// first, worst first) in an aligned table, CNP latency, PFC per port and
// priority, and findings (several of one code rolled up into one line).
// Every number carries its unit.
func WriteText(w io.Writer, r Report, opts TextOptions) error {
	r.materializeFlows() // r is a copy: a lean report's flow rows live until the text is written
	tx := &textWriter{ew: &errWriter{w: w}, color: opts.Color}
	tx.capture(&r.Capture)
	rank := tx.flows(r.Flows, opts.MaxFlows)
	r.Await() // a lean report's findings and latency, computed while the flows were written
	tx.latency(r.CNPLatency)
	tx.ccReaction(&r)
	tx.responseLatency(r.Latency)
	tx.pfc(r.PFC, r.Capture.LastTsNs-r.Capture.FirstTsNs)
	if len(r.Points) > 0 { // capture points (--point)
		tx.points(&r)
	}
	tx.findings(r.Findings, rank)
	return tx.ew.err
}

// textWriter writes the sections of the text report.
type textWriter struct {
	ew    *errWriter
	color bool
}

// paint wraps s in the ANSI code when colours are on.
func (tx *textWriter) paint(code, s string) string {
	if !tx.color {
		return s
	}
	return code + s + ansiReset
}

// heading writes a section heading, after a blank line unless first.
func (tx *textWriter) heading(title string, first bool) {
	if first {
		tx.ew.printf("%s\n", tx.paint(ansiBold, title))
	} else {
		tx.ew.printf("\n%s\n", tx.paint(ansiBold, title))
	}
}

// capture writes the capture summary.
func (tx *textWriter) capture(c *CaptureSummary) {
	dur := c.LastTsNs - c.FirstTsNs
	tx.heading("== Capture", true)
	if c.Interrupted { // first: a reader of stdout alone must not take it for the whole capture
		tx.ew.printf("  %s\n", tx.paint(ansiRed, "INTERRUPTED after "+num(c.Packets)+" frames: the report covers only the frames read"))
	}
	tw := tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', 0)
	if len(c.Files) > 0 {
		fmt.Fprintf(tw, "  files\t%s\n", strings.Join(c.Files, ", "))
	}
	other := c.Packets - c.FilteredOut - c.RoCEPackets - c.PFCFrames - c.PauseFrames
	fmt.Fprintf(tw, "  frames\t%s frames: RoCE %s (%s, CNP %s), PFC %s, PAUSE %s, other %s\n",
		num(c.Packets), num(c.RoCEPackets), pct(c.RoCEPackets, c.Packets), num(c.CNPPackets),
		num(c.PFCFrames), num(c.PauseFrames), num(other))
	if c.Packets > 0 {
		fmt.Fprintf(tw, "  time\t%s to %s (%s)\n", utc(c.FirstTsNs), utc(c.LastTsNs), fmtDur(dur))
	}
	fmt.Fprintf(tw, "  truncated\t%s frames (%s; caplen < wire length)\n", num(c.Truncated), pct(c.Truncated, c.Packets))
	fmt.Fprintf(tw, "  malformed\t%s frames\n", num(c.Malformed))
	ok := c.RoCEPackets - c.ICRCBad - c.ICRCUnchecked
	fmt.Fprintf(tw, "  ICRC\t%s ok, %s bad, %s unchecked (frame cut short) of %s RoCE frames\n",
		num(max(ok, 0)), num(c.ICRCBad), num(c.ICRCUnchecked), num(c.RoCEPackets))
	if c.KernelDrops > 0 || isLive(c.Files) {
		fmt.Fprintf(tw, "  kernel drops\t%s frames lost by the capture itself (not by the fabric)\n", num(c.KernelDrops))
	}
	if c.FilteredOut > 0 {
		fmt.Fprintf(tw, "  filtered out\t%s dropped by the read filter (-R), in no counter but frames\n", plural(c.FilteredOut, "frame"))
	}
	if c.FlowsDropped > 0 {
		fmt.Fprintf(tw, "  flows dropped\t%s of flows beyond --max-flows, in no flow\n", plural(c.FlowsDropped, "frame"))
	}
	_ = tw.Flush()
}

// flows writes the flow table: problem flows worst first, then the others,
// at most maxFlows (0: 50, negative: all). It returns each listed flow's
// row (flow id -> position), the order findings are rolled up by.
func (tx *textWriter) flows(all []FlowReport, maxFlows int) map[string]int {
	problems, clean := splitFlows(all)
	list := append(problems, clean...)
	rank := make(map[string]int, len(problems))
	for i, f := range problems {
		rank[f.ID] = i
	}
	limit := maxFlows
	if limit == 0 {
		limit = 50
	}
	if limit < 0 || limit > len(list) {
		limit = len(list)
	}
	tx.heading(fmt.Sprintf("== Flows: %d (%d with problems, listed first)", len(all), len(problems)), false)
	if len(list) == 0 {
		return rank
	}
	// The text columns are padded by hand so that tabwriter can
	// right-align the numbers.
	idW, trW := len("FLOW"), len("TRANSPORT")
	for _, f := range list[:limit] {
		idW, trW = max(idW, len(f.ID)), max(trW, len(f.Transport))
	}
	tw := tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-*s  %-*s  %-10s\tPACKETS\tBYTES\tPAYLOAD\tDURATION\tGOODPUT\tPEAK\tPSN GAPS\tMISSING PSNs\tRETRANSMITTED PKTS\tNAKs\tRNR NAKs\tCE PKTS\tCNPs SENT\tCNPs RECEIVED\t\n",
		idW, "FLOW", trW, "TRANSPORT", "PEER QP")
	for _, f := range list[:limit] {
		peer := "-"
		if f.Peer != nil {
			if i := strings.LastIndex(*f.Peer, ":qp"); i >= 0 {
				peer = (*f.Peer)[i+1:]
			}
		}
		goodput := "-"
		if f.GoodputBps != nil {
			goodput = units.BitRate(*f.GoodputBps)
		}
		fmt.Fprintf(tw, "  %-*s  %-*s  %-10s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			idW, f.ID, trW, f.Transport, peer, num(f.Packets), fmtBytes(f.Bytes), fmtBytes(f.PayloadBytes),
			fmtDur(f.LastTsNs-f.FirstTsNs), goodput, units.BitRate(f.PeakBps), num(f.PSNGaps), num(f.MissingPSNs),
			num(f.Retransmitted), num(f.NAKs), num(f.RNRNAKs), num(f.ECNCE), num(f.CNPs), num(f.CNPsReceived))
	}
	_ = tw.Flush()
	if limit < len(list) {
		shownProblems := min(limit, len(problems))
		tx.ew.printf("%s", leftOut(len(problems)-shownProblems, len(clean)-(limit-shownProblems)))
	}
	return rank
}

// latency writes the CNP latency summary.
func (tx *textWriter) latency(l LatencySummary) {
	tx.heading("== CNP latency (first CE mark -> CNP)", false)
	if l.Count == 0 {
		tx.ew.printf("  no samples\n")
	} else {
		tx.ew.printf("  %s: min %s  p50 %s  p99 %s  max %s\n", plural(l.Count, "sample"), us(l.MinNs), us(l.P50Ns), us(l.P99Ns), us(l.MaxNs))
	}
}

// pfc writes the PFC table; dur is the capture's duration (for the share).
func (tx *textWriter) pfc(pfc []PFCReport, dur int64) {
	tx.heading("== PFC / PAUSE", false)
	if len(pfc) == 0 {
		tx.ew.printf("  none\n")
		return
	}
	tw := tabwriter.NewWriter(tx.ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-17s  %-12s\tFRAMES\tXON FRAMES\tEPISODES\tPAUSED\tLONGEST\tSHARE OF CAPTURE\t\n", "SRC MAC", "PRIORITY")
	for _, p := range pfc {
		prio := "all (802.3x)"
		if p.Priority != nil {
			prio = strconv.Itoa(*p.Priority)
		}
		fmt.Fprintf(tw, "  %-17s  %-12s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.SrcMAC, prio, num(p.Frames), num(p.XONFrames),
			num(p.Episodes), fmtDur(p.PausedNs), fmtDur(p.LongestNs), pct(p.PausedNs, dur))
	}
	_ = tw.Flush()
}

// findings writes the findings, severity first: one line per finding, or,
// for a code with several, one rolled-up line (rolledUp) naming its worst
// flows by rank (flow id -> position in the flow table).
func (tx *textWriter) findings(findings []Finding, rank map[string]int) {
	tx.heading(fmt.Sprintf("== Findings: %d", len(findings)), false)
	if len(findings) == 0 {
		tx.ew.printf("  none\n")
	}
	for _, g := range groupFindings(findings) {
		f := g.items[0]
		sev := strings.ToUpper(string(f.Severity))
		switch f.Severity {
		case SeverityError:
			sev = tx.paint(ansiRed, sev)
		case SeverityWarning:
			sev = tx.paint(ansiYellow, sev)
		default:
			sev = tx.paint(ansiCyan, sev)
		}
		if len(g.items) > 1 {
			tx.ew.printf("%s", rolledUp(sev, g, rank))
			continue
		}
		where := ""
		if f.Flow != nil {
			where = " [" + *f.Flow + "]"
		}
		tx.ew.printf("  %s %s%s: %s\n", sev, f.Code, where, f.Message)
	}
}

// num renders an integer with thousands separators: 1,234,567.
func num(n int64) string { return units.Count(n) }

// pct renders a/b as a percentage with one decimal ("n/a" when b is 0).
func pct(a, b int64) string {
	if b <= 0 {
		return "n/a %"
	}
	return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 1, 64) + " %"
}

// us renders ns as microseconds with three decimals: "1.234 µs".
func us(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 3, 64) + " µs" }

func utc(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000000 UTC")
}

// isLive reports whether the report comes from a live capture ("live:IFACE").
func isLive(files []string) bool {
	for _, f := range files {
		if strings.HasPrefix(f, "live:") {
			return true
		}
	}
	return false
}
