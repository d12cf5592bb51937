package tui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
)

// Sorting the events view: s / S choose the column (Time, Kind, Flow, and
// Duration: a pause's length, a NAK-to-replay delay, 0 for the others;
// time order between the last and the first), r reverses (time order too:
// the latest first). Durations sort
// largest first.

// eventSortTitles names the sort keys.
var eventSortTitles = []string{"Time", "Kind", "Flow", "Duration"}

// eventDuration is what the Duration sort compares.
func eventDuration(e *analysis.EventReport) int64 {
	switch {
	case e.DurationNs != nil:
		return *e.DurationNs
	case e.AfterNAKNs != nil:
		return *e.AfterNAKNs
	case e.ECNToCNPNs != nil:
		return *e.ECNToCNPNs
	}
	return 0
}

// sortEvents sorts rows (indices into r.Events) by eventSortTitles[col]
// (-1: as given), descending when desc; ties in time order.
func sortEvents(r *analysis.Report, rows []int32, col int, desc bool) {
	if col < 0 && desc {
		slices.Reverse(rows) // the latest first
	}
	if col < 0 || col >= len(eventSortTitles) {
		return
	}
	flow := func(e *analysis.EventReport) string {
		if e.Kind == "pause" {
			return optString(e.SrcMAC)
		}
		return optString(e.Flow)
	}
	slices.SortStableFunc(rows, func(a, b int32) int {
		x, y := &r.Events[a], &r.Events[b]
		var d int
		switch col {
		case 0:
			d = cmp.Compare(x.TsNs, y.TsNs)
		case 1:
			d = strings.Compare(x.Kind, y.Kind)
		case 2:
			d = strings.Compare(flow(x), flow(y))
		default:
			d = cmp.Compare(eventDuration(x), eventDuration(y))
		}
		if desc {
			d = -d
		}
		return d
	})
}

// cycleSort sorts the events by the next key (back = 0) or the previous
// one (1).
func (v *eventsView) cycleSort(back int) {
	n := len(eventSortTitles) + 1
	step := 1
	if back == 1 {
		step = n - 1
	}
	v.sortCol = (v.sortCol+1+step)%n - 1
	v.desc = v.sortCol == 3
	v.resorted = true
	v.derive()
}
