package tui

import (
	"fmt"
	"strings"
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
