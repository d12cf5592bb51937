package htmlreport

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
)

func sp(s string) *string { return &s }
func ip(v int64) *int64   { return &v }

// handReport is a small report: four flows, two CNPs (latencies 12 and 40
// µs), a pause episode and findings, with hostile text in names.
func handReport() *analysis.Report {
	const t0 = 1_000_000_000
	prio := 3
	return &analysis.Report{
		Capture: analysis.CaptureSummary{Files: []string{`<script>alert(1)</script>.pcap`}, Packets: 100, RoCEPackets: 90,
			CNPPackets: 2, PFCFrames: 4, FirstTsNs: t0, LastTsNs: t0 + 1_000_000},
		Flows: []analysis.FlowReport{
			{ID: "clean", Transport: "RC", Packets: 50},
			{ID: "ce", Transport: "RC", Packets: 20, ECNCE: 8, CNPsReceived: 2},
			{ID: "lossy", Transport: "RC", Packets: 10, PSNGaps: 1, MissingPSNs: 3},
			{ID: `x"><img src=http://evil/>`, Transport: "UD", Packets: 5},
		},
		Events: []analysis.EventReport{
			{Kind: "cnp", TsNs: t0 + 112_000, Flow: sp("np"), TargetFlow: sp("ce"), ECNToCNPNs: ip(12_000)},
			{Kind: "cnp", TsNs: t0 + 240_000, Flow: sp("np"), TargetFlow: sp("ce"), ECNToCNPNs: ip(40_000)},
			{Kind: "pause", TsNs: t0 + 500_000, SrcMAC: sp("02:00:00:00:00:01"), Priority: &prio, EndNs: ip(t0 + 700_000)},
		},
		CNPLatency: analysis.LatencySummary{Count: 2, MinNs: 12_000, P50Ns: 12_000, P99Ns: 40_000, MaxNs: 40_000},
		PFC:        []analysis.PFCReport{{SrcMAC: "02:00:00:00:00:01", Priority: &prio, Frames: 4, Episodes: 1, PausedNs: 200_000}},
		Findings: []analysis.Finding{
			{Severity: analysis.SeverityError, Code: "psn_gap_lossless", Message: "lost <3>", Flow: sp("lossy")},
			{Severity: analysis.SeverityWarning, Code: "odd", Message: "names the hostile flow", Flow: sp(`x"><img src=http://evil/>`)},
			{Severity: analysis.SeverityWarning, Code: "ce_without_cnp", Message: "CE", Flow: sp("ce")},
			{Severity: analysis.SeverityInfo, Code: "capture_wide", Message: "no flow"},
		},
	}
}

func TestWorstFlows(t *testing.T) {
	r := handReport()
	// lossy: 1 error finding; hostile (index 3): 1 warning, no counters; ce: 1 warning and
	// CE 8 + CNPs received 2 = 10 congestion, which breaks the warning tie with the hostile
	// flow (0); clean: no problem, no finding, not listed.
	want := []int{2, 1, 3}
	if got := WorstFlows(r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("WorstFlows = %v, want %v", got, want)
	}
}

func TestRollUpCaps(t *testing.T) {
	var fs []analysis.Finding
	for i := range MaxFindingsPerCode + 3 {
		fs = append(fs, analysis.Finding{Severity: analysis.SeverityWarning, Code: "nak", Message: fmt.Sprint(i), Flow: sp("f")})
	}
	fs = append(fs, analysis.Finding{Severity: analysis.SeverityInfo, Code: "other", Message: "o"})
	g := rollUp(fs)
	link(g, map[string]string{"f": "flow-7"})
	// 13 naks: 10 listed, 3 more; then the info group. The flow has an anchor.
	if len(g) != 2 || g[0].Count != 13 || len(g[0].Items) != 10 || g[0].More != 3 || g[0].Items[0].Anchor != "flow-7" ||
		g[1].Code != "other" || g[1].Items[0].Anchor != "" {
		t.Errorf("rollUp = %+v", g)
	}
}

func TestWritePage(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, handReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
		`&lt;script&gt;alert(1)&lt;/script&gt;.pcap`, // the file name, escaped
		`x&#34;&gt;&lt;img src=http://evil/&gt;`,     // the hostile flow id, escaped in the table and the SVG-free lists
		"lost &lt;3&gt;",
		"@media print",
		// Latency marks: p50 = 12 µs, p99 = 40 µs (the Report's nearest-rank values).
		"p50 12 µs", "p99 40 µs",
		// The CDF axis of ECN→CNP latency spans 0..40 µs: ticks in µs.
		"ECN → CNP latency (µs)", "share of samples ≤ x (%)",
		// 1 ms capture, about 200 bins: ceil(1e6/200) = 5000 ns = 5 µs bins.
		"per 5 µs bin (count)", "time since the first frame (ms)",
		// The pause lane.
		"02:00:00:00:00:01 prio 3",
		"Flows: 4 (3 with problems, listed first)",
		`<code>psn_gap_lossless</code> × 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The hand report has a pause lane, hence the shade note; a report without PFC has none.
	if !strings.Contains(page, "Shade: the share") || strings.Contains(pfcTimeline(&analysis.Report{}).Note, "Shade") {
		t.Error("the shade note is not where the lanes are")
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, `<img src=http://evil`) {
		t.Error("unescaped text in the page")
	}
	// Nothing is loaded: no element that loads, no url( or @import in the page.
	if m := regexp.MustCompile(`<(img|iframe|frame|link|source|video|audio|embed|object)\b|<script[^>]+src|url\(|@import`).FindString(strings.ToLower(page)); m != "" {
		t.Errorf("page contains %q", m)
	}
	// Every in-page link has its target; the error finding links to the lossy flow (index 2).
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1)
	for _, m := range links {
		if !ids[m[1]] {
			t.Errorf("link to #%s has no target", m[1])
		}
	}
	if !strings.Contains(page, `<a href="#flow-2" class="mono">lossy</a>: lost &lt;3&gt;`) {
		t.Error("the error finding does not link to flow-2")
	}
}

// TestPageBounded: a report far larger than any page shows stays small:
// 50,000 flows with problems and findings, 200,000 events of 9 kinds, 100
// PFC keys with 1,000 pauses each.
func TestPageBounded(t *testing.T) {
	const t0, span = 0, 10_000_000_000
	r := &analysis.Report{Capture: analysis.CaptureSummary{Packets: 1, FirstTsNs: t0, LastTsNs: t0 + span}}
	for i := range 50_000 {
		id := fmt.Sprintf("10.0.%d.%d>10.1.0.1:qp0x%06x", i/256, i%256, i)
		r.Flows = append(r.Flows, analysis.FlowReport{ID: id, Transport: "RC", Packets: 1000, PSNGaps: 1, MissingPSNs: int64(i % 7)})
		r.Findings = append(r.Findings, analysis.Finding{Severity: analysis.SeverityWarning, Code: "psn_gap", Message: "gap", Flow: sp(id)})
	}
	kinds := []string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause", "k7", "k8", "k9"}
	for i := range 200_000 {
		r.Events = append(r.Events, analysis.EventReport{Kind: kinds[i%len(kinds)], TsNs: int64(i) * (span / 200_000)})
	}
	for m := range 100 {
		prio := m % 8
		mac := fmt.Sprintf("02:00:00:00:%02x:%02x", m/8, m%8)
		r.PFC = append(r.PFC, analysis.PFCReport{SrcMAC: mac, Priority: &prio, PausedNs: int64(m)})
		for j := range 1000 {
			ts := int64(j) * (span / 1000)
			r.Events = append(r.Events, analysis.EventReport{Kind: "pause", TsNs: ts, SrcMAC: sp(mac), Priority: &prio, EndNs: ip(ts + 1000)})
		}
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if b.Len() > 400_000 {
		t.Errorf("page of %d bytes", b.Len())
	}
	for _, want := range []string{
		// Worst first is by missing PSNs (i%7; one warning each): the 200 rows are the flows
		// i = 6, 13, ..., 1399 (i%7 = 6). The 10 listed psn_gap findings name flows 0..9: 6 is
		// among the 200, the other 9 are added: 209 rows, 50,000 - 209 = 49,791 not listed.
		"49791 more flows not listed (49791 with problems, 0 without)",
		`<a href="#flow-0" class="mono">`, `<a href="#flow-9" class="mono">`,
		"… and 49990 more",                   // 50,000 psn_gap findings, 10 listed
		"84 more ports/priorities not drawn", // 100 - MaxLanes
		"1 more event kinds not drawn",       // 9 kinds - MaxSeries
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	t.Logf("page: %d bytes", b.Len())
}

// TestThroughputChart: the plot the lead feeds with rate windows. Two flows
// over 0..2 ms in 1 ms windows, 10 and 25 Gb/s: the Y axis reads Gb/s
// (max 25e9 >= 1e9), the X axis ms (2e6 ns >= 1e6); names are escaped.
func TestThroughputChart(t *testing.T) {
	s := []Series{
		{Name: "a<b", Step: true, Points: []Point{{0, 10_000_000_000}, {1_000_000, 10_000_000_000}, {2_000_000, 10_000_000_000}}},
		{Name: "c", Step: true, Points: []Point{{0, 25_000_000_000}, {1_000_000, 0}, {2_000_000, 0}}},
	}
	c := ThroughputChart(s, 3)
	svg := string(c.SVG())
	for _, want := range []string{"throughput (Gb/s)", "time since the first frame (ms)", "a&lt;b", ">25<", ">0.5<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if c.Note != "3 more flows not drawn" {
		t.Errorf("note %q", c.Note)
	}
}

// TestFlowsTableEveryFlow: the contract's HTML report has "the flows table":
// the problem flows worst first, then the other flows in the report's order,
// at most MaxTableFlows rows in all; the line after the table counts the
// flows left out, with and without problems. A capture without problems
// lists its flows too.
func TestFlowsTableEveryFlow(t *testing.T) {
	clean := func(n int) []analysis.FlowReport {
		var fs []analysis.FlowReport
		for i := range n {
			fs = append(fs, analysis.FlowReport{ID: fmt.Sprintf("f%d", i), Transport: "RC", Packets: 1})
		}
		return fs
	}
	tests := []struct {
		name  string
		flows []analysis.FlowReport
		rows  []string // ids in table order (prefix when longer than listed)
		n     int      // rows
		want  []string
		not   []string
	}{
		{"hand report", handReport().Flows, []string{"lossy", "ce", `x"><img src=http://evil/>`, "clean"}, 4,
			[]string{"Flows: 4 (3 with problems, listed first)"}, []string{"not listed"}},
		{"no problems", clean(3), []string{"f0", "f1", "f2"}, 3,
			[]string{"Flows: 3 (0 with problems, listed first)"}, []string{"not listed", "none: no flow"}},
		{"capped", append([]analysis.FlowReport{{ID: "bad", Transport: "RC", Packets: 1, PSNGaps: 1, MissingPSNs: 1}}, clean(250)...),
			[]string{"bad", "f0", "f1"}, MaxTableFlows,
			[]string{"Flows: 251 (1 with problems, listed first)", "51 more flows not listed (0 with problems, 51 without)"}, nil},
		{"empty", nil, nil, 0, []string{"Flows: 0", "none: the capture has no RoCE flow"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &analysis.Report{Flows: tt.flows}
			if tt.name == "hand report" {
				r = handReport()
			}
			p := build(r, nil)
			if len(p.Rows) != tt.n {
				t.Fatalf("%d rows, want %d", len(p.Rows), tt.n)
			}
			for i, id := range tt.rows {
				if p.Rows[i].ID != id {
					t.Errorf("row %d is %q, want %q", i, p.Rows[i].ID, id)
				}
			}
			var b bytes.Buffer
			if err := Write(&b, r); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(page, w) {
					t.Errorf("page has %q", w)
				}
			}
		})
	}
}
