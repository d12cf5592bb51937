package main

import (
	"context"
	"os"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
)

// lostFrame identifies, at one capture point, a frame a hop_loss event
// names: the event gives the frame's time at its `from` point, its flow
// and its PSN (frames of one flow at one point with one PSN and one time
// are one frame but for a duplicate, which is then marked too).
type lostFrame struct {
	point int
	tsNs  int64
	psn   uint32
	flow  string
}

// hopLosses is the set of frames that show a hop_loss event, for the
// `events` column of `export --point`.
type hopLosses map[lostFrame]struct{}

// hopLossFrames finds the frames of pf that hop_loss events name. A loss
// is known only once the matcher's window has passed, long after the frame
// was read, so export reads the points twice: this first pass analyses
// them and keeps the lost frames, the second writes the rows. With a file
// that is not a regular file (standard input, a FIFO: it cannot be read
// twice), or when the first pass
// is interrupted (the second pass then reports it), the set is empty and
// no frame shows hop_loss. A damaged file yields the same frames in both
// passes, up to the damage.
func hopLossFrames(ctx context.Context, cfg engine.Config, pf *pointFlags) hopLosses {
	paths := pf.paths()
	for _, p := range paths {
		if st, err := os.Stat(p); p == "-" || err != nil || !st.Mode().IsRegular() {
			return nil // a pipe or FIFO cannot be read twice
		}
	}
	ps := engine.NewPoints(cfg, pf.names, pf.files)
	in := engine.OpenContext(ctx, paths)
	defer in.Close()
	if in.Opened() != len(paths) || in.Interrupted() {
		return nil
	}
	if err := ps.Run(ctx, in, nil); err != nil || in.Interrupted() {
		return nil
	}
	rep := ps.Report(false, analysis.Options{})
	index := make(map[string]int, len(pf.names))
	for i, n := range pf.names {
		index[n] = i
	}
	var set hopLosses
	for i := range rep.Events {
		e := &rep.Events[i]
		if e.Kind != "hop_loss" || e.From == nil || e.PSN == nil || e.Flow == nil {
			continue
		}
		pt, ok := index[*e.From]
		if !ok {
			continue
		}
		if set == nil {
			set = hopLosses{}
		}
		set[lostFrame{point: pt, tsNs: e.TsNs, psn: *e.PSN, flow: *e.Flow}] = struct{}{}
	}
	return set
}

// mask returns ev with hop_loss added when the frame p of flow f, read at
// point, is one the set names.
func (h hopLosses) mask(point int, p *decode.Packet, f *flows.Flow, ev flows.EventMask) flows.EventMask {
	if len(h) == 0 || f == nil || p.Kind != decode.KindRoCE {
		return ev
	}
	if _, ok := h[lostFrame{point: point, tsNs: p.TsNs, psn: p.BTH.PSN & 0xFFFFFF, flow: f.ID()}]; ok {
		ev |= flows.EventHopLoss.Bit()
	}
	return ev
}
