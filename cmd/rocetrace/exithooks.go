package main

import (
	"sync"
	"time"
)

// exitHooks are the cleanups main's watchdog runs before it ends a process
// whose command did not return a second after a signal: an export's
// export.Export.RemoveTemps, so that its temporary files do not outlive it.
// main makes one and hands it to the commands (runWithHooks); a nil
// *exitHooks registers nothing (run, for the tests). Safe for concurrent
// use: the commands add and remove, the watchdog runs.
type exitHooks struct {
	mu  sync.Mutex
	fns map[int]func()
	n   int
}

// add registers fn and returns the function that takes it back (call it
// once fn is no longer needed: the export has returned).
func (h *exitHooks) add(fn func()) (remove func()) {
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fns == nil {
		h.fns = make(map[int]func())
	}
	id := h.n
	h.n++
	h.fns[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.fns, id)
		h.mu.Unlock()
	}
}

// run calls the registered functions, one after the other, and reports
// whether they all returned within wait (one may wait for a rename in
// progress; the process ends all the same).
func (h *exitHooks) run(wait time.Duration) bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	fns := make([]func(), 0, len(h.fns))
	for _, fn := range h.fns {
		fns = append(fns, fn)
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for _, fn := range fns {
			fn()
		}
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}
