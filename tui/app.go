package tui

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// The UI's files: app.go (the UI, its construction, its clock and the
// threading rules below), nav.go (the history of views and the focus),
// keys.go (the binding tables and the key handling), help.go (the help
// overlay), tabbar.go (the top line), statusbar.go (the bottom line: the
// status or the filter input), jobs.go (background jobs); one file per
// view (overview.go, flowsview.go, detail.go, eventsview.go,
// packetsview.go, pfcview.go).
//
// Threading. Four kinds of goroutines touch the UI's data:
//
//   - the UI goroutine (tview's event loop; the test goroutine in the
//     harness) runs the key and mouse handlers (capture, the bindings'
//     actions, the panes' handlers), draws, and runs tick and the closures
//     of finished jobs. It alone touches the tview primitives, the views,
//     the history (stack), snap, msg, the filter and help state.
//   - the supervisor goroutine (supervise) is the only one that calls
//     QueueUpdateDraw: on a 100 ms ticker, or sooner when woken, and only
//     when something changed (changed), it queues tick, which swaps in the
//     new snapshot, applies finished jobs and redraws. It reads only what
//     any goroutine may: the model's latest snapshot, the pager's version,
//     appliedSeq and appliedPage (atomics), and jobs.ready.
//   - the model's loader and the pager's worker publish immutable data
//     (snapshots, cached rows) under their own locks and call wakeUp.
//   - job goroutines (jobs.go) run the work of jobs.start: it may read the
//     immutable snapshot and report it was handed, and the pager, never
//     the UI or a view; it returns a closure, which tick runs on the UI
//     goroutine to apply the result.
//
// wakeUp and changed are safe on any goroutine; everything else of UI is
// for the UI goroutine. Handlers never call QueueUpdate*, Draw or Stop (a
// QueueUpdateDraw from the UI goroutine would deadlock tview): quitting
// calls quit, which cancels the context; the supervisor then waits for the
// loader, the pager and the jobs, and calls Stop.

// termApp is what the UI needs of tview.Application (tests use a fake that
// records queued updates).
type termApp interface {
	QueueUpdateDraw(f func())
	SetFocus(p tview.Primitive)
	GetFocus() tview.Primitive
	Stop()
}

// tviewApp is the real termApp.
type tviewApp struct{ app *tview.Application }

// QueueUpdateDraw implements termApp.
func (a tviewApp) QueueUpdateDraw(f func()) { a.app.QueueUpdateDraw(f) }

// SetFocus implements termApp.
func (a tviewApp) SetFocus(p tview.Primitive) { a.app.SetFocus(p) }

// GetFocus implements termApp.
func (a tviewApp) GetFocus() tview.Primitive { return a.app.GetFocus() }

// Stop implements termApp.
func (a tviewApp) Stop() { a.app.Stop() }

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
	// Filter returns the view's filter and whether it has one.
	Filter() (string, bool)
	// SetFilter sets the filter; final is false while it is being typed.
	SetFilter(text string, final bool)
	// Position tells where the selection is, e.g. "row 3/25".
	Position() string
	// Bindings is the table of the view's own keys (keys.go): called once,
	// by newUI; the table drives both the key handling and the help.
	Bindings() []binding
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
	// frames labels the events tables' Frame column (eventframes.go)
	frames *eventFrames
	wake   chan struct{}

	snap        *Snapshot // the snapshot shown (UI goroutine only)
	appliedSeq  atomic.Uint64
	appliedPage atomic.Uint64

	root      *tview.Flex
	tabs      *tabBar
	pages     *tview.Pages
	footer    *tview.Pages
	status    *tview.TextView
	input     *tview.InputField
	filterErr *tview.TextView // the packets filter's live error, under the input (pktfilter.go)
	helpText  *tview.TextView

	overview *overviewView
	flows    *flowsView
	detail   *detailView
	events   *eventsView
	packets  *packetsView
	pfc      *pfcView
	conns    *connsView
	top      []view // the views of the number keys, in order

	global   []binding          // the keys of every view
	bindings map[view][]binding // each view's own keys

	stack      []navEntry
	filtering  bool
	filterPrev string
	helpOpen   bool
	msg        string       // one-off message in the status line
	width      int          // the screen's width at the last draw (the status line fits it)
	prompt     func(string) // the bottom input asks for a line (startPrompt), not a filter

	points *pointsView // the capture points (a tab with --point only; nil without)
}

// newUI builds the UI over a model and a pager. quit is called when the
// user quits.
func newUI(app termApp, model snapshotSource, pager *Pager, quit func()) *UI {
	u := &UI{app: app, model: model, pager: pager, quit: quit, wake: make(chan struct{}, 1)}
	u.jobs = newJobs(u.wakeUp)
	u.frames = newEventFrames(u)
	u.overview = newOverviewView(u)
	u.flows = newFlowsView(u)
	u.detail = newDetailView(u)
	u.events = newEventsView(u)
	u.packets = newPacketsView(u)
	if m, ok := model.(interface{ displayFilter() string }); ok {
		u.packets.initFilter(m.displayFilter()) // -Y
	}
	u.pfc = newPFCView(u)
	u.conns = newConnsView(u)
	u.top = []view{u.overview, u.flows, u.events, u.packets, u.pfc, u.conns}
	if len(model.Snapshot().PointNames) > 0 {
		u.points = newPointsView(u)
		u.top = append(u.top, u.points)
	}
	u.global = globalBindings(u, u.top)
	u.bindings = map[view][]binding{}
	for _, v := range u.allViews() {
		u.bindings[v] = v.Bindings()
	}

	u.tabs = newTabBar(u)
	u.pages = tview.NewPages()
	for _, v := range u.allViews() {
		u.pages.AddPage(v.Name(), v.Root(), true, false)
	}
	u.helpText = tview.NewTextView().SetDynamicColors(true).SetScrollable(true)
	u.helpText.SetBorder(true).SetTitle(" Keys (? or Esc to close) ")
	u.pages.AddPage("help", centered(u.helpText, 100), true, false)

	u.status = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	u.input = tview.NewInputField().SetLabel("/").SetFieldBackgroundColor(tview.Styles.MoreContrastBackgroundColor)
	u.input.SetChangedFunc(func(text string) {
		if u.filtering && u.prompt == nil {
			u.current().SetFilter(text, false)
		}
	})
	u.input.SetDoneFunc(u.endFilter)
	u.filterErr = tview.NewTextView().SetWrap(false)
	u.footer = tview.NewPages().
		AddPage("status", u.status, true, true).
		AddPage("filter", tview.NewFlex().SetDirection(tview.FlexRow).AddItem(u.input, 1, 0, true).AddItem(u.filterErr, 1, 0, false), true, false)

	u.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(u.tabs, 1, 0, false).
		AddItem(u.pages, 0, 1, true).
		AddItem(u.footer, 1, 0, false)

	// The status line's position follows the selection: the panes move it
	// themselves (j, k, g...), so it is written again before every draw.
	// It runs under tview's application lock: updateStatus and the views'
	// Position must not call the application (GetFocus would deadlock).
	u.root.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		u.width = w
		u.updateStatus()
		return x, y, w, h
	})

	u.snap = model.Snapshot()
	u.appliedSeq.Store(u.snap.Seq)
	u.push(u.overview, -1)
	return u
}

// centered places p in the middle of the screen, at most w wide (the
// screen's width less a column on each side when narrower), one line from
// the top and bottom.
func centered(p tview.Primitive, w int) tview.Primitive {
	outer := tview.NewFlex()
	inner := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(nil, 1, 0, false).
		AddItem(p, 0, 1, true).
		AddItem(nil, 1, 0, false)
	outer.AddItem(nil, 0, 1, false).AddItem(inner, w, 0, true).AddItem(nil, 0, 1, false)
	outer.SetDrawFunc(func(_ tcell.Screen, x, y, width, height int) (int, int, int, int) {
		outer.ResizeItem(inner, max(1, min(w, width-2)), 0)
		return x, y, width, height
	})
	return outer
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

// allViews returns every view, in the order of the help.
func (u *UI) allViews() []view {
	views := []view{u.overview, u.flows, u.detail, u.events, u.packets, u.pfc, u.conns}
	if u.points != nil {
		views = append(views, u.points)
	}
	return views
}
