package tui

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/internal/golden"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// fakeApp stands in for tview.Application in widget and key tests: focus
// works as tview's does, and queued updates are recorded, not run.
type fakeApp struct {
	mu      sync.Mutex
	focus   tview.Primitive
	queued  []func()
	stopped bool
}

func (a *fakeApp) QueueUpdateDraw(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queued = append(a.queued, f)
}

func (a *fakeApp) SetFocus(p tview.Primitive) {
	a.mu.Lock()
	old := a.focus
	a.focus = p
	a.mu.Unlock()
	if old != nil {
		old.Blur()
	}
	if p != nil {
		p.Focus(a.SetFocus)
	}
}

func (a *fakeApp) GetFocus() tview.Primitive {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.focus
}

func (a *fakeApp) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
}

func (a *fakeApp) queuedCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queued)
}

// harness is a UI over a fully loaded model, drawn on a SimulationScreen,
// driven from the test goroutine (which plays the UI goroutine: it runs
// tick and the key handlers itself).
type harness struct {
	t      *testing.T
	u      *UI
	app    *fakeApp
	m      *Model
	screen tcell.SimulationScreen
	w, h   int
	quits  int
}

// writeScenario writes a synth capture to a temp dir under name.
func writeScenario(t testing.TB, name string, c *synth.Capture, f synth.Format) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+synth.Extension(f))
	if err := c.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// lossNAK writes the loss/NAK/replay scenario and returns its path.
func lossNAK(t testing.TB) string {
	return writeScenario(t, "loss_nak_replay", synth.LossNAKReplay(), synth.PcapNanos)
}

func newHarness(t *testing.T, w, h int, paths ...string) *harness {
	t.Helper()
	m, err := Open(Config{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := &harness{t: t, app: &fakeApp{}, m: m, w: w, h: h}
	pager := NewPager(m.readersAt(), paths, m.cfg.Decode, m.Snapshot().LinkBps, nil)
	hs.u = newUI(hs.app, m, pager, func() { hs.quits++ })
	pager.notify = hs.u.wakeUp
	m.SetNotify(hs.u.wakeUp)
	pagerDone := make(chan struct{})
	go func() { pager.Run(ctx); close(pagerDone) }()
	m.Start(ctx)
	<-m.Done()
	hs.screen = tcell.NewSimulationScreen("UTF-8")
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	hs.screen.SetSize(w, h)
	t.Cleanup(func() {
		cancel()
		<-pagerDone
		hs.u.jobs.wg.Wait()
		m.Close()
		hs.screen.Fini()
	})
	hs.settle()
	return hs
}

// settle lets background work finish and applies it, drawing in between
// (a draw asks the pager for rows), until nothing changes.
func (hs *harness) settle() {
	hs.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		hs.u.jobs.wg.Wait()
		for !hs.u.pager.Idle() {
			if time.Now().After(deadline) {
				hs.t.Fatal("pager never idle")
			}
			time.Sleep(time.Millisecond)
		}
		if hs.u.changed() { // as the supervisor: a tick only when something changed
			hs.u.tick()
		}
		hs.draw()
		if hs.u.jobs.idle() && hs.u.pager.Idle() && !hs.u.changed() {
			return
		}
		if time.Now().After(deadline) {
			hs.t.Fatal("UI never settled")
		}
	}
}

func (hs *harness) draw() {
	hs.u.root.SetRect(0, 0, hs.w, hs.h)
	hs.u.root.Draw(hs.screen)
	hs.screen.Show()
}

// key sends one key as tview's event loop would: the input capture first,
// then the root primitive's handler; then settles.
func (hs *harness) key(k tcell.Key, r rune) {
	hs.t.Helper()
	ev := tcell.NewEventKey(k, r, tcell.ModNone)
	if ev = hs.u.capture(ev); ev != nil && hs.u.root.HasFocus() {
		if handler := hs.u.root.InputHandler(); handler != nil {
			handler(ev, hs.app.SetFocus)
		}
	}
	if n := hs.app.queuedCount(); n != 0 {
		hs.t.Fatalf("a key handler queued %d updates", n)
	}
	hs.settle()
}

// keys sends runes one by one.
func (hs *harness) keys(s string) {
	hs.t.Helper()
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

// click sends a left click at x, y.
func (hs *harness) click(x, y int) {
	hs.t.Helper()
	ev := tcell.NewEventMouse(x, y, tcell.Button1, tcell.ModNone)
	if handler := hs.u.root.MouseHandler(); handler != nil {
		handler(tview.MouseLeftClick, ev, hs.app.SetFocus)
	}
	hs.settle()
}

// text returns the screen as lines of text, trailing blanks trimmed.
func (hs *harness) text() string {
	return screenText(hs.screen)
}

func screenText(s tcell.SimulationScreen) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := range h {
		var line strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				line.WriteByte(' ')
				continue
			}
			line.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// golden compares the screen with testdata/name.golden (-update rewrites).
func (hs *harness) golden(name string) {
	hs.t.Helper()
	checkGolden(hs.t, name, hs.text())
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

// contains fails unless the screen shows s.
func (hs *harness) contains(s string) {
	hs.t.Helper()
	if !strings.Contains(hs.text(), s) {
		hs.t.Fatalf("screen does not show %q:\n%s", s, hs.text())
	}
}
