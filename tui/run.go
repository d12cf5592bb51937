package tui

import (
	"context"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Run shows the terminal UI over the model's captures until the user quits
// or ctx ends, on screen (nil: the terminal). It starts loading, and
// returns the input errors met (files that could not be opened, damage),
// for the caller to report once the terminal is restored, and an error when
// the UI could not run. The model is closed when Run returns.
func Run(ctx context.Context, m *Model, screen tcell.Screen) ([]error, error) {
	defer m.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	app := tview.NewApplication().EnableMouse(true)
	if screen != nil {
		app.SetScreen(screen)
	}
	s := m.Snapshot()
	pager := NewPager(m.readersAt(), m.pagerNames(), m.cfg.Decode, s.LinkBps, nil)
	u := newUI(tviewApp{app}, m, pager, cancel)
	pager.notify = u.wakeUp
	m.SetNotify(u.wakeUp)

	started := make(chan struct{})
	var once sync.Once
	app.SetAfterDrawFunc(func(tcell.Screen) {
		once.Do(func() {
			close(started)
			if m.ready != nil {
				m.ready()
			}
		})
	})
	app.SetRoot(u.root, true).SetInputCapture(u.capture)

	pagerDone := make(chan struct{})
	go func() {
		pager.Run(ctx)
		close(pagerDone)
	}()
	m.Start(ctx)
	supervised := make(chan struct{})
	go func() {
		defer close(supervised)
		u.supervise(ctx, tviewApp{app}, started, func() {
			<-m.Done()
			<-pagerDone
			u.jobs.wg.Wait()
		})
	}()

	err := app.Run()
	cancel()
	<-supervised
	return m.Snapshot().Errors, err
}
