package tui

import "sync"

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
