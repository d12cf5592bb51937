package tui

import (
	"cmp"
	"slices"

	"github.com/rocetrace/rocetrace/analysis"
)

// Sorting the PFC view's pause episodes (of one source MAC and priority):
// s / S choose the column (Start, Duration, End, Frames; start order
// between the last and the first), r reverses; counters and durations sort
// largest first, so that s once shows the longest episode on top.

// episodeKeys are the sort keys of episodeColumns, in order.
var episodeKeys = []func(e *analysis.EventReport) int64{
	func(e *analysis.EventReport) int64 { return e.TsNs },
	func(e *analysis.EventReport) int64 { return i64(e.DurationNs) },
	func(e *analysis.EventReport) int64 { return i64(e.EndNs) },
	func(e *analysis.EventReport) int64 { return i64(e.Frames) },
}

// sortEpisodes returns rows (indices into r.Events) sorted by
// episodeKeys[col] (-1: as given), descending when desc, ties in the
// given order.
func sortEpisodes(r *analysis.Report, rows []int32, col int, desc bool) []int32 {
	if col < 0 || col >= len(episodeKeys) {
		return rows
	}
	key := episodeKeys[col]
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b int32) int {
		d := cmp.Compare(key(&r.Events[a]), key(&r.Events[b]))
		if desc {
			d = -d
		}
		return d
	})
	return out
}

// cycleEpisodeSort sorts the episodes by the next column (back = 0) or
// the previous one (1); Duration and Frames sort descending, times
// ascending.
func (v *pfcView) cycleEpisodeSort(back int) {
	n := len(episodeKeys) + 1
	step := 1
	if back == 1 {
		step = n - 1
	}
	v.epSort = (v.epSort+1+step)%n - 1
	v.epDesc = v.epSort == 1 || v.epSort == 3
	v.resortEpisodes()
}

// resortEpisodes shows the selected entry's episodes again in the current
// order, from the top.
func (v *pfcView) resortEpisodes() {
	if v.report == nil || v.key < 0 || v.key >= len(v.report.PFC) {
		v.u.msg = "no PFC or PAUSE source selected: no episodes to sort"
		return
	}
	v.requested.key = -1 // the episodes are shown from the top, the first selected
	v.selectKey(v.key)
}
