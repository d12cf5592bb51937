package tui

// Navigation: the history of views, the focused pane, and opening a flow,
// a frame or an event from anywhere. UI goroutine only.

// current returns the view on top of the history.
func (u *UI) current() view { return u.stack[len(u.stack)-1].v }

// push shows v on top of the history.
func (u *UI) push(v view, arg int) {
	if n := len(u.stack); n > 0 {
		u.stack[n-1].focus = u.focusIndex()
	}
	u.stack = append(u.stack, navEntry{v: v, arg: arg})
	u.showTop()
}

// back returns to the previous view.
func (u *UI) back() {
	if len(u.stack) <= 1 {
		return
	}
	u.stack = u.stack[:len(u.stack)-1]
	u.showTop()
}

// switchTo shows one of the top views (number keys). When the view is in
// the history, the history goes back to it (so it never grows by
// switching); otherwise it is pushed.
func (u *UI) switchTo(v view) {
	if u.current() == v {
		return
	}
	for i := len(u.stack) - 2; i >= 0; i-- {
		if u.stack[i].v == v {
			u.stack = u.stack[:i+1]
			u.showTop()
			return
		}
	}
	u.push(v, -1)
}

// showTop shows the view on top of the history.
func (u *UI) showTop() {
	e := u.stack[len(u.stack)-1]
	switch e.v {
	case u.detail:
		u.detail.open(e.arg)
	case u.packets:
		if e.arg >= 0 {
			u.packets.selectPos(e.arg)
			u.stack[len(u.stack)-1].arg = -1 // coming back keeps the user's selection
		}
	}
	u.pages.SwitchToPage(e.v.Name())
	u.helpOpen = false
	e.v.Refresh(u.snap)
	panes := e.v.Panes()
	if len(panes) > 0 {
		u.app.SetFocus(panes[min(max(e.focus, 0), len(panes)-1)])
	}
	u.msg = ""
	u.updateStatus()
}

// focusIndex returns the focused pane of the current view.
func (u *UI) focusIndex() int {
	if len(u.stack) == 0 {
		return 0
	}
	f := u.app.GetFocus()
	for i, p := range u.current().Panes() {
		if p == f {
			return i
		}
	}
	return 0
}

// cyclePane moves the focus to the next (d = 1) or previous pane.
func (u *UI) cyclePane(d int) {
	panes := u.current().Panes()
	if len(panes) == 0 {
		return
	}
	i := (u.focusIndex() + d + len(panes)) % len(panes)
	u.app.SetFocus(panes[i])
}

// focusPane focuses pane i of the current view.
func (u *UI) focusPane(i int) {
	panes := u.current().Panes()
	if i >= 0 && i < len(panes) {
		u.app.SetFocus(panes[i])
	}
}

// openFlow shows the detail of flow i.
func (u *UI) openFlow(i int) {
	if u.snap.Report == nil || i < 0 || i >= len(u.snap.Report.Flows) {
		return
	}
	u.push(u.detail, i)
}

// openFlowID shows the detail of the flow with this id.
func (u *UI) openFlowID(id string) {
	if i, ok := u.snap.FlowIndex[id]; ok {
		u.openFlow(i)
		return
	}
	u.msg = "flow " + id + " is not in the report yet"
}

// openPacket shows the packets view with frame pos selected.
func (u *UI) openPacket(pos int) {
	if pos < 0 || pos >= u.snap.Index.Len() {
		return
	}
	if u.current() == u.packets {
		u.packets.selectPos(pos)
		return
	}
	u.push(u.packets, pos)
}

// openEvent finds the frame that shows event i of the report (in a job: it
// reads the file) and shows it.
func (u *UI) openEvent(i int) {
	s := u.snap
	if s.Report == nil || i < 0 || i >= len(s.Report.Events) {
		return
	}
	ev := &s.Report.Events[i]
	u.msg = "finding the frame of the " + ev.Kind + " event…"
	u.jobs.start("resolve", func() func() {
		pos, err := u.pager.Resolve(s, ev)
		return func() {
			if err != nil {
				u.msg = err.Error()
				return
			}
			u.msg = ""
			u.openPacket(pos)
		}
	})
}

// openPFC shows the PFC view with entry i (of Report.PFC) selected.
func (u *UI) openPFC(i int) {
	u.switchTo(u.pfc)
	u.pfc.selectRow(i)
}
