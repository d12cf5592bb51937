package tui

import (
	"math"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// chart draws time series as bar charts with block characters, one band
// per series, with the series' label on the left and its peak on the right,
// and a time axis below. The data comes resampled to the plot width from a
// Timeline (the model's counters): the chart only draws.
type chart struct {
	*tview.Box
	series []chartSeries
	axis   func(cols int) (left, right string) // labels under the plot, or nil
	empty  string                              // shown instead when there is no data
}

// chartSeries is one band: data returns the values of cols columns and the
// text for the peak.
type chartSeries struct {
	label string
	color tcell.Color
	data  func(cols int) (vals []float64, peak string)
}

func newChart(title string) *chart {
	c := &chart{Box: tview.NewBox()}
	c.SetBorder(true).SetTitle(" " + title + " ").SetTitleAlign(tview.AlignLeft)
	return c
}

var bars = []rune(" ▁▂▃▄▅▆▇█")

const (
	chartLabelW = 12
	chartPeakW  = 22
)

// Draw draws the chart.
func (c *chart) Draw(screen tcell.Screen) {
	c.DrawForSubclass(screen, c)
	x, y, w, h := c.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	text := tview.Styles.PrimaryTextColor
	dim := tcell.ColorGray
	if len(c.series) == 0 || c.empty != "" {
		tview.Print(screen, escape(c.empty), x+1, y, w-1, tview.AlignLeft, dim)
		return
	}
	plotX := x + chartLabelW
	plotW := w - chartLabelW - chartPeakW
	if plotW < 4 {
		plotX, plotW = x, w
	}
	rows := h - 1 // one for the axis
	if rows < 1 {
		rows = h
	}
	per := max(1, rows/len(c.series))
	row := y
	for _, s := range c.series {
		if row+per > y+rows {
			break
		}
		vals, peak := s.data(plotW)
		top := peakOf(vals)
		if plotX != x { // the label and the scale on the band's first row
			printCut(screen, s.label, x, row, chartLabelW-1, text)
			printCut(screen, peak, plotX+plotW+1, row, chartPeakW-1, dim)
		}
		style := tcell.StyleDefault.Foreground(s.color).Background(tview.Styles.PrimitiveBackgroundColor)
		for col, v := range vals {
			if v <= 0 || top <= 0 {
				continue
			}
			level := int(math.Ceil(v * float64(per*8) / top)) // every non-zero value shows
			for r := range per {
				l := min(max(level-r*8, 0), 8)
				if l == 0 {
					break
				}
				screen.SetContent(plotX+col, row+per-1-r, bars[l], nil, style)
			}
		}
		row += per
	}
	if h > 1 && c.axis != nil {
		left, right := c.axis(plotW)
		ay := y + h - 1
		if utf8.RuneCountInString(left)+1+utf8.RuneCountInString(right) > plotW {
			right = "" // never a number cut from the left
		}
		tview.Print(screen, left, plotX, ay, plotW, tview.AlignLeft, dim)
		tview.Print(screen, right, plotX, ay, plotW, tview.AlignRight, dim)
	}
}

// timelineAxis returns the axis labels of a chart over tl: the start, and
// the capture span with the time one column covers (the long form only
// when it fits).
func timelineAxis(tl *Timeline, cols int) (string, string) {
	if tl.WidthNs == 0 {
		return "", ""
	}
	right := "+" + fmtDur(tl.SpanNs())
	if cols > 0 {
		long := "(1 column ≈ " + fmtDur(tl.ColumnNs(cols)) + ")  " + right
		if utf8.RuneCountInString(long)+len("+0 s")+2 <= cols {
			right = long
		}
	}
	return "+0 s", right
}

// printCut prints text from x in at most w cells, cut on the right with an
// ellipsis when it is longer.
func printCut(screen tcell.Screen, text string, x, y, w int, color tcell.Color) {
	if w <= 0 {
		return
	}
	if r := []rune(text); len(r) > w {
		text = string(r[:w-1]) + "…"
	}
	tview.Print(screen, escape(text), x, y, w, tview.AlignLeft, color)
}

func peakOf(vals []float64) float64 {
	var top float64
	for _, v := range vals {
		top = max(top, v)
	}
	return top
}

// The scale texts: the bars of a band are drawn to its peak, so a band
// states its scale as "0–PEAK".

// peakCount is the scale of a count series whose values are means per
// bucket of width ns, quoted per column of colNs (the axis' column).
func peakCount(vals []float64, width, colNs int64) string {
	top := peakOf(vals)
	if top == 0 {
		return "none"
	}
	if width > 0 && colNs > width {
		top *= float64(colNs) / float64(width)
	}
	return "0–" + trimFloat1(top) + " / " + fmtDur(max(colNs, width))
}

// peakRate is the scale of a byte series.
func peakRate(vals []float64, width int64) string {
	top := peakOf(vals)
	if top == 0 {
		return "none"
	}
	return "0–" + fmtRate(int64(top), width)
}

// peakShare is the scale of a paused-time series.
func peakShare(vals []float64, width int64) string {
	top := peakOf(vals)
	if top == 0 {
		return "none"
	}
	return "0–" + fmtPercent(int64(top), width) + " paused"
}
