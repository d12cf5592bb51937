package colenc

import "sync/atomic"

// pageSets is the number of sets of pages in rotation (double buffering):
// one filled by the row side, one encoded.
const pageSets = 2

// Set is what the row side fills: Pages with the planes it owns.
type Set interface {
	// Pages returns the set's Pages.
	Pages() *Pages
}

// Pipeline runs an Encoder on a worker goroutine: the row side hands it
// full sets (Send) and gets back empty ones, so that one set fills while
// the other is encoded. The first error stops the encoding; later sets
// are returned untouched. Everything the worker does depends only on the
// rows, in order, so the file is the same bytes whatever the timing.
type Pipeline[S Set] struct {
	enc    *Encoder
	full   chan S
	free   chan S
	done   chan struct{}
	failed atomic.Bool
	err    error // set before failed
	closed bool
}

// StartPipeline starts the worker of enc, with sets made by newSet, and
// returns it with the first empty set.
func StartPipeline[S Set](enc *Encoder, newSet func() S) (*Pipeline[S], S) {
	p := &Pipeline[S]{
		enc:  enc,
		full: make(chan S, pageSets),
		free: make(chan S, pageSets),
		done: make(chan struct{}),
	}
	for range pageSets - 1 {
		p.free <- newSet()
	}
	go p.run()
	return p, newSet()
}

func (p *Pipeline[S]) run() {
	defer close(p.done)
	for s := range p.full {
		pages := s.Pages()
		if !p.failed.Load() {
			if err := p.enc.Encode(pages); err != nil {
				p.err = err
				p.failed.Store(true)
			}
		}
		pages.Reset()
		p.free <- s
	}
}

// Send hands s to the worker and returns an empty set.
func (p *Pipeline[S]) Send(s S) (S, error) {
	if p.failed.Load() {
		return s, p.err
	}
	p.full <- s
	s = <-p.free
	if p.failed.Load() {
		return s, p.err
	}
	return s, nil
}

// Stop waits for the worker to finish the sets it has and returns its
// error. It is safe to call more than once.
func (p *Pipeline[S]) Stop() error {
	if !p.closed {
		p.closed = true
		close(p.full)
		<-p.done
	}
	if p.failed.Load() {
		return p.err
	}
	return nil
}

// Encoder returns the pipeline's Encoder, to write the footer once Stop
// has returned; nil after Release.
func (p *Pipeline[S]) Encoder() *Encoder { return p.enc }

// Release drops the encoder and the idle sets once the pipeline is
// stopped, so that their memory is free for what follows.
func (p *Pipeline[S]) Release() {
	p.enc = nil
	for len(p.free) > 0 {
		<-p.free
	}
}
