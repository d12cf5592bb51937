package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func keyEvent(k keyCode) *tcell.EventKey { return tcell.NewEventKey(k.key, k.r, tcell.ModNone) }

// showView makes v the current view over a fresh history, no help, no
// filter, pane focused when it is not nil.
func (hs *harness) showView(v view, pane tview.Primitive) {
	hs.t.Helper()
	u := hs.u
	if u.helpOpen {
		u.toggleHelp()
	}
	if u.filtering {
		u.endFilter(tcell.KeyEscape)
	}
	u.stack = u.stack[:1]
	u.showTop()
	switch v {
	case u.overview:
	case u.detail:
		u.openFlow(0)
	default:
		u.switchTo(v)
	}
	if pane != nil {
		hs.app.SetFocus(pane)
	}
	hs.settle()
	if u.current() != v {
		hs.t.Fatalf("could not show %s", v.Name())
	}
}

// tables returns the binding tables: the global one first.
func tables(u *UI) (names []string, tabs [][]binding) {
	names = append(names, "global")
	tabs = append(tabs, u.global)
	for _, v := range u.allViews() {
		names = append(names, v.Name())
		tabs = append(tabs, u.bindings[v])
	}
	return names, tabs
}

// Every binding of every table has a help line, and the help overlay shows
// it, in every view.
func TestBindingsListedByHelp(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	u := hs.u
	names, tabs := tables(u)
	for ti, tab := range tabs {
		for _, b := range tab {
			if b.keyLabel() == "" || b.help == "" {
				t.Errorf("%s: a binding without a label or help: %+v", names[ti], b)
			}
		}
	}
	for _, cur := range u.allViews() {
		hs.showView(cur, nil)
		hs.key(tcell.KeyRune, '?')
		if !u.helpOpen {
			t.Fatalf("%s: ? did not open the help", cur.Name())
		}
		text := u.helpText.GetText(true)
		for ti, tab := range tabs {
			title := "Everywhere"
			if ti > 0 {
				title = "In " + names[ti]
				if names[ti] == cur.Name() {
					title += " (this view)"
				}
			}
			var want strings.Builder
			want.WriteString(title + "\n")
			for _, b := range tab {
				fmt.Fprintf(&want, "  %-18s %s\n", b.keyLabel(), b.help)
			}
			if !strings.Contains(text, want.String()+"\n") {
				t.Errorf("in %s, the help does not list the %s keys as\n%s\nit shows:\n%s", cur.Name(), names[ti], want.String(), text)
			}
		}
	}
}

// Pressing any key of a binding with an action runs that action (and the
// key goes no further), and changes something in at least one view; a key
// the focused pane handles reaches the pane.
func TestBindingsReachTheirAction(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	u := hs.u
	type hit struct {
		table string
		b, i  int
	}
	ran := map[hit]int{}
	did := map[hit]bool{} // the key changed something in some view
	wrap := func(name string, bs []binding) []binding {
		out := append([]binding(nil), bs...)
		for bi := range out {
			if run := out[bi].run; run != nil {
				out[bi].run = func(i int) {
					ran[hit{name, bi, i}]++
					run(i)
				}
			}
		}
		return out
	}
	u.global = wrap("global", u.global)
	for _, v := range u.allViews() {
		u.bindings[v] = wrap(v.Name(), u.bindings[v])
	}

	press := func(v view, table string, bi int, b *binding) {
		t.Helper()
		for i, k := range b.keys {
			hs.showView(v, b.pane)
			if b.run == nil {
				ev := keyEvent(k)
				if got := u.capture(ev); got != ev {
					t.Errorf("%s, %s: %s (%s) should go on to the focused pane", v.Name(), table, k.name(), b.help)
				}
				if focus := hs.app.GetFocus(); focus == nil || focus.InputHandler() == nil {
					t.Errorf("%s: no focused pane to handle %s", v.Name(), k.name())
				}
				continue
			}
			h := hit{table, bi, i}
			before := ran[h]
			fp := fingerprint(hs)
			hs.key(k.key, k.r)
			if fingerprint(hs) != fp {
				did[h] = true
			}
			if ran[h] != before+1 {
				t.Errorf("%s: pressing %s did not run %q of the %s keys", v.Name(), k.name(), b.help, table)
			}
		}
	}
	for _, v := range u.allViews() {
		for bi := range u.global {
			press(v, "global", bi, &u.global[bi])
		}
		for bi := range u.bindings[v] {
			press(v, v.Name(), bi, &u.bindings[v][bi])
		}
	}
	names, tabs := tables(u)
	for ti, tab := range tabs {
		for bi, b := range tab {
			for i, k := range b.keys {
				if b.run != nil && !did[hit{names[ti], bi, i}] {
					t.Errorf("%s: %s (%q) did nothing in any view", names[ti], k.name(), b.help)
				}
			}
		}
	}
	if hs.quits != 2*len(u.allViews()) {
		t.Errorf("q and Ctrl-C quit %d times in %d views", hs.quits, len(u.allViews()))
	}
}

// Two bindings of one view never share a key (unless each is about its own
// pane and neither has an action), and a view's binding never shares a key
// with a global one, which would shadow it (unless both are the pane's).
// A view documents its filter (a note on /) when and only when it has one.
func TestBindingsKeysUnique(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	u := hs.u
	type owner struct {
		table string
		b     *binding
	}
	check := func(seen map[keyCode]owner, table string, b *binding) {
		for _, k := range b.keys {
			if o, ok := seen[k]; ok {
				bothPane := o.b.run == nil && b.run == nil
				ownPanes := bothPane && o.b.pane != nil && b.pane != nil && o.b.pane != b.pane
				if !(bothPane && o.table != table) && !ownPanes {
					t.Errorf("%s is bound twice: %q (%s) and %q (%s)", k.name(), o.b.help, o.table, b.help, table)
				}
			}
			seen[k] = owner{table, b}
		}
	}
	for _, v := range u.allViews() {
		seen := map[keyCode]owner{}
		for bi := range u.global {
			check(seen, "global", &u.global[bi])
		}
		notes := false
		for bi := range u.bindings[v] {
			b := &u.bindings[v][bi]
			check(seen, v.Name(), b)
			notes = notes || len(b.keys) == 0 && strings.HasPrefix(b.label, "/")
		}
		if _, ok := v.Filter(); ok != notes {
			t.Errorf("%s: has a filter %v, documents one %v", v.Name(), ok, notes)
		}
	}
}

// The number keys are the top views', in order, and the help says so.
func TestBindingsNumberKeys(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	u := hs.u
	b := u.global[0]
	if len(b.keys) != len(u.top) {
		t.Fatalf("%d number keys for %d views", len(b.keys), len(u.top))
	}
	for i, v := range u.top {
		if b.keys[i] != runeKey(rune('1'+i)) {
			t.Errorf("key %d is %s", i, b.keys[i].name())
		}
		hs.key(tcell.KeyRune, rune('1'+i))
		if u.current() != v {
			t.Errorf("%c shows %s, want %s", '1'+i, u.current().Name(), v.Name())
		}
	}
	if b.label != "1 2 3 4 5 6" || b.help != "Overview, Flows, Events, Packets, PFC, Connections" {
		t.Errorf("number keys listed as %q %q", b.label, b.help)
	}
}

// fingerprint is what a key can change: the screen, quitting, the status
// message, the focus, the help, the filter input, the history, and the
// flows' sort direction (which r reverses even in first-seen order, where
// it does not show).
func fingerprint(hs *harness) string {
	u := hs.u
	return fmt.Sprint(hs.text(), hs.quits, u.msg, u.focusIndex(), u.helpOpen, u.filtering, len(u.stack), u.flows.desc)
}

// The keys the status line names are global bindings.
func TestStatusKeysBound(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	for _, hint := range strings.Split(statusKeys, "  ") {
		name, _, _ := strings.Cut(hint, " ")
		found := false
		for _, b := range hs.u.global {
			for _, k := range b.keys {
				found = found || k.name() == name
			}
		}
		if !found {
			t.Errorf("the status line names %q, which no global binding has", name)
		}
	}
}
