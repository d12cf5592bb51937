package tui

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// pfcView shows PFC and PAUSE per source MAC and priority, the pause
// episodes of the selected one and a timeline of paused time.
type pfcView struct {
	u        *UI
	root     *tview.Flex
	keys     *tview.Table
	chart    *chart
	episodes *tview.Table

	report    *analysis.Report
	key       int // selected PFC entry, -1 none
	epRows    []int32
	epSpans   [][2]int64 // the episodes' [start, end)
	epKey     int
	requested struct {
		report *analysis.Report
		key    int
	}
	epSort int  // episodes sorted by episodeKeys[epSort], -1: start order
	epDesc bool // descending
}

var pfcColumns = []column{
	{title: "Source MAC"}, {title: "Priority", right: true}, {title: "Frames", right: true}, {title: "XON", right: true},
	{title: "Episodes", right: true}, {title: "Paused", right: true}, {title: "Longest", right: true}, {title: "Paused share", right: true},
}

var episodeColumns = []column{{title: "Start", right: true}, {title: "Duration", right: true}, {title: "End", right: true}, {title: "Frames", right: true}}

func newPFCView(u *UI) *pfcView {
	v := &pfcView{u: u, key: -1, epKey: -1, epSort: -1}
	v.keys = newTable("PFC and PAUSE by source and priority", func(int) { u.focusPane(1) })
	v.keys.SetSelectionChangedFunc(func(row, _ int) { v.selectKey(row - 1) })
	v.chart = newChart("Paused time")
	v.episodes = newTable("Pause episodes", func(row int) {
		if row < len(v.epRows) {
			u.openEvent(int(v.epRows[row]))
		}
	})
	useContent(v.keys, &tableContent{cols: pfcColumns, sortCol: -1})
	useContent(v.episodes, &tableContent{cols: episodeColumns, sortCol: -1})
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.keys, 0, 2, true).
		AddItem(v.chart, 6, 0, false).
		AddItem(v.episodes, 0, 3, false)
	return v
}

// Name implements view.
func (v *pfcView) Name() string { return "PFC" }

// Root implements view.
func (v *pfcView) Root() tview.Primitive { return v.root }

// Panes implements view.
func (v *pfcView) Panes() []tview.Primitive { return []tview.Primitive{v.keys, v.episodes} }

// Filter implements view.
func (v *pfcView) Filter() (string, bool) { return "", false }

// SetFilter implements view.
func (v *pfcView) SetFilter(string, bool) {}

// Position implements view.
func (v *pfcView) Position() string {
	if v.episodes.HasFocus() { // not app.GetFocus: Position runs while drawing, under the app lock
		return "episode " + strings.TrimPrefix(position(v.episodes), "row ")
	}
	return position(v.keys)
}

// Bindings are the PFC view's keys: Enter is its tables' (newTable's
// open), one line per table.
func (v *pfcView) Bindings() []binding {
	enter := special(tcell.KeyEnter)
	return []binding{
		paneKey(enter, "on a source and priority: go to its pause episodes", v.keys),
		paneKey(enter, "on an episode: open the frame that started it", v.episodes),
		{keys: keys('s', 'S'), label: "s / S", help: "sort the episodes by the next / previous column (s: the longest first)", run: v.cycleEpisodeSort},
		onRune('r', "reverse the episodes' order", func() {
			v.epDesc = !v.epDesc
			v.resortEpisodes()
		}),
	}
}

// Refresh implements view.
func (v *pfcView) Refresh(s *Snapshot) {
	r := s.Report
	if r != nil && r != v.report {
		v.report = r
		titled(v.keys.Box, "PFC and PAUSE by source and priority ("+fmtCount(int64(len(r.PFC)))+")")
		span := r.Capture.LastTsNs - r.Capture.FirstTsNs
		setContent(v.keys, &tableContent{
			cols: pfcColumns, n: len(r.PFC), sortCol: -1,
			cell: func(row, col int) (string, mark) {
				p := &r.PFC[row]
				m := markPause
				switch col {
				case 0:
					return p.SrcMAC, m
				case 1:
					if p.Priority == nil {
						return "all (802.3x)", m
					}
					return strconv.Itoa(*p.Priority), m
				case 2:
					return fmtCount(p.Frames), m
				case 3:
					return fmtCount(p.XONFrames), m
				case 4:
					return fmtCount(p.Episodes), m
				case 5:
					return fmtDur(p.PausedNs), m
				case 6:
					return fmtDur(p.LongestNs), m
				}
				return fmtPercent(p.PausedNs, span), m
			},
		}, -1)
		v.selectKey(selectedRow(v.keys))
	}
	v.refreshChart(s)
}

// selectKey shows the episodes of PFC entry i.
// selectRow selects entry i of the report's PFC list (and shows its
// episodes).
func (v *pfcView) selectRow(i int) {
	if v.report == nil || i < 0 || i >= len(v.report.PFC) {
		return
	}
	v.keys.Select(i+1, 0)
	v.selectKey(i)
}

func (v *pfcView) selectKey(i int) {
	r := v.report
	if r == nil || i < 0 || i >= len(r.PFC) {
		return
	}
	v.key = i
	if v.requested.report == r && v.requested.key == i {
		return
	}
	v.requested.report, v.requested.key = r, i
	p := &r.PFC[i]
	sortCol, desc := v.epSort, v.epDesc
	v.u.jobs.start("pfc-episodes", func() func() {
		rows := pauseEpisodes(r, p)
		spans := pauseSpans(r, rows)
		rows = sortEpisodes(r, rows, sortCol, desc)
		return func() {
			v.epRows, v.epSpans, v.epKey = rows, spans, i
			start := r.Capture.FirstTsNs
			setContent(v.episodes, &tableContent{
				cols: episodeColumns, n: len(rows), sortCol: sortCol, desc: desc,
				cell: func(row, col int) (string, mark) {
					e := &r.Events[rows[row]]
					switch col {
					case 0:
						return fmtRel(e.TsNs, start), markPause
					case 1:
						return fmtDur(i64(e.DurationNs)), markPause
					case 2:
						return fmtRel(i64(e.EndNs), start), markPause
					}
					return fmtCount(i64(e.Frames)), markPause
				},
			}, 0)
			prio := "all priorities"
			if p.Priority != nil {
				prio = "priority " + strconv.Itoa(*p.Priority)
			}
			order := ""
			if sortCol >= 0 {
				dir := "ascending"
				if desc {
					dir = "descending"
				}
				order = ", by " + episodeColumns[sortCol].title + " " + dir
			}
			titled(v.episodes.Box, "Pause episodes of "+p.SrcMAC+" "+prio+" ("+fmtCount(int64(len(rows)))+order+", Enter: open the frame)")
			v.refreshChart(v.u.snap)
		}
	})
}

// refreshChart shows the capture's paused time and the selected entry's.
func (v *pfcView) refreshChart(s *Snapshot) {
	tl := s.Timeline
	c := v.chart
	if tl.WidthNs == 0 {
		c.series, c.empty = nil, "no frames yet"
		return
	}
	c.empty = ""
	c.axis = func(cols int) (string, string) { return timelineAxis(&tl, cols) }
	paused := func(get func(n int) ([]float64, int64)) func(int) ([]float64, string) {
		return func(n int) ([]float64, string) {
			vals, width := get(n)
			return vals, peakShare(vals, width)
		}
	}
	c.series = []chartSeries{{label: "All", color: tcell.ColorAqua,
		data: paused(func(n int) ([]float64, int64) { return tl.Resample(SeriesPaused, n) })}}
	r := v.report
	if r != nil && v.epKey >= 0 && v.epKey < len(r.PFC) && v.epKey == v.key {
		spans := v.epSpans
		c.series = append(c.series, chartSeries{label: "Selected", color: tcell.ColorFuchsia,
			data: paused(func(n int) ([]float64, int64) { return tl.PauseSpans(spans, n) })})
	}
}
