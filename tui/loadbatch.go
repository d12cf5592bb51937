package tui

import (
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
)

// The loader's batch path (files, one capture point, no test publishing):
// the engine hands over each batch of up to 256 frames once the flow table
// has seen them all (engine.RunBatches), and the loader indexes them in a
// few tight loops: the packet index, the frames' events, then the
// timelines and flow ids. It is what frame does a frame at a time, with
// the engine's per-frame Observer call and the loader's per-frame checks
// (index full, events, publishing) made once a batch. The events the
// table found in the batch are added to the timelines after its frames,
// and the latency samples (the LatencySink runs during the table's
// observation) before them: each lands in the bucket of its time either way.

// maxIndexed is the most frames the packet index takes.
const maxIndexed = 1<<32 - 1

// observeBatch is the engine.BatchObserver of run.
func (l *loader) observeBatch(b *engine.Batch) error {
	ps, fs, evs := b.Packets, b.Flows, b.Events
	room := maxIndexed - l.index.n
	full := len(ps) > room
	if full {
		ps, fs, evs = ps[:room], fs[:room], evs[:room]
	}
	if len(ps) == 0 {
		return l.indexFull()
	}
	n0 := l.index.n
	l.index.addBatch(ps)
	l.addFrameEvents(evs, n0)
	l.readTo(ps)
	l.frameSeries(ps, fs, uint32(n0))
	l.tl.drainEarly()
	l.newEvents()
	if n1 := l.index.n; n0>>10 != n1>>10 && time.Since(l.lastPub) >= l.m.cfg.PublishEvery {
		l.publish(false, false)
		l.lastPub = time.Now()
	}
	if full {
		return l.indexFull()
	}
	return nil
}

// addFrameEvents lists the frames of evs (the first at index position n0)
// that show events, testing eight masks at a time: most frames show none.
func (l *loader) addFrameEvents(evs []flows.EventMask, n0 int) {
	i := 0
	for ; i+8 <= len(evs); i += 8 {
		e := evs[i : i+8 : i+8]
		if e[0]|e[1]|e[2]|e[3]|e[4]|e[5]|e[6]|e[7] == 0 {
			continue
		}
		for k, ev := range e {
			if ev != 0 {
				l.frameEvents = append(l.frameEvents, FrameEvent{Pos: uint32(n0 + i + k), Events: ev})
			}
		}
	}
	for ; i < len(evs); i++ {
		if ev := evs[i]; ev != 0 {
			l.frameEvents = append(l.frameEvents, FrameEvent{Pos: uint32(n0 + i), Events: ev})
		}
	}
}

// readTo records how far each file of ps was read.
func (l *loader) readTo(ps []decode.Packet) {
	if len(l.read) == 1 {
		l.read[0] = recordEnd(&ps[len(ps)-1])
		return
	}
	for i := range ps {
		l.read[ps[i].File] = recordEnd(&ps[i])
	}
}

// recordEnd is the byte offset just past p's record in its file, for the
// progress of the read (a pcap record's 16-byte header and its data; a
// pcapng block's few more bytes are left out).
func recordEnd(p *decode.Packet) int64 { return p.Offset + int64(p.CapLen) + 16 }

// frameSeries adds the frames ps (flows fs, the first at index position
// pos) to the timelines, the per-flow rates, the PFC frame list and the
// frames' flow ids.
func (l *loader) frameSeries(ps []decode.Packet, fs []*flows.Flow, pos uint32) {
	ids := &l.ids
	t := &l.tl
	v := &t.tl.V
	a := &t.acc
	end, nflows := t.tl.EndNs, l.flows
	for len(ps) > 0 {
		k := min(len(ps), len(ids))
		bp, bf := ps[:k], fs[:k]
		for i := range bp {
			p := &bp[i]
			ts := p.TsNs
			b := uint8(t.last) // buckets < 256: no bounds checks
			if ts < t.lastLo || ts >= t.lastHi {
				b = uint8(t.bucket(ts))
			}
			end = max(end, ts)
			v[SeriesBytes][b] += int64(p.Len)
			v[SeriesPackets][b]++
			var id uint32
			switch p.Kind {
			case decode.KindRoCE, decode.KindCNP:
				if p.ECN == 3 && p.IPVersion != 0 {
					v[SeriesCE][b]++
				}
				if p.Kind == decode.KindCNP {
					v[SeriesCNP][b]++
				}
				if fl := bf[i]; fl != nil {
					fi := fl.Index()
					id = uint32(fi) + 1
					nflows = max(nflows, fi+1)
					// addFlowAt, its common case written out: the flow
					// has bytes in the sums of the current flow bucket.
					if uint(fi) < uint(len(a.flags)) && a.bucket == int(b)/flowBucketRatio && a.flags[fi]&accBytes != 0 {
						a.bytes[fi] += int64(p.FrameLen)
					} else {
						t.addFlowAt(fi, int(b), int64(p.FrameLen))
					}
				}
			case decode.KindPFC, decode.KindPause:
				l.pfcFrames.add(pos + uint32(i))
			case decode.KindOther:
			}
			ids[i] = id
		}
		l.frameFlows.addN(ids[:k], uint32(nflows))
		pos += uint32(k)
		ps, fs = ps[k:], fs[k:]
	}
	t.tl.EndNs, l.flows = end, nflows
}

// newEvents adds the events the flow table found since the last call to
// the timelines.
func (l *loader) newEvents() {
	t := l.eng.Table()
	n := t.NumEvents()
	for i := l.nEvents; i < n; i++ {
		l.event(t.Event(i))
	}
	l.nEvents = n
}
