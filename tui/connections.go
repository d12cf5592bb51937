package tui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
)

// Connections: the report's flows paired with their peers (FlowReport.Peer,
// which flows found), one row per QP pair with both directions, as
// Wireshark's Conversations. A loss shows in both directions (a PSN gap in
// the data flow, a NAK in the reverse one): counted per connection, it
// counts once. Like derive.go, this only orders and sums what the report
// holds.

// connection is one QP pair: flow a (the first seen) and its peer b (-1:
// no peer seen).
type connection struct{ a, b int32 }

// connections pairs the report's flows, in first-seen order of their first
// flow.
func connections(r *analysis.Report) []connection {
	idx := flowIndex(r)
	paired := make([]bool, len(r.Flows))
	out := make([]connection, 0, len(r.Flows))
	for i := range r.Flows {
		if paired[i] {
			continue
		}
		paired[i] = true
		c := connection{a: int32(i), b: -1}
		if p := r.Flows[i].Peer; p != nil {
			if j, ok := idx[*p]; ok && !paired[j] {
				paired[j] = true
				c.b = int32(j)
			}
		}
		out = append(out, c)
	}
	return out
}

// connSum is a connection's counters: both directions added.
type connSum struct {
	packetsAB, packetsBA               int64
	bytes                              int64
	first, last                        int64
	gaps, missing, retx, naks, rnr, ce int64
	cnps, cnpsRx                       int64
	severity                           int
	weight                             int64
	worse                              int32 // the direction with more problems (a on a tie)
}

func sumConn(r *analysis.Report, c connection) connSum {
	a := &r.Flows[c.a]
	s := connSum{
		packetsAB: a.Packets, bytes: a.Bytes, first: a.FirstTsNs, last: a.LastTsNs,
		gaps: a.PSNGaps, missing: a.MissingPSNs, retx: a.Retransmitted, naks: a.NAKs, rnr: a.RNRNAKs,
		ce: a.ECNCE, cnps: a.CNPs, cnpsRx: a.CNPsReceived,
		severity: flowSeverity(a), weight: problemWeight(a), worse: c.a,
	}
	if c.b < 0 {
		return s
	}
	b := &r.Flows[c.b]
	s.packetsBA = b.Packets
	s.bytes += b.Bytes
	s.first, s.last = min(s.first, b.FirstTsNs), max(s.last, b.LastTsNs)
	s.gaps += b.PSNGaps
	s.missing += b.MissingPSNs
	s.retx += b.Retransmitted
	s.naks += b.NAKs
	s.rnr += b.RNRNAKs
	s.ce += b.ECNCE
	s.cnps += b.CNPs
	s.cnpsRx += b.CNPsReceived
	s.severity = max(s.severity, flowSeverity(b))
	if w := problemWeight(b); w > s.weight {
		s.worse = c.b
	}
	s.weight += problemWeight(b)
	return s
}

// qpName is how a connection names a QP: "0x000022".
func qpName(qp uint32) string {
	s := strconv.FormatUint(uint64(qp), 16)
	return "0x" + strings.Repeat("0", max(0, 6-len(s))) + s
}

// connColumn is one column of the connections table.
type connColumn struct {
	title string
	right bool
	text  func(r *analysis.Report, c connection, s *connSum) string
	key   func(r *analysis.Report, c connection, s *connSum) int64 // numbers sort by key
	str   func(r *analysis.Report, c connection) string            // text sorts by str
}

func connInt(title string, v func(s *connSum) int64) connColumn {
	return connColumn{title: title, right: true,
		text: func(_ *analysis.Report, _ connection, s *connSum) string { return fmtCount(v(s)) },
		key:  func(_ *analysis.Report, _ connection, s *connSum) int64 { return v(s) }}
}

func connEndpoints(r *analysis.Report, c connection) string {
	a := &r.Flows[c.a]
	return a.SrcIP + " ⇄ " + a.DstIP
}

func connQPs(r *analysis.Report, c connection) string {
	s := qpName(r.Flows[c.a].DstQPN)
	if c.b >= 0 {
		s += " ⇄ " + qpName(r.Flows[c.b].DstQPN)
	}
	return s
}

// connColumns are the connections table's columns (after "#"): the
// counters add both directions.
var connColumns = []connColumn{
	{title: "Endpoints", text: func(r *analysis.Report, c connection, _ *connSum) string { return connEndpoints(r, c) },
		str: connEndpoints},
	{title: "QPs (to A→B ⇄ to B→A)", text: func(r *analysis.Report, c connection, _ *connSum) string { return connQPs(r, c) },
		str: connQPs},
	{title: "Type", text: func(r *analysis.Report, c connection, _ *connSum) string { return r.Flows[c.a].Transport },
		str: func(r *analysis.Report, c connection) string { return r.Flows[c.a].Transport }},
	connInt("Pkts A→B", func(s *connSum) int64 { return s.packetsAB }),
	connInt("Pkts B→A", func(s *connSum) int64 { return s.packetsBA }),
	{title: "Bytes", right: true, text: func(_ *analysis.Report, _ connection, s *connSum) string { return fmtBytes(s.bytes) },
		key: func(_ *analysis.Report, _ connection, s *connSum) int64 { return s.bytes }},
	{title: "Duration", right: true, text: func(_ *analysis.Report, _ connection, s *connSum) string { return fmtDur(s.last - s.first) },
		key: func(_ *analysis.Report, _ connection, s *connSum) int64 { return s.last - s.first }},
	connInt("Gaps", func(s *connSum) int64 { return s.gaps }),
	connInt("Missing", func(s *connSum) int64 { return s.missing }),
	connInt("Retx", func(s *connSum) int64 { return s.retx }),
	connInt("NAK", func(s *connSum) int64 { return s.naks }),
	connInt("RNR", func(s *connSum) int64 { return s.rnr }),
	connInt("CE", func(s *connSum) int64 { return s.ce }),
	connInt("CNP", func(s *connSum) int64 { return s.cnps }),
}

// connRows is a derived connections table: the pairs, their sums, and the
// row order (indices into conns).
type connRows struct {
	conns []connection
	sums  []connSum
	order []int32
}

// connOrder pairs, sums, filters and sorts the connections: by column col
// (-1: first-seen order), descending when desc (col -1: the last seen
// first); a connection passes the
// flows filter when either direction does.
func connOrder(r *analysis.Report, filter string, problemsOnly bool, col int, desc bool) connRows {
	conns := connections(r)
	sums := make([]connSum, len(conns))
	for i, c := range conns {
		sums[i] = sumConn(r, c)
	}
	ff := parseFlowFilter(filter)
	ff.problems = ff.problems || problemsOnly
	order := make([]int32, 0, len(conns))
	for i, c := range conns {
		if ff.empty() || ff.match(&r.Flows[c.a]) || (c.b >= 0 && ff.match(&r.Flows[c.b])) {
			if !problemsOnly || sums[i].severity != sevNone {
				order = append(order, int32(i))
			}
		}
	}
	if col < 0 && desc {
		slices.Reverse(order) // the last seen first
	}
	if col >= 0 && col < len(connColumns) {
		k := connColumns[col]
		slices.SortStableFunc(order, func(x, y int32) int {
			var d int
			if k.key != nil {
				d = cmp.Compare(k.key(r, conns[x], &sums[x]), k.key(r, conns[y], &sums[y]))
			} else {
				d = strings.Compare(k.str(r, conns[x]), k.str(r, conns[y]))
			}
			if desc {
				d = -d
			}
			return d
		})
	}
	return connRows{conns: conns, sums: sums, order: order}
}

// worstConns returns up to n connections with problems, worst first (their
// problem weights added), and the number of connections with problems.
func worstConns(r *analysis.Report, n int) (connRows, int64) {
	all := connOrder(r, "", true, -1, false)
	slices.SortStableFunc(all.order, func(x, y int32) int {
		return cmp.Compare(all.sums[y].weight, all.sums[x].weight)
	})
	bad := int64(len(all.order))
	if len(all.order) > n {
		all.order = all.order[:n]
	}
	return all, bad
}
