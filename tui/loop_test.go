package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// runApp runs the real application (tview's event loop, the supervisor,
// the loader and the pager) on a simulation screen.
type runApp struct {
	t      *testing.T
	screen *recScreen
	done   chan struct{}
	errs   []error
	err    error
}

// recScreen records the screen's text at every Show, on the goroutine that
// draws: the simulation screen's GetContents hands out its live buffer,
// which another goroutine may not read while the application draws.
type recScreen struct {
	tcell.SimulationScreen
	mu   sync.Mutex
	text string
}

func (r *recScreen) Show() {
	r.SimulationScreen.Show()
	text := screenText(r.SimulationScreen)
	r.mu.Lock()
	r.text = text
	r.mu.Unlock()
}

func (r *recScreen) shown() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text
}

func startApp(t *testing.T, ctx context.Context, paths ...string) *runApp {
	t.Helper()
	m, err := Open(Config{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	return startModel(t, ctx, m)
}

func startModel(t *testing.T, ctx context.Context, m *Model) *runApp {
	t.Helper()
	ra := &runApp{t: t, screen: &recScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}, done: make(chan struct{})}
	ready := make(chan struct{})
	m.ready = func() { // on the UI goroutine, after the first draw
		ra.screen.SetSize(120, 40) // Run initialised it to 80x25; the next draw uses this
		close(ready)
	}
	go func() {
		defer close(ra.done)
		ra.errs, ra.err = Run(ctx, m, ra.screen)
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("no first draw")
	}
	return ra
}

// waitFor waits until the screen shows every string.
func (ra *runApp) waitFor(want ...string) {
	ra.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text := ra.screen.shown()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			ra.t.Fatalf("the screen never showed %q:\n%s", want, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (ra *runApp) key(k tcell.Key, r rune) { ra.screen.InjectKey(k, r, tcell.ModNone) }

func (ra *runApp) wait() {
	ra.t.Helper()
	select {
	case <-ra.done:
	case <-time.After(10 * time.Second):
		ra.t.Fatal("Run did not return")
	}
}

// The whole loop: load a capture, walk from the overview to the worst
// flow, to its first event, to the frame that shows it; quit.
func TestFullLoop(t *testing.T) {
	ra := startApp(t, context.Background(), lossNAK(t))
	ra.waitFor("Connections with the most problems", "10.0.0.1>10.0.0.2:qp0x000022", "23 frames loaded")
	ra.key(tcell.KeyEnter, 0) // the worst flow
	ra.waitFor("Flow #1", "expected PSN 1003, got 1004", "Packets (20")
	ra.key(tcell.KeyEnter, 0) // its first event: the PSN gap
	ra.waitFor("Headers of frame 4", "Frame 4: 1082 bytes on wire", "Packets │ row 4/23")
	ra.key(tcell.KeyEscape, 0) // back to the flow
	ra.waitFor("Flow #1", "Flow │ event 1/3")
	ra.key(tcell.KeyRune, '?')
	ra.waitFor("Keys (? or Esc to close)")
	ra.key(tcell.KeyRune, '?')
	ra.key(tcell.KeyRune, 'q')
	ra.wait()
	if ra.err != nil || len(ra.errs) != 0 {
		t.Fatalf("Run: %v, input errors %v", ra.err, ra.errs)
	}
}

// Cancelling the context (SIGINT in the CLI) ends Run too.
func TestRunStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ra := startApp(t, ctx, lossNAK(t))
	ra.waitFor("23 frames loaded")
	cancel()
	ra.wait()
	if ra.err != nil {
		t.Fatal(ra.err)
	}
}
