package htmlreport

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
)

func TestDense(t *testing.T) {
	// Bins of 10 ns, capture [5, 37]: bins k = 0..3 (0/10 .. 37/10). Bin 0 [0, 10) has
	// 4 bytes over its 5 ns inside the capture (5..10): 4·8e9/5 = 6.4e9 bit/s; bin 1
	// empty; bin 2 [20, 30) 6 bytes over 10 ns: 4.8e9; bin 3 [30, 40) empty (7 ns
	// inside). X is k·10 − 5, the first at 0; the closing point at 37 − 5 = 32.
	bins := []Bin{{StartNs: 0, N: 4}, {StartNs: 20, N: 6}}
	got := dense("f", bins, 10, 5, 37, bitsPerSecond)
	want := []Point{{0, 6_400_000_000}, {5, 0}, {15, 4_800_000_000}, {25, 0}, {32, 0}}
	if fmt.Sprint(got.Points) != fmt.Sprint(want) || !got.Step {
		t.Errorf("dense = %v, want %v", got.Points, want)
	}
	// Counts ignore the covered time; bins before the capture's first bin are skipped.
	got = dense("c", []Bin{{StartNs: -10, N: 9}, {StartNs: 10, N: 3}}, 10, 5, 25, identity)
	want = []Point{{0, 0}, {5, 3}, {15, 0}, {20, 0}}
	if fmt.Sprint(got.Points) != fmt.Sprint(want) {
		t.Errorf("dense counts = %v, want %v", got.Points, want)
	}
	// Slivers: bins of 100 ns over [95, 301]: bin 0 has 5 ns inside (5·10 < 100), bin 3 1 ns.
	// Bin 3 (4) joins bin 2: 4; bin 0 (2) joins bin 1 (10): 12 at X 0; then 4 at X 200 − 95 = 105,
	// closing at 301 − 95 = 206.
	got = dense("s", []Bin{{StartNs: 0, N: 2}, {StartNs: 100, N: 10}, {StartNs: 300, N: 4}}, 100, 95, 301, identity)
	want = []Point{{0, 12}, {105, 4}, {206, 4}}
	if fmt.Sprint(got.Points) != fmt.Sprint(want) {
		t.Errorf("dense slivers = %v, want %v", got.Points, want)
	}
}

// ratesReport is handReport (capture 1 s + [0, 1 ms]) with rate series:
// bins of 100 µs.
func ratesReport() (*analysis.Report, *Extra) {
	r := handReport()
	const t0 = 1_000_000_000
	x := &Extra{Rates: &Rates{WidthNs: 100_000, MaxTracked: 40_000, Untracked: 5,
		Bytes: map[string][]Bin{
			"lossy": {{StartNs: t0, N: 1250}},                                            // 1250 B in 100 µs: 100 Mb/s
			"ce":    {{StartNs: t0 + 100_000, N: 2500}, {StartNs: t0 + 900_000, N: 125}}, // 200 Mb/s, 10 Mb/s
		},
		CE:   []Bin{{StartNs: t0 + 100_000, N: 8}},
		CNPs: []Bin{{StartNs: t0 + 100_000, N: 1}, {StartNs: t0 + 200_000, N: 1}},
	}}
	return r, x
}

func TestThroughputFromRates(t *testing.T) {
	r, x := ratesReport()
	c := throughputChart(r, WorstFlows(r), x.Rates)
	// Worst order lossy, ce, hostile: the hostile flow has no series (untracked).
	if len(c.Series) != 2 || c.Series[0].Name != "lossy" || c.Series[1].Name != "ce" {
		t.Fatalf("series %+v", c.Series)
	}
	// Capture [t0, t0+1 ms] in 100 µs bins: k = 10000..10010.
	// lossy: bin 0 1250 B · 8e9 / 100,000 ns = 100 Mb/s. ce: bin 1 200 Mb/s, bin 9 10 Mb/s,
	// bin 10 starts at the capture's end (covered 1 ns, empty).
	s := c.Series[1].Points
	// Bin 10 holds 1 ns of the capture (< a tenth): it joins bin 9, 125 B over 100,001 ns:
	// 125·8e9/100,001 = 9,999,900.0 bit/s; 10 points and the closing one at 1 ms.
	if len(s) != 11 || c.Series[0].Points[0] != (Point{0, 100_000_000}) || s[1] != (Point{100_000, 200_000_000}) ||
		s[9] != (Point{900_000, 9_999_900}) || s[10] != (Point{1_000_000, 9_999_900}) {
		t.Errorf("points %v / %v", c.Series[0].Points, s)
	}
	// 11 bins (< 20): the note suggests a smaller --bin.
	if want := "11 bins of 100 µs (--bin) over the capture: a smaller --bin draws finer; " +
		"1 of these flows have no series: only 40000 flows are tracked for this plot (5 were not)"; c.Note != want {
		t.Errorf("note %q, want %q", c.Note, want)
	}
	if c.Y.Label != "throughput per 100 µs bin" {
		t.Errorf("Y label %q", c.Y.Label)
	}
	cg := ratesCongestionChart(r, x.Rates)
	if len(cg.Series) != 2 || cg.Series[0].Points[1].Y != 8 || cg.Series[1].Points[2].Y != 1 || !strings.HasPrefix(cg.Note, "11 bins") {
		t.Errorf("congestion %+v", cg)
	}
}

func TestFewBinsNote(t *testing.T) {
	// 1 ms bins over [5 ms, 6.5 ms]: bins 5 and 6, two bins.
	if got, want := fewBins(1_000_000, 5_000_000, 6_500_000), "2 bins of 1 ms (--bin) over the capture: a smaller --bin draws finer"; got != want {
		t.Errorf("fewBins = %q, want %q", got, want)
	}
	if got := fewBins(1, 0, 100); got != "" {
		t.Errorf("101 bins: %q", got)
	}
}

func TestLatencyCharts(t *testing.T) {
	r := handReport()
	r.Latency.Ack = analysis.LatencySummary{Count: 3000, MinNs: 1000, P50Ns: 2000, P99Ns: 9000, MaxNs: 9500}
	sets := []LatencySet{{Kind: "ack", Values: []int64{1000, 2000, 9000}, Stride: 1000}, {Kind: "read"}}
	cs := latencyCharts(r, sets)
	// read has no values: no chart. ack: the legend counts every sample (3,000), the marks
	// are the Report's p50/p99, the note says the CDF is 1 in 1,000.
	if len(cs) != 1 {
		t.Fatalf("%d charts", len(cs))
	}
	c := cs[0]
	if c.Series[0].Name != "3,000 samples" || c.Marks[0].X != 2000 || c.Marks[1].X != 9000 ||
		c.Note != "CDF drawn from 1 in 1,000 samples; p50/p99 over all 3,000; "+analysis.LatencyCaveat || !strings.HasPrefix(c.Title, "ACK latency") {
		t.Errorf("chart %+v", c)
	}
}

// TestLatencyCaveat: the contract's "the human report says so in one line
// wherever it prints latency" holds for the HTML page too: every ACK/READ/
// atomic latency plot's caption carries the capture-point caveat, with or
// without a sampling note.
func TestLatencyCaveat(t *testing.T) {
	r := handReport()
	r.Latency.Ack = analysis.LatencySummary{Count: 1, MinNs: 1000, P50Ns: 1000, P99Ns: 1000, MaxNs: 1000}
	r.Latency.Read = analysis.LatencySummary{Count: 2, MinNs: 1000, P50Ns: 1000, P99Ns: 3000, MaxNs: 3000}
	tests := []struct {
		set  LatencySet
		note string
	}{
		{LatencySet{Kind: "ack", Values: []int64{1000}, Stride: 1}, analysis.LatencyCaveat},
		{LatencySet{Kind: "read", Values: []int64{1000}, Stride: 2}, "CDF drawn from 1 in 2 samples; p50/p99 over all 2; " + analysis.LatencyCaveat},
	}
	for _, tt := range tests {
		cs := latencyCharts(r, []LatencySet{tt.set})
		if len(cs) != 1 || cs[0].Note != tt.note {
			t.Errorf("%s: charts %+v, want one with note %q", tt.set.Kind, cs, tt.note)
		}
	}
	var b bytes.Buffer
	if err := WriteExtra(&b, r, &Extra{Latency: []LatencySet{tests[0].set}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<figcaption>"+html.EscapeString(analysis.LatencyCaveat)+"</figcaption>") {
		t.Errorf("page lacks the caveat caption:\n%s", b.String())
	}
}

func TestDCQCNChart(t *testing.T) {
	r := handReport()
	r.Flows[1].CCReactionCNPs = 2 // ce
	r.Flows[0].CCReactionCNPs = 1 // clean (not a problem flow: after ce)
	r.Events = append(r.Events,
		analysis.EventReport{Kind: "cnp", TargetFlow: sp("clean"), RateBeforeBps: ip(4e9), RateAfterBps: ip(5e9)},
		analysis.EventReport{Kind: "cnp", TargetFlow: sp("ce"), RateBeforeBps: ip(10e9), RateAfterBps: ip(5e9)},
		analysis.EventReport{Kind: "cnp", TargetFlow: sp("ce"), RateBeforeBps: ip(8e9), RateAfterBps: nil},
		analysis.EventReport{Kind: "cnp", TargetFlow: sp("ce"), RateBeforeBps: ip(6e9), RateAfterBps: ip(3e9)},
	)
	c := dcqcnChart(r, WorstFlows(r))
	// ce first (worst order), its two CNPs with both rates; clean; the diagonal to the
	// largest rate, 10 Gb/s.
	want := "ce [{10000000000 5000000000} {6000000000 3000000000}] true|clean [{4000000000 5000000000}] true|" +
		"after = before (no change) [{0 0} {10000000000 10000000000}] false|"
	var got string
	for _, s := range c.Series {
		got += fmt.Sprintf("%s %v %v|", s.Name, s.Points, s.Dots)
	}
	if got != want || c.Note != "" {
		t.Errorf("series %s, note %q\nwant %s", got, c.Note, want)
	}
	if svg := string(c.SVG()); !strings.Contains(svg, `stroke-linecap="round"`) || !strings.Contains(svg, "<circle") {
		t.Errorf("no dots in the SVG")
	}
	if s := spread([]Point{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}, 2); fmt.Sprint(s) != "[{0 0} {2 2}]" {
		t.Errorf("spread = %v", s) // k·5/2 for k = 0, 1: 0, 2
	}
}

func TestPagePointsAndExtra(t *testing.T) {
	r, x := ratesReport()
	r.Points = []analysis.PointReport{{Name: "up", Files: []string{"u.pcap"}, Packets: 14}, {Name: "down", Files: []string{"d.pcap"}, Packets: 14}}
	r.Hops = []analysis.HopReport{
		{From: "down", To: "up", Flow: "b", Matched: 7, Delay: analysis.LatencySummary{Count: 7, MinNs: 2000, P50Ns: 2000, P99Ns: 2000, MaxNs: 2000}},
		{From: "up", To: "down", Flow: "a<", Matched: 6, Lost: 1, Delay: analysis.LatencySummary{Count: 6, MinNs: 2000, P50Ns: 2100, P99Ns: 2200, MaxNs: 2200}},
		{From: "up", To: "down", Flow: "c", Matched: 0, Lost: 3},
	}
	x.Latency = []LatencySet{{Kind: "ack", Values: []int64{1000}, Stride: 1}}
	var b bytes.Buffer
	if err := WriteExtra(&b, r, x); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// Hops, most lost first: c (3), a< (1), b (0); c has no delay.
	ic, ia, ib := strings.Index(page, `<td class="l mono">c</td>`), strings.Index(page, `<td class="l mono">a&lt;</td>`), strings.Index(page, `<td class="l mono">b</td>`)
	if ic < 0 || ia < ic || ib < ia {
		t.Errorf("hops order: c %d, a< %d, b %d", ic, ia, ib)
	}
	for _, want := range []string{`<a href="#points">Capture points</a>`, "<h3>Hops: 3</h3>", "<td>2.1 µs</td><td>2.2 µs</td>",
		`no matched frames`, "Throughput of the worst flows", "CE-marked packets and CNPs over time", "ACK latency (request packet to its ACK)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "first CE mark before a CNP") {
		t.Error("the CE approximation is drawn though the rate windows are there")
	}
}
