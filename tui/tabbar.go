package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// tabBar is the top line: the number-key views, the current one
// highlighted; a click switches view.
type tabBar struct {
	*tview.Box
	u     *UI
	spans [][2]int // x range of each tab
}

func newTabBar(u *UI) *tabBar { return &tabBar{Box: tview.NewBox(), u: u} }

// Draw draws the tabs, the current view's reversed (tview.Primitive).
func (t *tabBar) Draw(screen tcell.Screen) {
	t.DrawForSubclass(screen, t)
	x, y, w, _ := t.GetInnerRect()
	cur := t.u.current()
	style := tcell.StyleDefault.Background(tview.Styles.PrimitiveBackgroundColor).Foreground(tview.Styles.PrimaryTextColor)
	put := func(s string, st tcell.Style) {
		for _, r := range s {
			if x >= w {
				return
			}
			screen.SetContent(x, y, r, nil, st)
			x++
		}
	}
	put(" rocetrace ", style.Bold(true))
	t.spans = t.spans[:0]
	for i, v := range t.u.top {
		st := style
		if v == cur {
			st = st.Reverse(true)
		}
		start := x
		put(" "+itoa(i+1)+" "+v.Name()+" ", st)
		t.spans = append(t.spans, [2]int{start, x})
	}
	if cur == t.u.detail {
		put(" ", style)
		put(" "+cur.Name()+" ", style.Reverse(true))
	}
}

// MouseHandler switches view on a click on a tab.
func (t *tabBar) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
	return t.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		x, y := event.Position()
		if !t.InRect(x, y) || action != tview.MouseLeftClick {
			return false, nil
		}
		for i, sp := range t.spans {
			if x >= sp[0] && x < sp[1] {
				t.u.switchTo(t.u.top[i])
				return true, nil
			}
		}
		return true, nil
	})
}
