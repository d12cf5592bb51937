package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// Regression tests of issue 16's "wrong or misleading" items, on the
// SimulationScreen.

// typeFilter opens the filter input, types text and presses Enter.
func (hs *harness) typeFilter(text string) {
	hs.t.Helper()
	hs.key(tcell.KeyRune, '/')
	hs.keys(text)
	hs.key(tcell.KeyEnter, 0)
}

// statusLine returns the last line of the screen.
func (hs *harness) statusLine() string {
	lines := strings.Split(strings.TrimRight(hs.text(), "\n"), "\n")
	return lines[len(lines)-1]
}

// Item 1: a packets filter keeps the selected frame, not the row number.
// loss_nak_replay's 23 frames: A->B (QP 0x22) sends frames 1-4 (PSN 1000,
// 1001, 1002, 1004), B's NAK is frame 5 (QP 0x11), A goes on with 6-8, replays
// 1003..1007 in 9-13, B ACKs in 14, A writes 8 more frames 15-22, B ACKs in
// 23. So QP 0x22 has the 20 frames other than 5, 14 and 23, and QP 0x11 has
// frames 5, 14, 23.
func TestPacketsFilterKeepsFrame(t *testing.T) {
	tests := []struct {
		name      string
		frame     string // selected before filtering
		filter    string
		headers   string // the frame selected after
		position  string
		oldWrongs string // what the row-number keeping showed
	}{
		// Frame 10 passes qp:0x22: it is its 9th frame (1,2,3,4,6,7,8,9,10).
		{"own flow", "10", "qp:0x22", "Headers of frame 10", "row 9/20", "frame 11"},
		// Frame 10 is not in qp:0x11: the nearest following frame is 14,
		// the second of 5, 14, 23.
		{"other flow", "10", "qp:0x11", "Headers of frame 14", "row 2/3", "frame 23"},
		// Frame 5 in its own QP: the first of 5, 14, 23 (the old code kept
		// row 5, clamped to the last row: frame 23).
		{"own flow, first frame", "5", "qp:0x11", "Headers of frame 5", "row 1/3", "frame 23"},
		// Nothing follows frame 23 in qp:0x22 (last: 22): the last row.
		{"nothing follows", "23", "qp:0x22", "Headers of frame 22", "row 20/20", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, 120, 40, lossNAK(t))
			hs.key(tcell.KeyRune, '4')
			hs.typeFilter(tc.frame)
			hs.contains("Headers of frame " + tc.frame)
			hs.typeFilter(tc.filter)
			hs.contains(tc.headers)
			hs.contains("Packets │ " + tc.position)
			// Clearing the filter keeps the frame too.
			want := strings.TrimPrefix(tc.headers, "Headers of frame ")
			hs.key(tcell.KeyRune, '/')
			for range len(tc.filter) {
				hs.key(tcell.KeyBackspace2, 0)
			}
			hs.key(tcell.KeyEnter, 0)
			hs.contains("Headers of frame " + want)
			hs.contains("Packets │ row " + want + "/23")
		})
	}
}

// Item 2: the status line's position follows j, k, g and G in Flows and
// Events (the table moves the selection itself, no tick follows).
func TestStatusPositionFollowsKeys(t *testing.T) {
	// congestion_cnp has 4 flows, loss_nak_replay 3 events (psn_gap,
	// nak, retransmission). j from row 1 is row 2, then 3; k back to 2; G
	// the last row, g the first.
	for _, view := range []struct {
		key  rune
		name string
		path string
		n    string
	}{
		{'2', "Flows", writeScenario(t, "congestion_cnp", synth.CongestionCNP(), synth.PcapNanos), "4"},
		{'3', "Events", lossNAK(t), "3"},
	} {
		t.Run(view.name, func(t *testing.T) {
			hs := newHarness(t, 120, 40, view.path)
			hs.key(tcell.KeyRune, view.key)
			hs.contains(view.name + " │ row 1/" + view.n)
			for _, step := range []struct {
				r   rune
				pos string
			}{{'j', "2"}, {'j', "3"}, {'k', "2"}, {'G', view.n}, {'g', "1"}} {
				hs.key(tcell.KeyRune, step.r)
				if want := view.name + " │ row " + step.pos + "/" + view.n; !strings.Contains(hs.statusLine(), want) {
					t.Fatalf("after %c: status %q, want %q", step.r, hs.statusLine(), want)
				}
			}
		})
	}
}

// manyConns writes n connections; connection i (0-based) loses i PSNs of
// a 16-frame write from A (QP 0x1000+i) and B ACKs: the data flow of
// connection i has Missing = i, and B's ACK flow none.
func manyConns(t *testing.T, n int) string { return manyConnsNAK(t, n, false) }

// manyConnsNAK is manyConns; with nak, B also NAKs the first PSN lost
// (connections 1..n-1), so that each loss shows in both directions.
func manyConnsNAK(t *testing.T, n int, nak bool) string {
	c := &synth.Capture{}
	ts := int64(1_700_000_000_000_000_000)
	for i := range n {
		conn := synth.NewConn(c, synth.Host(1), synth.Host(2), uint32(0x2000+i), uint32(0x1000+i), 0, 0)
		for j := range 16 {
			if j == 8 && i > 0 {
				if nak {
					conn.NAK(synth.B, ts, conn.NextPSN(synth.A), decode.NAKCodePSNSequenceError)
				}
				conn.Lose(synth.A, i)
			}
			conn.Request(synth.A, ts, decode.OpSendOnly, 64, nil)
			ts += 1_000
		}
		conn.Ack(synth.B, ts, conn.NextPSN(synth.A)-1)
		ts += 1_000
	}
	return writeScenario(t, "many", c, synth.PcapNanos)
}

// Item 3: after a sort the table shows its top rows, and keeps the
// selection only when it is among them.
func TestSortShowsTop(t *testing.T) {
	// 30 connections, 60 flows in first-seen order: the data flow of
	// connection i is flow #2i+1 with Missing = i, its ACK flow #2i+2 has
	// Missing 0. 120x40: the table shows 35 rows (40 - tab bar - status -
	// 2 borders - header).
	hs := newHarness(t, 120, 40, manyConns(t, 30))
	hs.key(tcell.KeyRune, '2')
	hs.contains("Flows (60 of 60)")
	clickMissing := func() {
		t.Helper()
		lines := strings.Split(hs.text(), "\n")
		x := strings.Index(lines[2], "Missing")
		if x < 0 {
			t.Fatalf("no Missing header:\n%s", hs.text())
		}
		hs.click(len([]rune(lines[2][:x])), 2)
	}
	hs.key(tcell.KeyRune, 'G') // flow #60: connection 29's ACK flow, Missing 0
	hs.contains("Flows │ row 60/60")
	clickMissing() // by Missing, descending (a counter)
	hs.contains("by Missing descending")
	hs.contains("Missing▼")
	// Flow #60 sorts to row 31 + 29 = 60 (the 30 data flows come first,
	// then 30 ACK flows... flow #1 has Missing 0 too: ties in first-seen
	// order: flows #59..#3 (29 rows), then #1, #2, #4, ..., #60): not on
	// the first screen, so the top is shown, row 1 (flow #59) selected.
	hs.contains("Flows │ row 1/60")
	if !strings.Contains(strings.Split(hs.text(), "\n")[3], "║59 ") {
		t.Fatalf("the top rows are not shown:\n%s", hs.text())
	}
	// Row 3 (flow #55, Missing 27) selected, reversed (ascending): the 31
	// flows of Missing 0 come first, then Missing 1 (#3) at row 32, ...
	// Missing 27 at row 58: off screen, the top again.
	hs.keys("jj")
	hs.contains("Flows │ row 3/60")
	hs.key(tcell.KeyRune, 'r')
	hs.contains("by Missing ascending")
	hs.contains("Flows │ row 1/60")
	// Row 1 is flow #1; row 2 flow #2; select it, reverse: descending,
	// flow #2 is at row 31 (after the 29 lossy data flows and #1): on the
	// first screen, so it stays selected.
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyRune, 'r')
	hs.contains("by Missing descending")
	hs.contains("Flows │ row 31/60")
}

// headerWords returns the words of a table's header line, the titles of
// several words joined by "_".
func headerWords(line string) []string {
	line = strings.Trim(line, "║│ ")
	for _, t := range []string{"Paused share", "CNP rx", "Source MAC"} {
		line = strings.ReplaceAll(line, t, strings.ReplaceAll(t, " ", "_"))
	}
	return strings.Fields(line)
}

// Item 4: a column is shown whole or not at all when it is a number:
// headers are never sliced ("aused shar…" was "Paused share" cut from the
// left), numbers never lose digits; h scrolls the rest while # and Flow
// stay.
func TestNarrowColumnsWhole(t *testing.T) {
	pfc := writeScenario(t, "pfc_pause_storm", synth.PFCPauseStorm(), synth.Pcapng)
	for _, tc := range []struct {
		key    rune
		titles []column
		skip   int // leading columns not checked
	}{
		{'2', flowTableColumns, 0},
		{'5', pfcColumns, 0},
	} {
		titles := map[string]bool{}
		for _, c := range tc.titles {
			titles[strings.ReplaceAll(c.title, " ", "_")] = true
		}
		for _, w := range []int{60, 70, 80, 90, 100, 110} {
			hs := newHarness(t, w, 24, pfc)
			hs.key(tcell.KeyRune, tc.key)
			lines := strings.Split(hs.text(), "\n")
			for _, word := range headerWords(lines[2]) {
				if !titles[word] {
					t.Errorf("view %c at %d columns: header %q is not a column title:\n%s", tc.key, w, word, hs.text())
				}
			}
			if strings.Contains(lines[3], "…") && tc.key == '5' {
				t.Errorf("view %c at %d columns: a number is cut: %q", tc.key, w, lines[3])
			}
		}
	}
	// 80 columns, l twice: # and Flow stay, Type and Packets scroll out.
	hs := newHarness(t, 80, 24, pfc)
	hs.key(tcell.KeyRune, '2')
	hs.keys("ll")
	got := headerWords(strings.Split(hs.text(), "\n")[2])
	if len(got) < 3 || got[0] != "#" || got[1] != "Flow" || got[2] != "Bytes" {
		t.Fatalf("after l l: header %q, want # Flow Bytes ...", got)
	}
}

// Item 5: the overview timeline. loss_nak_replay spans 93 µs (frame 1 at
// +0, frame 23 at +93 µs); at 120 columns the plot is 118 - 12 (labels) -
// 22 (scales) = 84 columns: 93,000 / 84 = 1,107 ns a column. The timeline
// has 94 buckets of 1 µs; the psn_gap (4 µs) and the NAK (4.5 µs) fall in
// bucket 4, alone in column 4 (4*94/84 = 4 to 5*94/84 = 5): 2 events a
// bucket, 2 * 1,107 / 1,000 = 2.2 a column.
func TestTimelineAxisAndScales(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.contains("│Span       93 µs   ")
	hs.contains("(1 column ≈ 1.107 µs)  +93 µs")
	text := hs.text()
	lines := strings.Split(text[strings.Index(text, "┌ Timeline"):], "\n")
	for _, want := range []struct{ label, scale string }{
		{"Throughput", "0–9.2 Gb/s"},
		{"Problems", "0–2.2 / 1.107 µs"},
		{"CE marks", "none"},
		{"Paused", "none"},
	} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, "│"+want.label) {
				found = true
				if !strings.Contains(l, want.scale) {
					t.Errorf("the %s band's first row %q does not state %q", want.label, l, want.scale)
				}
			}
		}
		if !found {
			t.Errorf("no band %s:\n%s", want.label, hs.text())
		}
	}
}

// Item 6: one loss is one problem connection, not two problem flows. 30
// connections, 29 of them (1..29) lose PSNs and NAK them: 58 flows with
// problems (29 data flows with a gap, 29 reverse flows with a NAK), 29
// connections with problems.
func TestConnections(t *testing.T) {
	hs := newHarness(t, 120, 40, manyConnsNAK(t, 30, true))
	hs.contains("Flows      60 in 30 connections")
	hs.contains("Problems   29 connections")
	hs.contains("Connections with the most problems")
	// The worst first: connection 29's data flow (Missing 29), its peer QP
	// 0x00201d, packets of both directions: 16 requests + the NAK + the
	// ACK = 18.
	lines := strings.Split(hs.text(), "\n")
	var worst string
	for i, l := range lines {
		if strings.Contains(l, "Peer QP") {
			worst = lines[i+1]
		}
	}
	if f := strings.Fields(strings.Trim(worst, "║")); len(f) < 5 || f[0] != "10.0.0.1>10.0.0.2:qp0x00101d" || f[1] != "0x00201d" || f[3] != "18" || f[4] != "29" {
		t.Fatalf("worst connection row %q", worst)
	}
	hs.key(tcell.KeyRune, '6')
	hs.contains("Connections (30 of 30, 60 flows)")
	hs.key(tcell.KeyRune, 'p')
	hs.contains("Connections (29 of 30, 60 flows) with problems")
	// Enter opens the direction with the problems: connection 1's data
	// flow (#3, to QP 0x1001), not its NAK flow.
	hs.key(tcell.KeyEnter, 0)
	hs.contains("Flow #3")
}

// Every terminal size: at 80x24 and 100x30 the overview shows the
// findings, the five timeline bands and the worst connection; at 60x20 it
// drops the timeline and the findings pane (in that order), never a
// value; the status line's key hints shorten instead of being cut.
func TestOverviewSizes(t *testing.T) {
	path := lossNAK(t)
	for _, tc := range []struct {
		w, h       int
		want, gone []string
		keys       string // the key hints the status line ends with
	}{
		{100, 30, []string{"Findings (2 in 2 codes)", "Throughput", "Problems  ", "CE marks", "CNPs", "Paused", "psn_gap", "10.0.0.1>10.0.0.2:qp0x000022"}, nil,
			"? help  / filter  Esc back  q quit"},
		{80, 24, []string{"Findings (2 in 2 codes)", "Throughput", "CE marks", "Paused", "psn_gap", "10.0.0.1>10.0.0.2:qp0x000022", "Span       93 µs"}, nil,
			"? help  q quit"},
		{60, 20, []string{"Span       93 µs", "Problems   1 connection", "10.0.0.1>10.0.0.2:qp0x000022"}, []string{"Findings (2 in 2 codes)", "Throughput"},
			"? help  q quit"}, // and no file name: "Overview │ row 1/1 │ 23 frames loaded" first
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			hs := newHarness(t, tc.w, tc.h, path)
			for _, s := range tc.want {
				hs.contains(s)
			}
			for _, s := range tc.gone {
				if strings.Contains(hs.text(), s) {
					t.Errorf("%s shown at %dx%d:\n%s", s, tc.w, tc.h, hs.text())
				}
			}
			if st := hs.statusLine(); !strings.HasSuffix(st, "│ "+tc.keys) {
				t.Errorf("status %q does not end with %q", st, tc.keys)
			}
		})
	}
}

// Esc clears a committed filter before it goes back.
func TestEscClearsFilter(t *testing.T) {
	hs := newHarness(t, 120, 40, congestion(t))
	hs.key(tcell.KeyRune, '2')
	hs.typeFilter("qp:0x101")
	hs.contains("Flows (1 of 4)")
	hs.key(tcell.KeyEscape, 0)
	hs.contains("Flows (4 of 4)")
	hs.contains("filter qp:0x101 cleared")
	if hs.u.current() != hs.u.flows {
		t.Fatalf("Esc left Flows for %s", hs.u.current().Name())
	}
	hs.key(tcell.KeyEscape, 0)
	if hs.u.current() != hs.u.overview {
		t.Fatalf("the second Esc shows %s, want Overview", hs.u.current().Name())
	}
}

// Findings are grouped by code with their count and flow; Enter on a
// group opens it, on a finding opens its flow or its PFC entry.
func TestFindingsGrouped(t *testing.T) {
	// manyConnsNAK(30): connections 1..29 each have a psn_gap finding
	// (data flow) and a nak finding (reverse flow): 58 findings in 2 codes.
	hs := newHarness(t, 200, 50, manyConnsNAK(t, 30, true))
	hs.contains("Findings (58 in 2 codes)")
	hs.contains("▸ psn_gap    29 29 findings")
	hs.key(tcell.KeyTab, 0) // the findings pane
	hs.contains("Overview │ finding 1/2")
	hs.key(tcell.KeyEnter, 0) // opens the psn_gap group: 2 + 29 rows
	hs.contains("▾ psn_gap")
	hs.contains("Overview │ finding 1/31")
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyEnter, 0) // its first finding: connection 1's data flow, #3
	hs.contains("Flow #3")

	// pfc_pause_storm: one pause_storm finding (no flow) about
	// 02:5a:00:00:00:01 priority 3, the only PFC entry: Enter opens PFC.
	hs = newHarness(t, 120, 40, pfcStorm(t))
	hs.contains("Findings (1 in 1 code)")
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyEnter, 0)
	if hs.u.current() != hs.u.pfc {
		t.Fatalf("Enter on the pause_storm finding shows %s", hs.u.current().Name())
	}
	hs.contains("Pause episodes of 02:5a:00:00:00:01 priority 3")
}

// PFC episodes sort: pfc_pause_storm's entry has two episodes, +5 ms for
// 2 µs and +10 ms for 150.1 ms; s sorts by Duration, longest first.
func TestPFCEpisodesSort(t *testing.T) {
	hs := newHarness(t, 120, 40, pfcStorm(t))
	hs.key(tcell.KeyRune, '5')
	first := func() string {
		t.Helper()
		lines := strings.Split(hs.text(), "\n")
		for i, l := range lines {
			if strings.Contains(l, "Start") && strings.Contains(l, "Duration") {
				return strings.Join(strings.Fields(strings.Trim(lines[i+1], "│")), " ")
			}
		}
		t.Fatalf("no episodes:\n%s", hs.text())
		return ""
	}
	if got := first(); got != "+5 ms 2 µs +5.002 ms 2" {
		t.Fatalf("first episode %q", got)
	}
	hs.key(tcell.KeyRune, 's') // by Start: as it was
	hs.key(tcell.KeyRune, 's') // by Duration, descending
	hs.contains("by Duration descending")
	hs.contains("Duration▼")
	if got := first(); got != "+10 ms 150.1 ms +160.1 ms 502" {
		t.Fatalf("longest episode first: %q", got)
	}
	hs.key(tcell.KeyRune, 'r')
	hs.contains("by Duration ascending")
	if got := first(); got != "+5 ms 2 µs +5.002 ms 2" {
		t.Fatalf("reversed: %q", got)
	}
}

// Events sort: loss_nak_replay's events are psn_gap (+4 µs), nak (+4.5
// µs) and retransmission (+28 µs, 23.5 µs after the NAK).
func TestEventsSort(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '3')
	kinds := func() string {
		t.Helper()
		lines := strings.Split(hs.text(), "\n")
		var out []string
		for _, l := range lines[3:6] {
			if f := strings.Fields(strings.Trim(l, "║")); len(f) > 2 {
				out = append(out, f[2]) // "+4", "µs", kind
			}
		}
		return strings.Join(out, " ")
	}
	if got := kinds(); got != "psn_gap nak retransmission" {
		t.Fatalf("time order: %q", got)
	}
	hs.keys("ss") // Time, then Kind ascending
	hs.contains("by Kind ascending")
	if got := kinds(); got != "nak psn_gap retransmission" {
		t.Fatalf("by kind: %q", got)
	}
	hs.keys("ss") // Flow, then Duration descending: the replay's 23.5 µs first
	hs.contains("by Duration descending")
	if got := kinds(); got != "retransmission psn_gap nak" {
		t.Fatalf("by duration: %q", got)
	}
}

// A damaged capture's message, whole and with its byte offset, comes
// first in the capture pane (on a small screen the counts below may not
// all fit; at 60x20 the pane has the whole width).
// loss_nak_replay cut 30 bytes short: its last record (B's ACK, 16 bytes
// of record header + 62) has 78 - 30 = 48 bytes left.
func TestDamageInCapturePane(t *testing.T) {
	p := lossNAK(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b[:len(b)-30], 0o644); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, 60, 20, p)
	text := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┌", " ", "┐", " ").Replace(hs.text())), " ")
	for _, want := range []string{"damaged record at byte offset", "record cut short (need 78 bytes, 48 left)", "Frames 22 (RoCE 22, CNP 0)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the capture pane does not show %q:\n%s", want, hs.text())
		}
	}
}

// d switches the Time column to the time since the previous frame
// listed: with qp:0x11 the frames are 5 (+4.5 µs), 14 (+35 µs) and 23; 14
// comes 30.5 µs after 5.
func TestPacketsDeltaTime(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	hs.typeFilter("qp:0x11")
	hs.contains(" 14 0.000035000 ")
	hs.key(tcell.KeyRune, 'd')
	hs.contains("Delta")
	hs.contains("  5 0.000000000 ")
	hs.contains(" 14 0.000030500 ")
	hs.key(tcell.KeyRune, 'd')
	hs.contains(" 14 0.000035000 ")
}

// Packet columns keep their width while the rows scroll: 100 RoCE frames
// (Source 10.0.0.1, 8 wide), then 5 PFC frames (Source 02:5a:00:00:00:01,
// 17 wide); once the PFC rows were shown (G), going back to the top (g)
// keeps the wider Source column.
func TestPacketColumnsStable(t *testing.T) {
	c := &synth.Capture{}
	ts := int64(1_700_000_000_000_000_000)
	conn := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x10, 0x20, 0, 0)
	for range 100 {
		conn.Request(synth.A, ts, decode.OpSendOnly, 64, nil)
		ts += 1_000
	}
	for range 5 {
		c.Add(ts, synth.PFC([6]byte{2, 0x5a, 0, 0, 0, 1}, 1<<3, [8]uint16{3: 0xffff}))
		ts += 1_000
	}
	hs := newHarness(t, 120, 40, writeScenario(t, "roce_then_pfc", c, synth.PcapNanos))
	hs.key(tcell.KeyRune, '4')
	dst := func() int {
		return strings.Index(strings.Split(hs.text(), "\n")[2], "Destination")
	}
	top := dst()
	hs.key(tcell.KeyRune, 'G')
	hs.contains("02:5a:00:00:00:01")
	end := dst()
	hs.key(tcell.KeyRune, 'g')
	// "No." (3 digits) + "Time" (11) + Source: 8 wide at the top, 17 once
	// the PFC rows were drawn: Destination moves 9 cells right, and stays.
	if back := dst(); end != top+9 || back != end {
		t.Fatalf("Destination header at %d, after G %d, back at the top %d: want %d, %d", top, end, back, top+9, top+9)
	}
}
