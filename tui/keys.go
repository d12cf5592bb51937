package tui

import (
	"github.com/gdamore/tcell/v2"
)

// keyHelp is one line of the key help.
type keyHelp struct {
	key, what string
}

// globalKeys work in every view.
var globalKeys = []keyHelp{
	{"1 2 3 4 5", "Overview, Flows, Events, Packets, PFC"},
	{"Enter", "open the selected row"},
	{"Esc", "back to the previous view; closes this help; cancels a filter"},
	{"Tab / Shift-Tab", "next / previous pane"},
	{"↑ ↓ or k j", "move the selection"},
	{"← → or h l", "scroll wide tables sideways"},
	{"PgUp PgDn ^B ^F", "page up / down"},
	{"Home End or g G", "first / last row"},
	{"/", "filter the current view (Enter keeps the filter, Esc restores it)"},
	{"?", "this help"},
	{"q, Ctrl-C", "quit"},
	{"mouse", "click: select, double click: open, wheel: scroll, click a tab: switch"},
}

// capture handles the global keys before the focused pane sees them.
func (u *UI) capture(ev *tcell.EventKey) *tcell.EventKey {
	if ev.Key() == tcell.KeyCtrlC {
		u.quit()
		return nil
	}
	if u.filtering {
		return ev // the filter input gets everything
	}
	if u.helpOpen {
		switch {
		case ev.Key() == tcell.KeyEscape, ev.Key() == tcell.KeyRune && ev.Rune() == '?':
			u.toggleHelp()
			return nil
		case ev.Key() == tcell.KeyRune && ev.Rune() == 'q':
			u.quit()
			return nil
		}
		return ev // scrolls the help
	}
	u.msg = ""
	switch ev.Key() {
	case tcell.KeyEscape:
		u.back()
		return nil
	case tcell.KeyTab:
		u.cyclePane(1)
		return nil
	case tcell.KeyBacktab:
		u.cyclePane(-1)
		return nil
	case tcell.KeyRune:
		switch r := ev.Rune(); r {
		case 'q':
			u.quit()
			return nil
		case '?':
			u.toggleHelp()
			return nil
		case '/':
			u.startFilter()
			return nil
		case '1', '2', '3', '4', '5':
			u.switchTo(u.top[r-'1'])
			return nil
		}
	}
	return u.current().HandleKey(ev)
}
