package tui

import (
	"fmt"
	"strings"
)

// toggleHelp shows or hides the key help.
func (u *UI) toggleHelp() {
	if u.helpOpen {
		u.helpOpen = false
		u.pages.HidePage("help")
		u.focusPane(u.stack[len(u.stack)-1].focus)
		return
	}
	u.stack[len(u.stack)-1].focus = u.focusIndex()
	u.helpText.SetText(helpText(u.current(), u.allViews())).ScrollToBeginning()
	u.helpOpen = true
	u.pages.ShowPage("help")
	u.pages.SendToFront("help")
	u.app.SetFocus(u.helpText)
}

// helpText lists every key: the global ones, the current view's, then the
// other views'.
func helpText(cur view, all []view) string {
	var b strings.Builder
	section := func(title string, keys []keyHelp) {
		fmt.Fprintf(&b, "[yellow::b]%s[-::-]\n", title)
		for _, k := range keys {
			fmt.Fprintf(&b, "  [green]%-18s[-] %s\n", escape(k.key), escape(k.what))
		}
		b.WriteByte('\n')
	}
	section("Everywhere", globalKeys)
	section("In "+cur.Name()+" (this view)", cur.Keys())
	for _, v := range all {
		if v != cur {
			section("In "+v.Name(), v.Keys())
		}
	}
	return b.String()
}
