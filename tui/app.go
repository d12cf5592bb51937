package tui

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Threading. Three kinds of goroutines touch the UI's data:
//
//   - the UI goroutine (tview's event loop) runs key and mouse handlers,
//     draws, and runs tick;
//   - the model's loader and the pager's worker publish immutable data
//     (snapshots, cached rows) and call wake;
//   - job goroutines compute row orders and read frames (jobs.go) and queue
//     a closure that applies the result.
//
// Only the supervisor goroutine calls QueueUpdateDraw: on a 100 ms ticker,
// or sooner when woken, and only when something changed, it queues tick,
// which swaps in the new snapshot, applies finished jobs and redraws. Key
// handlers never call QueueUpdate*, Draw or Stop: quitting cancels the
// context; the supervisor then waits for the loader and calls Stop.

// termApp is what the UI needs of tview.Application (tests use a fake that
// records queued updates).
type termApp interface {
	QueueUpdateDraw(f func())
	SetFocus(p tview.Primitive)
	GetFocus() tview.Primitive
	Stop()
}

type tviewApp struct{ app *tview.Application }

func (a tviewApp) QueueUpdateDraw(f func())   { a.app.QueueUpdateDraw(f) }
func (a tviewApp) SetFocus(p tview.Primitive) { a.app.SetFocus(p) }
func (a tviewApp) GetFocus() tview.Primitive  { return a.app.GetFocus() }
func (a tviewApp) Stop()                      { a.app.Stop() }

// snapshotSource gives the latest snapshot; the Model is one.
type snapshotSource interface {
	Snapshot() *Snapshot
}

// view is one screen of the UI.
type view interface {
	// Name is the view's title in the tab bar and status line.
	Name() string
	// Root is the view's primitive.
	Root() tview.Primitive
	// Panes are the focusable panes, in Tab order.
	Panes() []tview.Primitive
	// Refresh shows a snapshot (the view tells by itself whether its
	// Report is new). Called on the UI goroutine when the view is shown and
	// on each new snapshot while it is shown.
	Refresh(s *Snapshot)
	// HandleKey handles the view's own keys; it returns nil for a key it
	// used, the event otherwise.
	HandleKey(ev *tcell.EventKey) *tcell.EventKey
	// Filter returns the view's filter and whether it has one.
	Filter() (string, bool)
	// SetFilter sets the filter; final is false while it is being typed.
	SetFilter(text string, final bool)
	// Position tells where the selection is, e.g. "row 3/25".
	Position() string
	// Keys lists the view's own keys for the help and the status line.
	Keys() []keyHelp
}

// navEntry is one step of the navigation history.
type navEntry struct {
	v     view
	arg   int // view argument: the flow of a detail view, the frame to select
	focus int // focused pane
}

// UI is the terminal UI.
type UI struct {
	app   termApp
	model snapshotSource
	pager *Pager
	jobs  *jobs
	quit  func()
	wake  chan struct{}

	snap        *Snapshot // the snapshot shown (UI goroutine only)
	appliedSeq  atomic.Uint64
	appliedPage atomic.Uint64

	root     *tview.Flex
	tabs     *tabBar
	pages    *tview.Pages
	footer   *tview.Pages
	status   *tview.TextView
	input    *tview.InputField
	helpText *tview.TextView

	overview *overviewView
	flows    *flowsView
	detail   *detailView
	events   *eventsView
	packets  *packetsView
	pfc      *pfcView
	top      []view // the views of the number keys

	stack      []navEntry
	filtering  bool
	filterPrev string
	helpOpen   bool
	msg        string // one-off message in the status line
}

// newUI builds the UI over a model and a pager. quit is called when the
// user quits.
func newUI(app termApp, model snapshotSource, pager *Pager, quit func()) *UI {
	u := &UI{app: app, model: model, pager: pager, quit: quit, wake: make(chan struct{}, 1)}
	u.jobs = newJobs(u.wakeUp)
	u.overview = newOverviewView(u)
	u.flows = newFlowsView(u)
	u.detail = newDetailView(u)
	u.events = newEventsView(u)
	u.packets = newPacketsView(u)
	u.pfc = newPFCView(u)
	u.top = []view{u.overview, u.flows, u.events, u.packets, u.pfc}

	u.tabs = newTabBar(u)
	u.pages = tview.NewPages()
	for _, v := range []view{u.overview, u.flows, u.detail, u.events, u.packets, u.pfc} {
		u.pages.AddPage(v.Name(), v.Root(), true, false)
	}
	u.helpText = tview.NewTextView().SetDynamicColors(true).SetScrollable(true)
	u.helpText.SetBorder(true).SetTitle(" Keys (? or Esc to close) ")
	u.pages.AddPage("help", centered(u.helpText, 100), true, false)

	u.status = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	u.input = tview.NewInputField().SetLabel("/").SetFieldBackgroundColor(tview.Styles.MoreContrastBackgroundColor)
	u.input.SetChangedFunc(func(text string) {
		if u.filtering {
			u.current().SetFilter(text, false)
		}
	})
	u.input.SetDoneFunc(u.endFilter)
	u.footer = tview.NewPages().
		AddPage("status", u.status, true, true).
		AddPage("filter", u.input, true, false)

	u.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(u.tabs, 1, 0, false).
		AddItem(u.pages, 0, 1, true).
		AddItem(u.footer, 1, 0, false)

	u.snap = model.Snapshot()
	u.appliedSeq.Store(u.snap.Seq)
	u.push(u.overview, -1)
	return u
}

// centered places p in the middle of the screen, w wide, one line from the
// top and bottom.
func centered(p tview.Primitive, w int) tview.Primitive {
	return tview.NewFlex().
		AddItem(nil, 0, 1, false).
		AddItem(tview.NewFlex().SetDirection(tview.FlexRow).
			AddItem(nil, 1, 0, false).
			AddItem(p, 0, 1, true).
			AddItem(nil, 1, 0, false), w, 0, true).
		AddItem(nil, 0, 1, false)
}

// wakeUp asks the supervisor for a tick soon. It never blocks.
func (u *UI) wakeUp() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// changed reports whether a tick has something to do (any goroutine).
func (u *UI) changed() bool {
	return u.model.Snapshot().Seq != u.appliedSeq.Load() ||
		(u.pager != nil && u.pager.Version() != u.appliedPage.Load()) ||
		u.jobs.ready()
}

// supervise runs the UI's clock: it queues tick when something changed,
// and when ctx ends it waits for the background work (wait) and stops the
// application. started is closed by the first draw: nothing is queued
// before the application runs.
func (u *UI) supervise(ctx context.Context, app termApp, started <-chan struct{}, wait func()) {
	defer func() {
		wait()
		app.Stop()
	}()
	select {
	case <-ctx.Done():
		return
	case <-started:
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-u.wake:
		}
		if u.changed() {
			app.QueueUpdateDraw(u.tick)
		}
	}
}

// tick runs on the UI goroutine: it applies finished jobs and the latest
// snapshot.
func (u *UI) tick() {
	if u.pager != nil {
		u.appliedPage.Store(u.pager.Version())
	}
	for _, f := range u.jobs.take() {
		f()
	}
	if s := u.model.Snapshot(); s != u.snap {
		u.snap = s
		u.appliedSeq.Store(s.Seq)
		u.current().Refresh(s)
	}
	u.updateStatus()
}

func (u *UI) allViews() []view {
	return []view{u.overview, u.flows, u.detail, u.events, u.packets, u.pfc}
}

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

// startFilter opens the filter input for the current view.
func (u *UI) startFilter() {
	text, ok := u.current().Filter()
	if !ok {
		u.msg = "this view has no filter"
		return
	}
	u.stack[len(u.stack)-1].focus = u.focusIndex()
	u.filterPrev = text
	u.filtering = true
	u.input.SetText(text)
	u.footer.SwitchToPage("filter")
	u.app.SetFocus(u.input)
}

// endFilter closes the filter input: Enter keeps the filter, Esc restores
// the previous one.
func (u *UI) endFilter(key tcell.Key) {
	if !u.filtering {
		return
	}
	u.filtering = false
	if key == tcell.KeyEscape {
		u.current().SetFilter(u.filterPrev, true)
	} else {
		u.current().SetFilter(u.input.GetText(), true)
	}
	u.footer.SwitchToPage("status")
	u.focusPane(u.stack[len(u.stack)-1].focus)
	u.updateStatus()
}

// updateStatus rewrites the status line: file, view, position, loading
// progress or message, keys.
func (u *UI) updateStatus() {
	s := u.snap
	var b strings.Builder
	b.WriteString("[::b]")
	if s.Live {
		b.WriteString(escape(liveLabel(s.Files)))
	} else {
		b.WriteString(escape(fileLabel(s.Files)))
	}
	b.WriteString("[::-] │ ")
	b.WriteString(u.current().Name())
	if pos := u.current().Position(); pos != "" {
		b.WriteString(" │ " + pos)
	}
	if f, ok := u.current().Filter(); ok && f != "" {
		b.WriteString(" │ filter: " + escape(f))
	}
	b.WriteString(" │ ")
	switch {
	case u.msg != "":
		b.WriteString("[yellow]" + escape(u.msg) + "[-]")
	case s.Live:
		b.WriteString(liveStatus(s))
	case !s.Progress.Done:
		b.WriteString(progressBar(s.Progress, 20))
	case len(s.Errors) > 0:
		b.WriteString("[red]" + plural(int64(len(s.Errors)), "input error") + " (see Overview)[-]")
	default:
		b.WriteString(plural(s.Progress.Frames, "frame") + " loaded")
	}
	b.WriteString(" │ ? help  / filter  Enter open  Esc back  q quit")
	u.status.SetText(b.String())
}

// fileLabel names the inputs in one short string.
func fileLabel(files []string) string {
	if len(files) == 0 {
		return "-"
	}
	name := filepath.Base(files[0])
	if len(files) > 1 {
		name += " +" + itoa(len(files)-1)
	}
	return name
}

// liveLabel names a live capture: "live: eth1".
func liveLabel(files []string) string {
	if len(files) == 0 {
		return "live"
	}
	name := strings.TrimPrefix(files[0], "live:")
	return "live: " + strings.TrimSpace(name)
}

// liveStatus tells how a live capture is going: "● capturing 1,234 frames,
// 0 kernel drops" (the drops in red when there are any).
func liveStatus(s *Snapshot) string {
	state := "[green]● capturing[-] "
	if s.Progress.Done {
		state = "capture stopped: "
	}
	drops := plural(s.KernelDrops, "kernel drop")
	if s.KernelDrops > 0 {
		drops = "[red]" + drops + "[-]"
	}
	st := state + plural(s.Progress.Frames, "frame") + ", " + drops
	if len(s.Errors) > 0 {
		st += " [red](" + plural(int64(len(s.Errors)), "error") + ", see Overview)[-]"
	}
	return st
}

// progressBar renders loading progress: "loading ▕████░░░░▏ 45% 1,234 frames".
func progressBar(p Progress, w int) string {
	f := p.Fraction()
	full := int(f * float64(w))
	bar := strings.Repeat("█", full) + strings.Repeat("░", w-full)
	pct := itoa(int(f*100)) + "%"
	if p.TotalBytes <= 0 {
		pct = "?"
	}
	return "loading ▕" + bar + "▏ " + pct + " " + plural(p.Frames, "frame")
}

// jobs runs work off the UI goroutine: start runs work in a goroutine; the
// closure it returns is queued and run by tick on the UI goroutine. A job
// started under a name supersedes the unfinished one of that name: the
// older result is dropped.
type jobs struct {
	mu      sync.Mutex
	done    []func()
	running int
	seq     map[string]uint64
	wake    func()
	wg      sync.WaitGroup
}

func newJobs(wake func()) *jobs { return &jobs{seq: map[string]uint64{}, wake: wake} }

func (j *jobs) start(name string, work func() func()) {
	j.mu.Lock()
	j.running++
	j.seq[name]++
	my := j.seq[name]
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		apply := work()
		j.mu.Lock()
		j.running--
		if apply != nil && j.seq[name] == my {
			j.done = append(j.done, apply)
		}
		j.mu.Unlock()
		j.wake()
	}()
}

// take returns the results to apply.
func (j *jobs) take() []func() {
	j.mu.Lock()
	defer j.mu.Unlock()
	d := j.done
	j.done = nil
	return d
}

// ready reports whether results wait to be applied.
func (j *jobs) ready() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.done) > 0
}

// idle reports whether no job runs and no result waits.
func (j *jobs) idle() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.running == 0 && len(j.done) == 0
}

// tabBar is the top line: the number-key views, the current one
// highlighted; a click switches view.
type tabBar struct {
	*tview.Box
	u     *UI
	spans [][2]int // x range of each tab
}

func newTabBar(u *UI) *tabBar { return &tabBar{Box: tview.NewBox(), u: u} }

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
