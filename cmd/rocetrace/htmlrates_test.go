package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestHTMLRatesCoarsen: one flow's 1 µs windows k = 0..250 (100 bytes, 1 CE,
// 1 CNP each) span 251 bins > htmlMaxBins (250): the width doubles to 2 µs
// at the 251st window, bins 0..125, each two windows (200 B, 2 CE) but the
// last, window 250 alone (100 B).
func TestHTMLRatesCoarsen(t *testing.T) {
	h := newHTMLRates(1000)
	f := &flows.Flow{FirstTsNs: 0, Packets: 1}
	for k := range int64(251) {
		h.add(flows.RateWindow{Flow: f, StartNs: k * 1000, Bytes: 100, ECNCE: 1, CNPs: 1})
	}
	s := h.series[f]
	if h.width != 2000 || len(s) != 126 || h.points != 126 || s[0] != (coarseBin{0, 200}) || s[124] != (coarseBin{124, 200}) ||
		s[125] != (coarseBin{125, 100}) {
		t.Fatalf("width %d, %d bins (%d points): %v ... %v", h.width, len(s), h.points, s[:2], s[len(s)-2:])
	}
	r := h.result()
	if len(r.CE) != 126 || r.CE[0].StartNs != 0 || r.CE[0].N != 2 || r.CE[125].StartNs != 250_000 || r.CE[125].N != 1 || len(r.CNPs) != 126 {
		t.Errorf("CE %v ... (%d bins)", r.CE[:2], len(r.CE))
	}
	// The ladder: ×2 then ×5: 1, 2, 10, 20 µs.
	for _, want := range []int64{10_000, 20_000, 100_000} {
		h.coarsen()
		if h.width != want {
			t.Errorf("width %d, want %d", h.width, want)
		}
	}
	// At 100 µs the windows 0..250 µs are bins 0, 1, 2: 100, 100 and 51 windows.
	if s := h.series[f]; fmt.Sprint(s) != "[{0 10000} {1 10000} {2 5100}]" || h.points != 3 {
		t.Errorf("at 100 µs: %v (%d points)", s, h.points)
	}
}

// TestHTMLRatesTrack: the first htmlMaxFlows flows get a series at their
// first window; past the cap a clean flow does not (counted once, its
// later windows skipped), a flow with a problem does, up to twice the cap.
func TestHTMLRatesTrack(t *testing.T) {
	h := newHTMLRates(1000)
	for i := range htmlMaxFlows {
		h.add(flows.RateWindow{Flow: &flows.Flow{FirstTsNs: int64(i)}, StartNs: int64(i) / 1000 * 1000, Bytes: 1})
	}
	clean := &flows.Flow{FirstTsNs: 5500}
	h.add(flows.RateWindow{Flow: clean, StartNs: 5000, Bytes: 1}) // its first window: refused, counted
	h.add(flows.RateWindow{Flow: clean, StartNs: 6000, Bytes: 1}) // a later one: refused, not counted
	lossy := &flows.Flow{FirstTsNs: 7200, PSNGaps: 1}
	h.add(flows.RateWindow{Flow: lossy, StartNs: 7000, Bytes: 1})
	late := &flows.Flow{FirstTsNs: 7200, NAKs: 1}
	h.add(flows.RateWindow{Flow: late, StartNs: 8000, Bytes: 1}) // not its first window: refused, not counted
	if _, ok := h.series[clean]; ok || h.untracked != 1 || len(h.series) != htmlMaxFlows+1 || h.series[lossy] == nil {
		t.Errorf("untracked %d, %d series, lossy %v", h.untracked, len(h.series), h.series[lossy])
	}
	// The windows still count in the CE/CNP sums; bytes only in series.
	if h.points != htmlMaxFlows+1 {
		t.Errorf("points %d", h.points)
	}
}

// TestReportHTMLPlots: report --html on the demos draws the plots of the
// rate windows and the latency samples, and with --point the hops.
func TestReportHTMLPlots(t *testing.T) {
	pcaps := filepath.Join(testenv.RepoRoot(), "pcaps")
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, errOut := rt(t, "report", "--html", page, filepath.Join(pcaps, "dcqcn_reaction.pcap")); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// dcqcn_reaction: 61.6 µs in 1 ms windows (one bin: the note asks for a smaller
	// --bin); 28 ACK samples; two flows with CNP reactions (cc_no_reaction names one).
	for _, want := range []string{"Throughput of the worst flows", "1 bin of 1 ms (--bin) over the capture",
		"CE-marked packets and CNPs over time", "ACK latency (request packet to its ACK)", "28 samples",
		"DCQCN: the target flow&#39;s rate before and after each CNP"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	code, _, errOut := rt(t, "report", "--html", page, "--point", "up="+filepath.Join(pcaps, "two_points_up.pcap"),
		"--point", "down="+filepath.Join(pcaps, "two_points_down.pcap"))
	if code != 0 {
		t.Fatalf("--point: exit %d: %s", code, errOut)
	}
	if b, err = os.ReadFile(page); err != nil {
		t.Fatal(err)
	}
	// The demo's two hops (report --point --json "hops"): up→down 6 matched, 1 lost first.
	for _, want := range []string{"<h3>Hops: 2</h3>", `<tr><td class="l">up</td><td class="l">down</td>`,
		"<td>6</td><td>1</td><td>1</td>", "Throughput of the worst flows"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--point page lacks %q", want)
		}
	}
}
