package tui

import "sync"

// Which flow each frame is in. The loader writes, for every frame of the
// index, its flow's index plus one (0: none: not RoCE or CNP, or a frame
// of another capture point) into chunks of uint32, one sequential store a
// frame. A flow's frame list (Snapshot.FlowFramesOf) is made when it is
// asked for, by a scan of these ids (20M frames: 80 MB read, some tens of
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
	chunks [][]uint32
	n      int
}

// add appends the flow id of the next frame (flow index + 1, 0 none).
func (x *frameFlows) add(id uint32) {
	if x.n&idChunkMask == 0 {
		x.chunks = append(x.chunks, make([]uint32, idChunkLen))
	}
	x.chunks[x.n>>idChunkBits][x.n&idChunkMask] = id
	x.n++
}

// view returns an immutable prefix of the ids (the loader writes past it).
func (x *frameFlows) view() frameFlows {
	return frameFlows{chunks: x.chunks[:len(x.chunks):len(x.chunks)], n: x.n}
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
		want := uint32(i) + 1
		for pos := fl.scanned; pos < ids.n; {
			lo := pos & idChunkMask
			hi := min(idChunkLen, lo+ids.n-pos)
			for k, id := range ids.chunks[pos>>idChunkBits][lo:hi] {
				if id == want {
					fl.list.add(uint32(pos + k))
				}
			}
			pos += hi - lo
		}
		fl.scanned = ids.n
	}
	if fl.scanned == ids.n {
		return fl.list.view()
	}
	// An older snapshot than the one that extended the list.
	return fl.list.view().prefix(fl.list.view().Search(uint32(ids.n)))
}
