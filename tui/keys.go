package tui

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Key bindings are data. Each view returns its table of bindings
// (view.Bindings) and globalBindings is the table of the keys that work in
// every view; newUI builds the tables once. The same tables drive capture,
// which runs the actions, and the help overlay (helpContent), which lists
// them: a key cannot be handled without being listed, nor listed without
// being handled.
//
// A binding is one line of the help. It has an action (run), or it
// describes a key that the focused pane handles itself (run nil: tview's
// table and text navigation, Enter on a row), or it has no keys at all and
// is a note (the mouse; what the filter means in a view).

// keyCode is one key: a special key, or a rune when key is tcell.KeyRune.
// Modifiers are not part of it (Alt-q quits as q does).
type keyCode struct {
	key tcell.Key
	r   rune
}

// runeKey is the key that types r.
func runeKey(r rune) keyCode { return keyCode{key: tcell.KeyRune, r: r} }

// special is a key that types no rune.
func special(k tcell.Key) keyCode { return keyCode{key: k} }

// matches reports whether ev is this key.
func (k keyCode) matches(ev *tcell.EventKey) bool {
	if ev.Key() != k.key {
		return false
	}
	return k.key != tcell.KeyRune || ev.Rune() == k.r
}

// name is how the help writes the key.
func (k keyCode) name() string {
	switch k.key {
	case tcell.KeyRune:
		return string(k.r)
	case tcell.KeyEscape:
		return "Esc"
	case tcell.KeyBacktab:
		return "Shift-Tab"
	}
	if n, ok := tcell.KeyNames[k.key]; ok {
		return n
	}
	return "?"
}

// binding is one line of the key help and, when it has an action, what
// its keys do.
type binding struct {
	keys  []keyCode // the keys; none: a note, not a key
	label string    // the keys as the help writes them; "": the one key's name
	help  string    // what the keys do
	// run is the action; i is the index in keys of the key pressed. nil:
	// the key goes on to the focused pane, which handles it.
	run func(i int)
	// inHelp: the action also runs while the help is shown (global
	// bindings only).
	inHelp bool
	// pane, when set, is the pane the binding is about: its action runs
	// only while that pane has the focus, and its line tells what the key
	// does there.
	pane tview.Primitive
}

// keyLabel is the key column of the binding's help line.
func (b *binding) keyLabel() string {
	if b.label != "" || len(b.keys) == 0 {
		return b.label
	}
	return b.keys[0].name()
}

// find returns the binding of bs that has an action for ev while focus has
// the focus, and the index of the key among its keys; nil when none has.
func find(bs []binding, ev *tcell.EventKey, focus tview.Primitive) (*binding, int) {
	for bi := range bs {
		b := &bs[bi]
		if b.run == nil || (b.pane != nil && b.pane != focus) {
			continue
		}
		for i, k := range b.keys {
			if k.matches(ev) {
				return b, i
			}
		}
	}
	return nil, -1
}

// specials returns the keys of special keys.
func specials(ks ...tcell.Key) []keyCode {
	out := make([]keyCode, len(ks))
	for i, k := range ks {
		out[i] = special(k)
	}
	return out
}

// keys returns the keys of runes.
func keys(runes ...rune) []keyCode {
	out := make([]keyCode, len(runes))
	for i, r := range runes {
		out[i] = runeKey(r)
	}
	return out
}

// paneKey is a binding of one key that the focused pane handles; pane, when
// not nil, is the one it is about.
func paneKey(k keyCode, help string, pane tview.Primitive) binding {
	return binding{keys: []keyCode{k}, help: help, pane: pane}
}

// onRune is a binding of one rune to an action.
func onRune(r rune, help string, run func()) binding {
	return binding{keys: keys(r), help: help, run: func(int) { run() }}
}

// note is a help line that is not a key of its own.
func note(label, help string) binding { return binding{label: label, help: help} }

// globalBindings are the keys that work in every view. The number keys
// are those of top, in order (at most nine views).
func globalBindings(u *UI, top []view) []binding {
	var digits []keyCode
	var labels, names []string
	for i, v := range top[:min(len(top), 9)] {
		digits = append(digits, runeKey(rune('1'+i)))
		labels = append(labels, digits[i].name())
		names = append(names, v.Name())
	}
	return []binding{
		{keys: digits, label: strings.Join(labels, " "), help: strings.Join(names, ", "),
			run: func(i int) { u.switchTo(top[i]) }},
		paneKey(special(tcell.KeyEnter), "open the selected row", nil),
		{keys: specials(tcell.KeyEscape), help: "clear the view's filter, else go back; close this help; cancel typing",
			run: func(int) { u.escape() }, inHelp: true},
		{keys: specials(tcell.KeyTab, tcell.KeyBacktab), label: "Tab / Shift-Tab", help: "next / previous pane",
			run: func(i int) { u.cyclePane(1 - 2*i) }},
		{keys: append(specials(tcell.KeyUp, tcell.KeyDown), keys('k', 'j')...), label: "↑ ↓ or k j", help: "move the selection"},
		{keys: append(specials(tcell.KeyLeft, tcell.KeyRight), keys('h', 'l')...), label: "← → or h l", help: "scroll wide tables sideways"},
		{keys: specials(tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyCtrlB, tcell.KeyCtrlF), label: "PgUp PgDn ^B ^F", help: "page up / down"},
		{keys: append(specials(tcell.KeyHome, tcell.KeyEnd), keys('g', 'G')...), label: "Home End or g G", help: "first / last row"},
		onRune('/', "filter the current view (Enter keeps the filter, Esc restores it)", u.startFilter),
		{keys: keys('?'), help: "this help", run: func(int) { u.toggleHelp() }, inHelp: true},
		{keys: []keyCode{runeKey('q'), special(tcell.KeyCtrlC)}, label: "q, Ctrl-C", help: "quit",
			run: func(int) { u.quit() }, inHelp: true},
		note("mouse", "click: select, double click: open, wheel: scroll, click a tab: switch"),
	}
}

// escape closes the help when it is shown, clears the view's filter when
// one is set, and goes back otherwise.
func (u *UI) escape() {
	if u.helpOpen {
		u.toggleHelp()
		return
	}
	if f, ok := u.current().Filter(); ok && f != "" {
		u.current().SetFilter("", true)
		u.msg = "filter " + f + " cleared (Esc again: back)"
		return
	}
	u.back()
}

// capture handles the keys before the focused pane sees them, from the
// binding tables. While the filter is typed, the input gets every key but
// Ctrl-C (its Enter and Esc end the filter: endFilter). While the help is
// shown, only the global bindings marked inHelp work (?, Esc, quitting) and
// the other keys scroll it; Ctrl-C, an inHelp key, also quits while the
// filter is typed. Otherwise the global bindings, then the current view's,
// run their action; a key that has none goes on to the focused pane.
func (u *UI) capture(ev *tcell.EventKey) *tcell.EventKey {
	switch {
	case u.filtering && ev.Key() != tcell.KeyCtrlC:
		return ev
	case u.filtering, u.helpOpen:
		if b, i := find(u.global, ev, nil); b != nil && b.inHelp {
			b.run(i)
			return nil
		}
		return ev
	}
	u.msg = ""
	focus := u.app.GetFocus()
	b, i := find(u.global, ev, focus)
	if b == nil {
		b, i = find(u.bindings[u.current()], ev, focus)
	}
	if b == nil {
		return ev
	}
	b.run(i)
	return nil
}
