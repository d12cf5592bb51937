package flows

import "sort"

// Chunks of the table's event store: 4096 events of 64 bytes, 256 KiB.
const (
	eventChunkBits = 12
	eventChunk     = 1 << eventChunkBits
	firstChunkCap  = 16 // the first chunk grows by append: a small table stays small
)

// eventStore holds the table's events in chunks of eventChunk. Appending
// never copies the events stored before (a slice that grows holds its old
// and new arrays together while it copies, which would make the peak
// memory of a capture with a million events about twice their size): the
// store costs 64 bytes an event plus at most one chunk.
type eventStore struct {
	chunks [][]Event // all full but the last
	n      int
}

func (s *eventStore) len() int { return s.n }

// at returns the i-th event, 0 <= i < len.
func (s *eventStore) at(i int) *Event {
	return &s.chunks[i>>eventChunkBits][i&(eventChunk-1)]
}

func (s *eventStore) add(e Event) {
	c := s.n >> eventChunkBits
	if c == len(s.chunks) {
		size := eventChunk
		if c == 0 {
			size = firstChunkCap
		}
		s.chunks = append(s.chunks, make([]Event, 0, size))
	}
	s.chunks[c] = append(s.chunks[c], e)
	s.n++
}

// from returns the events from i on as one slice: the store's own memory
// when they lie in one chunk, else a copy in *buf (reused).
func (s *eventStore) from(i int, buf *[]Event) []Event {
	if i >= s.n {
		return nil
	}
	if c := i >> eventChunkBits; c == (s.n-1)>>eventChunkBits {
		return s.chunks[c][i&(eventChunk-1):]
	}
	*buf = (*buf)[:0]
	for j := i; j < s.n; j++ {
		*buf = append(*buf, *s.at(j))
	}
	return *buf
}

// clone returns a copy of the store (the events' pointers still point
// into the original table: Clone remaps them).
func (s *eventStore) clone() eventStore {
	if s.chunks == nil {
		return eventStore{}
	}
	c := eventStore{chunks: make([][]Event, len(s.chunks)), n: s.n}
	for i, ch := range s.chunks {
		c.chunks[i] = append(make([]Event, 0, cap(ch)), ch...)
	}
	return c
}

// sortStable sorts the events by compareEvents, keeping the order of equal
// ones. They come mostly in order (only retransmission and pause events
// are emitted after later ones), so it first checks.
func (s *eventStore) sortStable() {
	for i := 1; i < s.n; i++ {
		if compareEvents(s.at(i-1), s.at(i)) > 0 {
			sort.Stable(storeOrder{s})
			return
		}
	}
}

// storeOrder sorts an eventStore in place with sort.Stable (no copy of the
// events).
type storeOrder struct{ s *eventStore }

func (o storeOrder) Len() int           { return o.s.n }
func (o storeOrder) Less(i, j int) bool { return compareEvents(o.s.at(i), o.s.at(j)) < 0 }
func (o storeOrder) Swap(i, j int) {
	a, b := o.s.at(i), o.s.at(j)
	*a, *b = *b, *a
}
