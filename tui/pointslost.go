package tui

import (
	"slices"

	"github.com/rocetrace/rocetrace/analysis"
)

// A hop's lost frames in the packets view. The lost frames are the
// report's hop_loss events of the hop (flow, from, to): frames seen at
// `from` only, so they are found among `from`'s frames of the flow
// (Snapshot.pointFlowFrames; Pager.Resolve, a binary search by time, then
// the PSN and opcode). The packets view then lists exactly those frames, a
// fixed list named "lost FROM>TO FLOW" in place of a display filter: / and
// a new filter, or Esc, leave it (entering the name unchanged keeps it).

// openHop finds the lost frames of hop i of the report (in a job: it reads
// the files) and lists them in the packets view.
func (v *pointsView) openHop(i int) {
	u := v.u
	s := u.snap
	if s.Report == nil || i < 0 || i >= len(s.Report.Hops) {
		return
	}
	h := s.Report.Hops[i]
	if h.Lost == 0 {
		u.msg = "no frame was lost between " + h.From + " and " + h.To + " on this flow"
		return
	}
	u.msg = "finding the lost frames…"
	u.jobs.start("hop-lost", func() func() {
		var frames []uint32
		missing := 0
		for j := range s.Report.Events {
			ev := &s.Report.Events[j]
			if !lostOn(ev, &h) {
				continue
			}
			pos, err := u.pager.Resolve(s, ev)
			if err != nil {
				missing++
				continue
			}
			frames = append(frames, uint32(pos))
		}
		slices.Sort(frames)
		frames = slices.Compact(frames)
		return func() {
			if len(frames) == 0 {
				u.msg = "the lost frames could not be found in the files"
				return
			}
			u.packets.showFrames("lost "+h.From+">"+h.To+" "+h.Flow, s, frames)
			if missing > 0 {
				u.msg = plural(int64(missing), "lost frame") + " could not be found in the files"
			}
		}
	})
}

// lostOn reports whether ev is a hop_loss event of hop h.
func lostOn(ev *analysis.EventReport, h *analysis.HopReport) bool {
	return ev.Kind == "hop_loss" && ev.Flow != nil && *ev.Flow == h.Flow &&
		ev.From != nil && *ev.From == h.From && ev.To != nil && *ev.To == h.To
}

// showFrames shows the packets view listing only frames (ascending Index
// positions of s) under the name label, the first selected.
func (v *packetsView) showFrames(label string, s *Snapshot, frames []uint32) {
	v.filter, v.compiled, v.fixed = label, nil, frames
	v.requested = nil
	v.rows = packetRows{snap: s, frames: frames}
	v.setRows(int(frames[0]))
	v.u.openPacket(int(frames[0]))
}

// refreshFixed is Refresh while a fixed list is shown: the positions stay
// valid in every later snapshot (the index only grows).
func (v *packetsView) refreshFixed(s *Snapshot) {
	if v.rows.snap != s {
		keep := v.selectedPos()
		v.rows = packetRows{snap: s, frames: v.fixed}
		v.setRows(keep)
	}
	v.applyWant()
}

// leaveFixed drops the fixed list when the filter becomes another text; it
// reports whether the list stays (text is its name).
func (v *packetsView) leaveFixed(text string) bool {
	if v.fixed == nil {
		return false
	}
	if text == v.filter {
		return true
	}
	v.fixed = nil
	v.filter, v.compiled = "", nil
	return false
}
