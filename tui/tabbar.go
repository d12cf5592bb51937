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

// Draw draws the tabs, the current view's reversed (tview.Primitive). When
// they do not fit, the title goes first, then the names shorten to four
// letters, then to the number keys alone.
func (t *tabBar) Draw(screen tcell.Screen) {
	t.DrawForSubclass(screen, t)
	x0, y, w, _ := t.GetInnerRect()
	cur := t.u.current()
	style := tcell.StyleDefault.Background(tview.Styles.PrimitiveBackgroundColor).Foreground(tview.Styles.PrimaryTextColor)
	brand, short := true, -1
	for _, level := range []struct {
		brand bool
		short int
	}{{true, -1}, {false, -1}, {false, 4}, {false, 0}} {
		brand, short = level.brand, level.short
		if t.width(brand, short) <= w {
			break
		}
	}
	x := x0
	put := func(s string, st tcell.Style) {
		for _, r := range s {
			if x >= x0+w {
				return
			}
			screen.SetContent(x, y, r, nil, st)
			x++
		}
	}
	if brand {
		put(" rocetrace ", style.Bold(true))
	}
	t.spans = t.spans[:0]
	for i, v := range t.u.top {
		st := style
		if v == cur {
			st = st.Reverse(true)
		}
		start := x
		put(tabLabel(i, v.Name(), short), st)
		t.spans = append(t.spans, [2]int{start, x})
	}
	if cur == t.u.detail {
		put(" ", style)
		put(tabLabel(-1, cur.Name(), short), style.Reverse(true))
	}
}

// tabLabel is " N Name ": the name cut to short letters (-1: whole, 0:
// none), no number when i < 0.
func tabLabel(i int, name string, short int) string {
	if r := []rune(name); short >= 0 && len(r) > short {
		name = string(r[:short])
	}
	s := " "
	if i >= 0 {
		s += itoa(i+1) + " "
	}
	if name == "" {
		return s
	}
	return s + name + " "
}

// width is the width of the bar drawn with these choices.
func (t *tabBar) width(brand bool, short int) int {
	n := 0
	if brand {
		n += len(" rocetrace ")
	}
	for i, v := range t.u.top {
		n += len([]rune(tabLabel(i, v.Name(), short)))
	}
	if t.u.current() == t.u.detail {
		n += 1 + len([]rune(tabLabel(-1, t.u.detail.Name(), short)))
	}
	return n
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
