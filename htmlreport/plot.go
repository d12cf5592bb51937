package htmlreport

import (
	"html/template"
	"strings"
)

// Point is one point of a series, in the units of its chart's axes.
type Point struct{ X, Y int64 }

// Series is one line of a LineChart. Step draws it as a step function
// (each point holds until the next: binned counts and rates, a CDF);
// otherwise straight segments join the points.
type Series struct {
	Name   string
	Points []Point
	Step   bool
	// Dots draws the points as dots, unjoined (a scatter).
	Dots bool
}

// Mark is a dashed vertical line at X with a label (p50, p99).
type Mark struct {
	X     int64
	Label string
}

// LineChart is a plot of series over a shared X and Y axis. Its SVG is a
// pure function of the value: callers bound its size by binning (Bin) and
// by capping the series (MaxSeries) before they build it.
type LineChart struct {
	Title  string
	X, Y   Axis
	Series []Series
	Marks  []Mark
	// Note says what the chart leaves out ("12 more flows not drawn").
	Note string
}

// Plot geometry in SVG user units; the SVG scales to the page width.
const (
	plotW      = 1200
	plotH      = 320
	padLeft    = 80
	padRight   = 20
	padTop     = 34
	padBottom  = 52
	legendRowH = 18
	// MaxSeries caps the lines of one chart (the legend stays readable).
	MaxSeries = 8
)

// palette colours the series, in order (readable in print, colour-blind
// friendly: Okabe-Ito without the yellow).
var palette = []string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"}

// svgBuilder appends SVG markup; every text goes through esc.
type svgBuilder struct{ b strings.Builder }

func esc(s string) string { return template.HTMLEscapeString(s) }

func (s *svgBuilder) raw(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(p)
	}
}

func (s *svgBuilder) text(x, y float64, anchor, class, t string) {
	s.raw(`<text x="`, num(x), `" y="`, num(y), `" text-anchor="`, anchor, `" class="`, class, `">`, esc(t), `</text>`)
}

func (s *svgBuilder) line(x1, y1, x2, y2 float64, class string) {
	s.raw(`<line x1="`, num(x1), `" y1="`, num(y1), `" x2="`, num(x2), `" y2="`, num(y2), `" class="`, class, `"/>`)
}

// frame maps values to the plot area.
type frame struct {
	x0, x1, y0, y1     float64 // plot area in pixels (y0 top)
	xlo, xhi, ylo, yhi int64   // value ranges
}

func (f frame) px(x int64) float64 {
	if f.xhi == f.xlo {
		return f.x0
	}
	return f.x0 + (f.x1-f.x0)*float64(x-f.xlo)/float64(f.xhi-f.xlo)
}

func (f frame) py(y int64) float64 {
	if f.yhi == f.ylo {
		return f.y1
	}
	return f.y1 - (f.y1-f.y0)*float64(y-f.ylo)/float64(f.yhi-f.ylo)
}

// SVG renders the chart as an inline <svg> element.
func (c LineChart) SVG() template.HTML {
	series := c.Series
	if len(series) > MaxSeries {
		series = series[:MaxSeries]
	}
	if len(series) == 0 {
		return emptySVG(c.Title)
	}
	legendRows := (len(series) + 3) / 4
	h := float64(plotH + legendRows*legendRowH + 6)
	f := frame{x0: padLeft, x1: plotW - padRight, y0: padTop, y1: plotH - padBottom}
	f.xlo, f.xhi, f.ylo, f.yhi = c.bounds(series)
	var s svgBuilder
	s.raw(`<svg class="plot" viewBox="0 0 `, num(plotW), " ", num(h), `" role="img" xmlns="http://www.w3.org/2000/svg">`)
	s.raw(`<title>`, esc(c.Title), `</title>`)
	s.text(padLeft, 20, "start", "title", c.Title)
	drawAxes(&s, f, c.X, c.Y)
	for i, sr := range series {
		if sr.Dots {
			drawDots(&s, f, sr, palette[i%len(palette)])
			continue
		}
		s.raw(`<path fill="none" stroke="`, palette[i%len(palette)], `" stroke-width="1.6"`, dash(i), ` d="`, pathOf(f, sr), `"/>`)
	}
	for i, m := range c.Marks {
		x := f.px(m.X)
		s.line(x, f.y0, x, f.y1, "mark")
		// Labels go right of their line, left of it near the right edge;
		// the second mark's label sits lower so that close marks stay apart.
		lx, anchor := x+4, "start"
		if x > f.x1-160 {
			lx, anchor = x-4, "end"
		}
		s.text(lx, f.y0+14+float64(i%2)*16, anchor, "marklabel", m.Label)
	}
	for i, sr := range series {
		x := float64(padLeft + (i%4)*280)
		y := float64(plotH+10) + float64(i/4)*legendRowH
		if sr.Dots {
			s.raw(`<circle cx="`, num(x+11), `" cy="`, num(y-7), `" r="4" fill="`, palette[i%len(palette)], `"/>`)
		} else {
			s.raw(`<path d="M`, num(x), " ", num(y-7), `h22" stroke="`, palette[i%len(palette)], `" stroke-width="3"`, dash(i), `/>`)
		}
		s.text(x+28, y-3, "start", "legend", sr.Name)
	}
	s.raw(`</svg>`)
	return template.HTML(s.b.String())
}

// drawDots draws a scatter series: one dot per point, in one path of
// zero-length round-capped segments (a few bytes per dot).
func drawDots(s *svgBuilder, f frame, sr Series, colour string) {
	var b strings.Builder
	for _, p := range sr.Points {
		b.WriteString("M" + num(f.px(p.X)) + " " + num(f.py(p.Y)) + "h0")
	}
	s.raw(`<path fill="none" stroke="`, colour, `" stroke-width="7" stroke-linecap="round" stroke-opacity="0.75" d="`, b.String(), `"/>`)
}

// dashes tell the series apart where they overlap and in grey print:
// series i > 0 is dashed, series 0 solid.
var dashes = []string{"", "7 4", "2 3", "9 3 2 3"}

// dash returns the stroke-dasharray attribute of series i ("" for solid).
func dash(i int) string {
	if d := dashes[i%len(dashes)]; d != "" {
		return ` stroke-dasharray="` + d + `"`
	}
	return ""
}

// emptySVG is a chart without data: its title and "no data", in a strip.
func emptySVG(title string) template.HTML {
	var s svgBuilder
	s.raw(`<svg class="plot" viewBox="0 0 `, num(plotW), ` 56" role="img" xmlns="http://www.w3.org/2000/svg">`)
	s.raw(`<title>`, esc(title), `</title>`)
	s.text(padLeft, 20, "start", "title", title)
	s.text(padLeft, 44, "start", "empty", "no data in this capture")
	s.raw(`</svg>`)
	return template.HTML(s.b.String())
}

// bounds returns the value ranges of the series and marks; Y starts at 0.
func (c LineChart) bounds(series []Series) (xlo, xhi, ylo, yhi int64) {
	first := true
	for _, sr := range series {
		for _, p := range sr.Points {
			if first {
				xlo, xhi, first = p.X, p.X, false
			}
			xlo, xhi, yhi = min(xlo, p.X), max(xhi, p.X), max(yhi, p.Y)
			ylo = min(ylo, p.Y)
		}
	}
	for _, m := range c.Marks {
		if first {
			xlo, xhi, first = m.X, m.X, false
		}
		xlo, xhi = min(xlo, m.X), max(xhi, m.X)
	}
	if (c.X.Unit == UnitTime || c.X.Unit == UnitDuration) && xlo > 0 {
		xlo = 0
	}
	if c.X.Unit == UnitDuration { // a CDF: room right of its last step
		xhi += (xhi - xlo) / 20
	}
	if c.Y.Unit == UnitPermille {
		yhi = 1000
	}
	if xhi == xlo {
		xhi = xlo + 1
	}
	if yhi == ylo {
		yhi = ylo + 1
	}
	return xlo, xhi, ylo, yhi
}

// pathOf returns the SVG path data of one series.
func pathOf(f frame, sr Series) string {
	var b strings.Builder
	for i, p := range sr.Points {
		x, y := f.px(p.X), f.py(p.Y)
		switch {
		case i == 0:
			b.WriteString("M" + num(x) + " " + num(y))
		case sr.Step:
			b.WriteString("H" + num(x) + "V" + num(y))
		default:
			b.WriteString("L" + num(x) + " " + num(y))
		}
	}
	return b.String()
}

// drawAxes draws the frame, grid, ticks and both axis labels (with units).
func drawAxes(s *svgBuilder, f frame, xa, ya Axis) {
	xs := scaleFor(xa.Unit, max(abs(f.xlo), abs(f.xhi)))
	ys := scaleFor(ya.Unit, max(abs(f.ylo), abs(f.yhi)))
	s.raw(`<rect x="`, num(f.x0), `" y="`, num(f.y0), `" width="`, num(f.x1-f.x0), `" height="`, num(f.y1-f.y0), `" class="area"/>`)
	xt, xstep := ticks(float64(f.xlo)/xs.div, float64(f.xhi)/xs.div, 8, xs.minStep())
	for _, v := range xt {
		x := f.px(int64(v * xs.div))
		s.line(x, f.y1, x, f.y1+5, "tick")
		s.text(x, f.y1+18, "middle", "ticklabel", tickLabel(v, xstep))
	}
	yt, ystep := ticks(float64(f.ylo)/ys.div, float64(f.yhi)/ys.div, 5, ys.minStep())
	for _, v := range yt {
		y := f.py(int64(v * ys.div))
		s.line(f.x0, y, f.x1, y, "grid")
		s.text(f.x0-6, y+4, "end", "ticklabel", tickLabel(v, ystep))
	}
	s.text((f.x0+f.x1)/2, f.y1+38, "middle", "axislabel", xa.label(xs))
	cy := (f.y0 + f.y1) / 2
	s.raw(`<text x="16" y="`, num(cy), `" text-anchor="middle" class="axislabel" transform="rotate(-90 16 `, num(cy), `)">`,
		esc(ya.label(ys)), `</text>`)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
