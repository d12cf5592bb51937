package tui

import (
	"strconv"

	"github.com/rocetrace/rocetrace/analysis"
)

// eventFrames labels events with the frame that shows them, for the
// events tables' Frame column: "N", or "FILE:FRAME" with several files, as
// the packets view numbers frames. The report does not carry frames, so a
// label is found as Enter finds the frame (Pager.Resolve: a binary search
// by time in the event's flow frame list, reading the file), only for the
// rows drawn: a cell not known yet shows "…" and asks for it; one job at a
// time resolves every event asked for and its closure stores the labels
// (then the table is drawn again). Everything but the job's work runs on
// the UI goroutine, so there is no lock. The labels are kept per report:
// a new report (interim reports while loading) starts afresh.
type eventFrames struct {
	u      *UI
	report *analysis.Report
	labels map[int32]string   // event index -> label ("-": no frame shows it)
	want   map[int32]struct{} // asked for, not resolved yet
	busy   bool               // a job is resolving
}

func newEventFrames(u *UI) *eventFrames { return &eventFrames{u: u} }

// label returns the frame label of event i of r, or "…" while it is
// being found.
func (ef *eventFrames) label(r *analysis.Report, i int32) string {
	if r != ef.report {
		ef.report, ef.labels, ef.want = r, map[int32]string{}, map[int32]struct{}{}
	}
	if l, ok := ef.labels[i]; ok {
		return l
	}
	ef.want[i] = struct{}{}
	ef.start()
	return "…"
}

// start resolves the events asked for in a job, unless one runs.
func (ef *eventFrames) start() {
	if ef.busy || len(ef.want) == 0 || ef.u.pager == nil {
		return
	}
	s, r := ef.u.snap, ef.report
	if s == nil {
		return
	}
	idx := make([]int32, 0, len(ef.want))
	for i := range ef.want {
		idx = append(idx, i)
	}
	clear(ef.want)
	ef.busy = true
	multi := len(s.Files) > 1
	ef.u.jobs.start("event-frames", func() func() {
		labels := make([]string, len(idx))
		for k, i := range idx {
			labels[k] = "-"
			if int(i) >= len(r.Events) {
				continue
			}
			pos, err := ef.u.pager.Resolve(s, &r.Events[i])
			if err != nil {
				continue
			}
			labels[k] = strconv.FormatUint(s.Index.Frame(pos), 10)
			if multi {
				file, _ := s.Index.At(pos)
				labels[k] = strconv.Itoa(file+1) + ":" + labels[k]
			}
		}
		return func() {
			ef.busy = false
			if ef.report == r {
				for k, i := range idx {
					ef.labels[i] = labels[k]
				}
			}
			ef.start() // what was asked for meanwhile
		}
	})
}
