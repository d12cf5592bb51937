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
	u.helpText.SetText(u.helpContent()).ScrollToBeginning()
	u.helpOpen = true
	u.pages.ShowPage("help")
	u.pages.SendToFront("help")
	u.app.SetFocus(u.helpText)
}

// helpContent lists every key, from the binding tables: the global ones, the
// current view's, then the other views'.
func (u *UI) helpContent() string {
	var b strings.Builder
	section := func(title string, bs []binding) {
		fmt.Fprintf(&b, "[yellow::b]%s[-::-]\n", title)
		for i := range bs {
			fmt.Fprintf(&b, "  [green]%-18s[-] %s\n", escape(bs[i].keyLabel()), escape(bs[i].help))
		}
		b.WriteByte('\n')
	}
	cur := u.current()
	section("Everywhere", u.global)
	section("In "+cur.Name()+" (this view)", u.bindings[cur])
	for _, v := range u.allViews() {
		if v != cur {
			section("In "+v.Name(), u.bindings[v])
		}
	}
	return b.String()
}
