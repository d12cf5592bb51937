package analysis

// WriteJSON writes a lean report's events on two goroutines: this one
// writes the first ones to the output, a second formats the last ones
// (at most splitMaxEvents) into blocks of memory meanwhile, and this one
// then writes those blocks. The findings' goroutine (Await) runs at the
// same time: the flows, the events and the findings of report --json of 1M
// frames take ~4, ~4 and ~4 ms of one core, the serial tail of the report,
// during which the second core was idle.

const (
	// splitMinEvents: with fewer events, one goroutine writes them all.
	splitMinEvents = 2 * rowChunk
	// splitMaxEvents bounds the events the second goroutine formats (their
	// JSON is held in memory until written: ~200 bytes an event).
	splitMaxEvents = 1 << 16
	// splitBlock is the size of the blocks of formatted events: filled
	// one after the other, never copied as they grow.
	splitBlock = 64 << 10
)

// eventSplit is when and how WriteJSON splits a lean report's events: from
// min events on, formatted into blocks of block bytes (splitMinEvents and
// splitBlock; tests split smaller reports into smaller blocks).
type eventSplit struct{ min, block int }

// eventsTail is the JSON of a lean report's events [from, to), each
// preceded by its separator, formatted on a goroutine of its own.
type eventsTail struct {
	done   chan struct{}
	blocks [][]byte
}

// splitEvents returns where WriteJSON's own writing of the events of r (n
// of them) stops, and the goroutine formatting the rest (nil: none, under
// sp.min events).
func splitEvents(r *Report, n int, indent bool, sp eventSplit) (int, *eventsTail) {
	if r.lean == nil || n < max(sp.min, 2) {
		return n, nil
	}
	from := n - min(n/2, splitMaxEvents)
	et := &eventsTail{done: make(chan struct{})}
	go func() {
		defer close(et.done)
		et.blocks = formatEvents(r, from, n, indent, sp.block)
	}()
	return from, et
}

// formatEvents formats the events [from, to) of the lean report r as
// elements of the events array after the first (each preceded by its
// separator) into blocks of about block bytes.
func formatEvents(r *Report, from, to int, indent bool, block int) [][]byte {
	sep := ","
	if indent {
		sep = ",\n    "
	}
	var blocks [][]byte
	b := make([]byte, 0, block)
	rows := make([]EventReport, 0, rowChunk)
	for i := from; i < to; i += rowChunk {
		rows = r.AppendEvents(rows[:0], i, min(i+rowChunk, to))
		for k := range rows {
			if cap(b)-len(b) < block/8 { // an event takes well under 8 KiB
				blocks = append(blocks, b)
				b = make([]byte, 0, block)
			}
			b = append(b, sep...)
			b = rows[k].appendJSON(b, indent)
		}
	}
	return append(blocks, b)
}

// events writes the events member's array of r (see splitEvents).
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
	split, tail := splitEvents(r, n, jw.indent, jw.split)
	ec := r.eventCursor()
	ec.n = split // a lean report's rows: built up to split only
	jw.raw("[")
	for i := range split {
		if i > 0 {
			jw.raw(",")
		}
		if jw.indent {
			jw.raw("\n    ")
		}
		jw.tmp = ec.at(i).appendJSON(jw.tmp[:0], jw.indent)
		jw.w.Write(jw.tmp)
	}
	if tail != nil {
		<-tail.done
		for _, b := range tail.blocks {
			jw.w.Write(b)
		}
	}
	if jw.indent {
		jw.raw("\n  ")
	}
	jw.raw("]")
}
