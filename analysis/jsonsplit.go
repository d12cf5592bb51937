package analysis

import "sync"

// WriteJSON writes a lean report's events on two goroutines. The events
// are cut into chunks: this goroutine takes them from the front and writes
// them to the output, a second one takes them from the back and formats
// them into blocks of memory meanwhile, until they meet; this one then
// writes the second one's blocks. Taking chunks as they go, rather than a
// half each, keeps both busy whatever the other work on the cores (the
// findings' goroutine, Await, runs at the same time). The flows, the events
// and the findings of report --json of 1M frames take ~4, ~4 and ~4 ms of
// one core: the serial tail of the report, during which the second core
// was idle.

const (
	// splitMinEvents: with fewer events, one goroutine writes them all.
	splitMinEvents = 2 * splitChunk
	// splitMaxEvents bounds the events the second goroutine formats (their
	// JSON is held in memory until written: ~200 bytes an event).
	splitMaxEvents = 1 << 16
	// splitChunk is the number of events a goroutine takes at a time.
	splitChunk = 512
	// splitBlock is the size of the blocks of formatted events: filled
	// one after the other, never copied as they grow.
	splitBlock = 64 << 10
)

// eventSplit is when and how WriteJSON splits a lean report's events: from
// min events on, in chunks of chunk events, formatted into blocks of block
// bytes (splitMinEvents, splitChunk and splitBlock; tests split smaller
// reports into smaller chunks and blocks).
type eventSplit struct{ min, chunk, block int }

// eventChunks hands out the chunks of n events: front to one goroutine,
// back to the other, each chunk once.
type eventChunks struct {
	mu          sync.Mutex
	front, back int // chunks [front, back) are left
	chunk, n    int
	backEvents  int // events taken from the back
}

// takeFront returns the next chunk from the front: events [from, to).
func (c *eventChunks) takeFront() (from, to int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.front == c.back {
		return 0, 0, false
	}
	c.front++
	return (c.front - 1) * c.chunk, min(c.front*c.chunk, c.n), true
}

// takeBack returns the next chunk from the back, while the events taken
// from the back stay under splitMaxEvents.
func (c *eventChunks) takeBack() (from, to int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.front == c.back || c.backEvents >= splitMaxEvents {
		return 0, 0, false
	}
	c.back--
	from, to = c.back*c.chunk, min((c.back+1)*c.chunk, c.n)
	c.backEvents += to - from
	return from, to, true
}

// eventsBack is the JSON of the chunks a second goroutine took from the
// back, each event preceded by its separator: blocks[k] holds chunk
// first+k.
type eventsBack struct {
	done   chan struct{}
	first  int
	blocks [][][]byte
}

// startBack starts the second goroutine on c's chunks of the lean report r.
func startBack(r *Report, c *eventChunks, indent bool, block int) *eventsBack {
	eb := &eventsBack{done: make(chan struct{})}
	go func() {
		defer close(eb.done)
		var rev [][][]byte // in the order taken: last chunk first
		for {
			from, to, ok := c.takeBack()
			if !ok {
				break
			}
			rev = append(rev, formatEvents(r, from, to, indent, block))
			eb.first = from / c.chunk
		}
		for i := len(rev) - 1; i >= 0; i-- {
			eb.blocks = append(eb.blocks, rev[i])
		}
	}()
	return eb
}

// eventSep is what precedes event i in the events array: a comma but
// before event 0, then the indentation when indent. Both writers of events
// (eventRange, formatEvents) use it: the second goroutine of the split may
// take chunk 0 too.
func eventSep(i int, indent bool) string {
	switch {
	case i > 0 && indent:
		return ",\n    "
	case i > 0:
		return ","
	case indent:
		return "\n    "
	}
	return ""
}

// formatEvents formats the events [from, to) of the lean report r as
// elements of the events array, each preceded by its eventSep, into blocks
// of about block bytes.
func formatEvents(r *Report, from, to int, indent bool, block int) [][]byte {
	var blocks [][]byte
	b := make([]byte, 0, block)
	rows := r.AppendEvents(make([]EventReport, 0, to-from), from, to)
	for k := range rows {
		if cap(b)-len(b) < block/8 { // an event takes well under 8 KiB
			blocks = append(blocks, b)
			b = make([]byte, 0, block)
		}
		b = append(b, eventSep(from+k, indent)...)
		b = rows[k].appendJSON(b, indent)
	}
	return append(blocks, b)
}

// events writes the events member's array of r (see above).
func (jw *jsonWriter) events(r *Report) {
	if r.Events == nil && r.lean == nil {
		jw.raw("null")
		return
	}
	n := r.NumEvents()
	if n == 0 {
		jw.raw("[]")
		return
	}
	jw.raw("[")
	if sp := jw.split; r.lean == nil || n < max(sp.min, 2) {
		jw.eventRange(r, 0, n)
	} else {
		c := &eventChunks{back: (n + sp.chunk - 1) / sp.chunk, chunk: sp.chunk, n: n}
		back := startBack(r, c, jw.indent, sp.block)
		for {
			from, to, ok := c.takeFront()
			if !ok {
				break
			}
			jw.eventRange(r, from, to)
		}
		<-back.done
		for _, chunk := range back.blocks {
			for _, b := range chunk {
				jw.w.Write(b)
			}
		}
	}
	if jw.indent {
		jw.raw("\n  ")
	}
	jw.raw("]")
}

// eventRange writes the events [from, to) of r as elements of the events
// array (built rowChunk at a time for a lean report).
func (jw *jsonWriter) eventRange(r *Report, from, to int) {
	for base := from; base < to; base += rowChunk {
		end := min(base+rowChunk, to)
		rows := r.Events[min(base, len(r.Events)):min(end, len(r.Events))]
		if r.lean != nil {
			jw.rows = r.AppendEvents(jw.rows[:0], base, end)
			rows = jw.rows
		}
		for k := range rows {
			jw.raw(eventSep(base+k, jw.indent))
			jw.tmp = rows[k].appendJSON(jw.tmp[:0], jw.indent)
			jw.w.Write(jw.tmp)
		}
	}
}
