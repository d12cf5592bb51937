package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/synth"
)

func congestion(t testing.TB) string {
	return writeScenario(t, "congestion_cnp", synth.CongestionCNP(), synth.PcapNanos)
}

func pfcStorm(t testing.TB) string {
	return writeScenario(t, "pfc_pause_storm", synth.PFCPauseStorm(), synth.Pcapng)
}

// flowIDs returns the flow ids in the flows table's order.
func flowIDs(hs *harness) []string {
	v := hs.u.flows
	var out []string
	for _, i := range v.rows {
		out = append(out, v.report.Flows[i].ID)
	}
	return out
}

func TestKeysNavigation(t *testing.T) {
	hs := newHarness(t, 120, 40, congestion(t))
	hs.key(tcell.KeyRune, '2')
	tb := hs.u.flows.table
	steps := []struct {
		k    tcell.Key
		r    rune
		want int
	}{
		{tcell.KeyRune, 'j', 1}, {tcell.KeyDown, 0, 2}, {tcell.KeyRune, 'k', 1}, {tcell.KeyUp, 0, 0},
		{tcell.KeyRune, 'G', 3}, {tcell.KeyRune, 'g', 0}, {tcell.KeyEnd, 0, 3}, {tcell.KeyHome, 0, 0},
		{tcell.KeyPgDn, 0, 3}, {tcell.KeyPgUp, 0, 0},
	}
	for _, s := range steps {
		hs.key(s.k, s.r)
		if got := selectedRow(tb); got != s.want {
			t.Fatalf("after %v %q: row %d, want %d", s.k, s.r, got, s.want)
		}
	}
	hs.contains("Flows │ row 1/4")
}

func TestKeysSort(t *testing.T) {
	hs := newHarness(t, 120, 40, congestion(t))
	hs.key(tcell.KeyRune, '2')
	first := flowIDs(hs)
	hs.key(tcell.KeyRune, 's') // Flow, ascending
	want := []string{
		"10.0.0.1>10.0.0.2:qp0x000101", "10.0.0.1>10.0.0.2:qp0x000201",
		"10.0.0.2>10.0.0.1:qp0x000100", "10.0.0.2>10.0.0.1:qp0x000200",
	}
	if got := flowIDs(hs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("sorted by flow: %v", got)
	}
	hs.contains("Flow▲")
	hs.key(tcell.KeyRune, 'r')
	if got := flowIDs(hs); got[0] != want[3] {
		t.Fatalf("reversed: %v", got)
	}
	hs.contains("Flow▼")
	hs.keys("ss") // Type, then Packets (descending: a counter)
	if hs.u.flows.sortCol != 2 || !hs.u.flows.desc {
		t.Fatalf("sort column %d desc %v, want Packets descending", hs.u.flows.sortCol, hs.u.flows.desc)
	}
	if got := flowIDs(hs); got[0] != "10.0.0.1>10.0.0.2:qp0x000101" || got[3] != "10.0.0.2>10.0.0.1:qp0x000200" {
		t.Fatalf("by packets: %v", got)
	}
	hs.key(tcell.KeyRune, 'S')
	if hs.u.flows.sortCol != 1 {
		t.Fatalf("S: sort column %d, want 1", hs.u.flows.sortCol)
	}
	for i := 0; hs.u.flows.sortCol != -1; i++ {
		if i > len(flowColumns) {
			t.Fatal("s never comes back to first-seen order")
		}
		hs.key(tcell.KeyRune, 's')
	}
	if hs.u.flows.sortCol != -1 || strings.Join(flowIDs(hs), " ") != strings.Join(first, " ") {
		t.Fatalf("a full cycle should come back to first-seen order: %v", flowIDs(hs))
	}
	// A click on a column title sorts by it.
	x := strings.Index(strings.Split(hs.text(), "\n")[2], "CNP rx")
	hs.click(x, 2)
	if c := hs.u.flows.sortCol; c < 0 || flowColumns[c].title != "CNP rx" {
		t.Fatalf("click: sort column %d", c)
	}
	if got := flowIDs(hs); got[0] != "10.0.0.1>10.0.0.2:qp0x000101" {
		t.Fatalf("by CNP rx: %v", got)
	}
}

func TestKeysFilter(t *testing.T) {
	hs := newHarness(t, 120, 40, congestion(t))
	hs.key(tcell.KeyRune, '2')
	hs.key(tcell.KeyRune, '/')
	if !hs.u.filtering {
		t.Fatal("/ did not open the filter")
	}
	hs.keys("qp:0x201 q1") // q and 1 are text here: no quit, no view switch
	if hs.quits != 0 || hs.u.current() != hs.u.flows {
		t.Fatal("keys typed into the filter acted as commands")
	}
	for range 3 {
		hs.key(tcell.KeyBackspace2, 0)
	}
	hs.key(tcell.KeyEnter, 0)
	if got := flowIDs(hs); len(got) != 1 || got[0] != "10.0.0.1>10.0.0.2:qp0x000201" {
		t.Fatalf("qp filter: %v", got)
	}
	hs.contains("filter: qp:0x201")
	// Esc while typing restores the filter in force.
	hs.key(tcell.KeyRune, '/')
	hs.keys("xyz")
	if len(flowIDs(hs)) != 0 {
		t.Fatalf("the filter applies while typed: %v", flowIDs(hs))
	}
	hs.key(tcell.KeyEscape, 0)
	if got := flowIDs(hs); len(got) != 1 {
		t.Fatalf("Esc did not restore the filter: %v", got)
	}
	if hs.u.current() != hs.u.flows {
		t.Fatal("Esc in the filter left the view")
	}
	hs.key(tcell.KeyRune, '/')
	hs.key(tcell.KeyCtrlU, 0)
	hs.keys("ip:10.0.0.2 qp:0x100")
	hs.key(tcell.KeyEnter, 0)
	if got := flowIDs(hs); len(got) != 1 || got[0] != "10.0.0.2>10.0.0.1:qp0x000100" {
		t.Fatalf("ip+qp filter: %v", got)
	}
	hs.key(tcell.KeyRune, '/')
	hs.key(tcell.KeyCtrlU, 0)
	hs.key(tcell.KeyEnter, 0)
	if got := flowIDs(hs); len(got) != 4 {
		t.Fatalf("cleared filter: %v", got)
	}
	hs.key(tcell.KeyRune, 'p') // problems only: the two CE-marked flows
	if got := flowIDs(hs); len(got) != 2 {
		t.Fatalf("problems: %v", got)
	}
	hs.contains("with problems")
}

func TestKeysDrillDownAndBack(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	u := hs.u
	hs.key(tcell.KeyEnter, 0)
	if u.current() != u.detail || u.detail.flow != 0 { // the worst flow: #1, to QP 0x22, with the gap
		t.Fatalf("Enter on the worst flow: view %s flow %d", u.current().Name(), u.detail.flow)
	}
	hs.contains("Flow #1")
	hs.key(tcell.KeyRune, 'p') // its peer
	if u.detail.flow != 1 {
		t.Fatalf("peer: flow %d", u.detail.flow)
	}
	hs.key(tcell.KeyEscape, 0)
	if u.current() != u.detail || u.detail.flow != 0 {
		t.Fatal("Esc did not return to the first flow")
	}
	hs.key(tcell.KeyEscape, 0)
	if u.current() != u.overview {
		t.Fatalf("Esc: %s", u.current().Name())
	}
	hs.key(tcell.KeyEscape, 0) // nothing before the overview
	if u.current() != u.overview {
		t.Fatal("Esc left the overview")
	}
	hs.key(tcell.KeyRune, '2')
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyEnter, 0)
	if u.current() != u.detail || u.detail.flow != 1 {
		t.Fatalf("Enter in flows: %s %d", u.current().Name(), u.detail.flow)
	}
	hs.key(tcell.KeyEscape, 0)
	if u.current() != u.flows || selectedRow(u.flows.table) != 1 {
		t.Fatal("Esc did not return to the flows with the flow selected")
	}
	// Number keys go back through the history instead of growing it.
	for range 5 {
		hs.keys("2345")
	}
	if len(u.stack) > 5 {
		t.Fatalf("history grew to %d", len(u.stack))
	}
	hs.key(tcell.KeyRune, '1')
	if len(u.stack) != 1 {
		t.Fatalf("1 should return to the overview at the root: history %d", len(u.stack))
	}
}

func TestKeysTabPanes(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	v := hs.u.packets
	for _, want := range []any{v.tree, v.hex, v.table} {
		hs.key(tcell.KeyTab, 0)
		if hs.app.GetFocus() != want {
			t.Fatalf("Tab focused %T", hs.app.GetFocus())
		}
	}
	hs.key(tcell.KeyBacktab, 0)
	if hs.app.GetFocus() != v.hex {
		t.Fatal("Shift-Tab did not go back")
	}
}

func TestKeysHelpAndQuit(t *testing.T) {
	hs := newHarness(t, 120, 60, lossNAK(t))
	hs.key(tcell.KeyRune, '?')
	if !hs.u.helpOpen {
		t.Fatal("? did not open the help")
	}
	// The help scrolls (PgDn) when it is longer than the screen: every
	// line must show on one of its pages.
	var pages strings.Builder
	for range 5 {
		pages.WriteString(hs.text())
		hs.key(tcell.KeyPgDn, 0)
	}
	shown := pages.String()
	for _, v := range hs.u.allViews() {
		if !strings.Contains(shown, "In "+v.Name()) {
			t.Errorf("the help does not show In %s", v.Name())
		}
		for _, k := range hs.u.bindings[v] {
			if !strings.Contains(shown, k.help) {
				t.Errorf("the help does not show %q", k.help)
			}
		}
	}
	for _, k := range hs.u.global {
		if !strings.Contains(shown, k.help) {
			t.Errorf("the help does not show %q", k.help)
		}
	}
	hs.key(tcell.KeyRune, '?')
	if hs.u.helpOpen || strings.Contains(hs.text(), "Everywhere") {
		t.Fatal("? did not close the help")
	}
	hs.key(tcell.KeyRune, '?')
	hs.key(tcell.KeyEscape, 0)
	if hs.u.helpOpen || hs.u.current() != hs.u.overview {
		t.Fatal("Esc should close the help and stay")
	}
	hs.key(tcell.KeyRune, 'q')
	hs.key(tcell.KeyCtrlC, 0)
	if hs.quits != 2 {
		t.Fatalf("q and Ctrl-C quit %d times", hs.quits)
	}
}

func TestEventToPacket(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '3')
	hs.key(tcell.KeyRune, 'j') // the NAK
	hs.key(tcell.KeyEnter, 0)
	if hs.u.current() != hs.u.packets {
		t.Fatalf("Enter on an event: %s (%s)", hs.u.current().Name(), hs.u.msg)
	}
	if row := selectedRow(hs.u.packets.table); row != 4 {
		t.Fatalf("the NAK is frame 5, selected row %d", row+1)
	}
	hs.contains("NAK PSN_SEQUENCE_ERROR")
	hs.contains("Headers of frame 5")
	hs.key(tcell.KeyEscape, 0)
	if hs.u.current() != hs.u.events {
		t.Fatal("Esc did not return to the events")
	}
	// Every event of every scenario opens a frame that shows it.
	for _, path := range []string{lossNAK(t), congestion(t), pfcStorm(t)} {
		hs := newHarness(t, 120, 40, path)
		s := hs.u.snap
		for i := range s.Report.Events {
			ev := &s.Report.Events[i]
			pos, err := hs.u.pager.Resolve(s, ev)
			if err != nil {
				t.Fatalf("%s event %d (%s): %v", path, i, ev.Kind, err)
			}
			r := hs.u.pager.Detail(s, pos)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
}

func TestEventsKindFilter(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '3')
	v := hs.u.events
	if len(v.rows) != 3 {
		t.Fatalf("%d events", len(v.rows))
	}
	for _, want := range []struct {
		kind string
		n    int
	}{{"psn_gap", 1}, {"retransmission", 1}, {"nak", 1}, {"rnr_nak", 0}, {"cnp", 0}, {"pause", 0}, {"psn_conflict", 0}, {"hop_loss", 0}, {"", 3}} {
		hs.key(tcell.KeyRune, 't')
		if v.kind != want.kind || len(v.rows) != want.n {
			t.Fatalf("t: kind %q rows %d, want %q %d", v.kind, len(v.rows), want.kind, want.n)
		}
	}
	hs.key(tcell.KeyRune, '/')
	hs.keys("flow:qp0x000011")
	hs.key(tcell.KeyEnter, 0)
	if len(v.rows) != 1 || v.report.Events[v.rows[0]].Kind != "nak" {
		t.Fatalf("flow filter: %v", v.rows)
	}
	hs.key(tcell.KeyRune, 'f')
	if hs.u.current() != hs.u.detail || hs.u.detail.flow != 1 {
		t.Fatal("f did not open the event's flow")
	}
}

func TestPacketsGoToAndFilter(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	hs.key(tcell.KeyRune, '/')
	hs.keys("20")
	hs.key(tcell.KeyEnter, 0)
	if row := selectedRow(hs.u.packets.table); row != 19 {
		t.Fatalf("go to 20: row %d", row+1)
	}
	hs.contains("Headers of frame 20")
	hs.key(tcell.KeyRune, '/')
	hs.keys("qp:0x11")
	hs.key(tcell.KeyEnter, 0)
	if n := hs.u.packets.rows.len(); n != 3 {
		t.Fatalf("frames of QP 0x11's flow: %d", n)
	}
	hs.key(tcell.KeyRune, 'f')
	if hs.u.current() != hs.u.detail || hs.u.detail.flow != 1 {
		t.Fatal("f did not open the frame's flow")
	}
}

func TestPFCEpisodeToPacket(t *testing.T) {
	hs := newHarness(t, 120, 40, pfcStorm(t))
	hs.key(tcell.KeyRune, '5')
	hs.key(tcell.KeyEnter, 0)
	if hs.app.GetFocus() != hs.u.pfc.episodes {
		t.Fatal("Enter did not go to the episodes")
	}
	hs.key(tcell.KeyRune, 'j') // the storm
	hs.key(tcell.KeyEnter, 0)
	if hs.u.current() != hs.u.packets {
		t.Fatalf("Enter on an episode: %s (%s)", hs.u.current().Name(), hs.u.msg)
	}
	tree := hs.u.packets.hdr.text()
	for _, want := range []string{"MAC Control: Priority Flow Control", "Priority 3 (enabled): 65535 quanta"} {
		if !strings.Contains(tree, want) {
			t.Fatalf("the tree does not show %q:\n%s", want, tree)
		}
	}
}

func TestMouseTabs(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	line := strings.Split(hs.text(), "\n")[0]
	hs.click(strings.Index(line, "Events"), 0)
	if hs.u.current() != hs.u.events {
		t.Fatalf("click on the Events tab: %s", hs.u.current().Name())
	}
}

// The supervisor queues a tick when something changes, and when the
// context ends it waits for the background work, then stops the app.
func TestSupervisor(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	app := &fakeApp{}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	close(started)
	waited := make(chan struct{})
	done := make(chan struct{})
	go func() {
		hs.u.supervise(ctx, app, started, func() { close(waited) })
		close(done)
	}()
	if hs.u.pager.Row(hs.u.snap, 3) == nil { // not cached yet: the pager reads it
		deadline := time.Now().Add(5 * time.Second)
		for app.queuedCount() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no tick queued after new rows")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	cancel()
	<-done
	select {
	case <-waited:
	default:
		t.Fatal("the supervisor stopped the app without waiting")
	}
	if !app.stopped {
		t.Fatal("the app was not stopped")
	}
}
