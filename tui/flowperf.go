package tui

import (
	"cmp"

	"github.com/rocetrace/rocetrace/analysis"
)

// The flows table's throughput columns (issue 13): goodput_bps and
// peak_bps as the report has them, with their unit. A flow without a
// goodput (one frame, or all at one time) shows "-" and sorts first.

var goodputColumn = flowColumn{
	title: "Goodput", right: true,
	text: func(f *analysis.FlowReport, _ int64) string {
		if f.GoodputBps == nil {
			return "-"
		}
		return fmtBps(*f.GoodputBps)
	},
	cmp: func(a, b *analysis.FlowReport) int { return cmp.Compare(goodputOf(a), goodputOf(b)) },
}

var peakColumn = flowColumn{
	title: "Peak", right: true,
	text: func(f *analysis.FlowReport, _ int64) string { return fmtBps(f.PeakBps) },
	cmp:  func(a, b *analysis.FlowReport) int { return cmp.Compare(a.PeakBps, b.PeakBps) },
}

// goodputOf is a flow's goodput for sorting, -1 when null.
func goodputOf(f *analysis.FlowReport) int64 {
	if f.GoodputBps == nil {
		return -1
	}
	return *f.GoodputBps
}
