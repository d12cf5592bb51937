package tui

import "sync"

// Which flow each frame is in. The loader writes, for every frame of the
// index, its flow's index plus one (0: none: not RoCE or CNP, or a frame
// of another capture point) into chunks of uint16 (uint32 from the chunk
// where a flow past 65,535 first shows), one sequential store a frame. A
// flow's frame list (Snapshot.FlowFramesOf) is made when it is asked for,
// by a scan of these ids (20M frames: 40 MB read, some tens of
// milliseconds), kept in a small cache shared by the snapshots and
// extended by later snapshots over the frames read since. Appending to one
// list per flow instead missed the cache on every frame (the flows' lists
// are far apart in memory): ~24 ns a frame of the loader's goroutine, which
// the pipeline's consumer shares with the engine.

const (
	idChunkBits = 16
	idChunkLen  = 1 << idChunkBits
	idChunkMask = idChunkLen - 1

	// flowListCacheLen is how many flows' frame lists the cache keeps.
	flowListCacheLen = 8
)

// frameFlows is the loader's growing per-frame flow ids.
type frameFlows struct {
	chunks []idChunk
	n      int
	wide   bool // a flow id past 16 bits was seen: new chunks are of uint32
}

// idChunk holds the ids of idChunkLen frames: uint16 while the flows fit,
// else uint32 (one of the two is set).
type idChunk struct {
	u16 []uint16
	u32 []uint32
}

// add appends the flow id of the next frame (flow index + 1, 0 none).
func (x *frameFlows) add(id uint32) {
	j := x.n & idChunkMask
	if j == 0 {
		if x.wide {
			x.chunks = append(x.chunks, idChunk{u32: make([]uint32, idChunkLen)})
		} else {
			x.chunks = append(x.chunks, idChunk{u16: make([]uint16, idChunkLen)})
		}
	}
	c := &x.chunks[len(x.chunks)-1]
	switch {
	case c.u16 != nil && id <= 0xFFFF:
		c.u16[j] = uint16(id)
	case c.u16 != nil:
		x.widen()
		x.chunks[len(x.chunks)-1].u32[j] = id
	default:
		c.u32[j] = id
	}
	x.n++
}

// addN appends the flow ids of the next frames; maxID is at least the
// largest of them.
func (x *frameFlows) addN(ids []uint32, maxID uint32) {
	for len(ids) > 0 {
		j := x.n & idChunkMask
		if j == 0 {
			x.add(ids[0])
			ids = ids[1:]
			continue
		}
		c := &x.chunks[len(x.chunks)-1]
		if c.u16 != nil && maxID > 0xFFFF {
			x.widen()
			c = &x.chunks[len(x.chunks)-1]
		}
		k := min(len(ids), idChunkLen-j)
		if c.u16 != nil {
			dst := c.u16[j : j+k]
			for m, id := range ids[:k] {
				dst[m] = uint16(id)
			}
		} else {
			copy(c.u32[j:j+k], ids[:k])
		}
		x.n += k
		ids = ids[k:]
	}
}

// widen makes the last chunk one of uint32, in a new array of chunks: the
// published views keep the old one, whose chunk they read.
func (x *frameFlows) widen() {
	x.chunks = append([]idChunk(nil), x.chunks...)
	c := &x.chunks[len(x.chunks)-1]
	u32 := make([]uint32, idChunkLen)
	for k, id := range c.u16 {
		u32[k] = uint32(id)
	}
	c.u16, c.u32 = nil, u32
	x.wide = true
}

// view returns an immutable prefix of the ids (the loader writes past it).
func (x *frameFlows) view() frameFlows {
	return frameFlows{chunks: x.chunks[:len(x.chunks):len(x.chunks)], n: x.n}
}

// scan adds to l the positions in [from, to) whose id is want.
func (x *frameFlows) scan(l *FrameList, from, to int, want uint32) {
	for pos := from; pos < to; {
		lo := pos & idChunkMask
		hi := min(idChunkLen, lo+to-pos)
		switch c := x.chunks[pos>>idChunkBits]; {
		case c.u32 != nil:
			for k, id := range c.u32[lo:hi] {
				if id == want {
					l.add(uint32(pos + k))
				}
			}
		case want <= 0xFFFF:
			w := uint16(want)
			for k, id := range c.u16[lo:hi] {
				if id == w {
					l.add(uint32(pos + k))
				}
			}
		}
		pos += hi - lo
	}
}

// flowLists is the cache of flow frame lists made from the ids; the
// snapshots of one load share it.
type flowLists struct {
	mu    sync.Mutex
	lists map[int]*flowList
}

// flowList is one flow's frame list over the first scanned frames.
type flowList struct {
	list    FrameList
	scanned int
}

// get returns the frames of flow i among the frames of ids.
func (c *flowLists) get(ids frameFlows, i int) FrameList {
	c.mu.Lock()
	defer c.mu.Unlock()
	fl := c.lists[i]
	if fl == nil {
		if len(c.lists) >= flowListCacheLen || c.lists == nil {
			c.lists = make(map[int]*flowList)
		}
		fl = new(flowList)
		c.lists[i] = fl
	}
	if fl.scanned < ids.n {
		ids.scan(&fl.list, fl.scanned, ids.n, uint32(i)+1)
		fl.scanned = ids.n
	}
	if fl.scanned == ids.n {
		return fl.list.view()
	}
	// An older snapshot than the one that extended the list.
	return fl.list.view().prefix(fl.list.view().Search(uint32(ids.n)))
}
