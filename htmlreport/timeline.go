package htmlreport

import (
	"html/template"
	"sort"
	"strconv"
	"strings"
)

// Span is one interval of a Lane, in the unit of the timeline's axis.
type Span struct{ Start, End int64 }

// Lane is one row of a Timeline: a name and its intervals.
type Lane struct {
	Name  string
	Spans []Span
}

// Timeline draws intervals per lane over a shared X axis (the PFC pause
// timeline: one lane per port and priority). XMax is the end of the axis
// (the capture's span), so that lanes line up with the other time plots.
type Timeline struct {
	Title string
	X     Axis
	XMax  int64
	Lanes []Lane
	Note  string
}

// Timeline geometry; MaxLanes caps the lanes drawn.
const (
	laneH        = 22
	timelineLeft = 190
	MaxLanes     = 16
)

// MergeSpans sorts spans and merges those that overlap or lie closer than
// gap, so that a lane holds at most about (axis span / gap) rectangles
// whatever the number of pause episodes.
func MergeSpans(spans []Span, gap int64) []Span {
	s := append([]Span(nil), spans...)
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	out := s[:0]
	for _, sp := range s {
		if n := len(out); n > 0 && sp.Start <= out[n-1].End+gap {
			out[n-1].End = max(out[n-1].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// SVG renders the timeline as an inline <svg> element. Spans are drawn at
// pixel resolution: each covers the whole pixel columns it touches (so a
// short pause stays visible, one pixel wide), and spans sharing or touching
// columns draw as one rectangle, so a lane has at most half as many
// rectangles as the plot has columns (about 500) whatever the number of
// pauses.
func (t Timeline) SVG() template.HTML {
	lanes := t.Lanes
	if len(lanes) > MaxLanes {
		lanes = lanes[:MaxLanes]
	}
	rows := max(len(lanes), 1)
	h := float64(padTop + rows*laneH + padBottom)
	f := frame{x0: timelineLeft, x1: plotW - padRight, y0: padTop, y1: float64(padTop + rows*laneH),
		xlo: 0, xhi: max(t.XMax, 1), ylo: 0, yhi: 1}
	var s svgBuilder
	s.raw(`<svg class="plot" viewBox="0 0 `, num(plotW), " ", num(h), `" role="img" xmlns="http://www.w3.org/2000/svg">`)
	s.raw(`<title>`, esc(t.Title), `</title>`)
	s.text(padLeft, 20, "start", "title", t.Title)
	xs := scaleFor(t.X.Unit, f.xhi)
	s.raw(`<rect x="`, num(f.x0), `" y="`, num(f.y0), `" width="`, num(f.x1-f.x0), `" height="`, num(f.y1-f.y0), `" class="area"/>`)
	xt, step := ticks(0, float64(f.xhi)/xs.div, 8, xs.minStep())
	for _, v := range xt {
		x := f.px(int64(v * xs.div))
		s.line(x, f.y0, x, f.y1+5, "grid")
		s.text(x, f.y1+18, "middle", "ticklabel", tickLabel(v, step))
	}
	s.text((f.x0+f.x1)/2, f.y1+38, "middle", "axislabel", t.X.label(xs))
	if len(lanes) == 0 {
		s.text((f.x0+f.x1)/2, f.y0+15, "middle", "empty", "no pause")
	}
	for i, l := range lanes {
		y := f.y0 + float64(i*laneH)
		s.text(f.x0-6, y+15, "end", "ticklabel", l.Name)
		if d := lanePath(f, l.Spans, y+4); d != "" {
			s.raw(`<path class="pause" d="`, d, `"/>`)
		}
	}
	s.raw(`</svg>`)
	return template.HTML(s.b.String())
}

// lanePath returns the path data of a lane's spans (sorted, as
// MergeSpans leaves them) at pixel resolution, top y, height laneH-8.
func lanePath(f frame, spans []Span, y float64) string {
	cols := int64(f.x1 - f.x0)
	span := max(f.xhi-f.xlo, 1)
	var b strings.Builder
	var c0, c1 int64 = -1, -1
	flush := func() {
		if c0 >= 0 {
			b.WriteString("M" + num(f.x0+float64(c0)) + " " + num(y) + "h" + strconv.FormatInt(c1-c0, 10) +
				"v" + strconv.Itoa(laneH-8) + "h-" + strconv.FormatInt(c1-c0, 10) + "z")
		}
	}
	for _, sp := range spans {
		a := min(max((sp.Start-f.xlo)*cols/span, 0), cols-1)
		e := min(max(((sp.End-f.xlo)*cols+span-1)/span, a+1), cols)
		if c0 >= 0 && a <= c1 {
			c1 = max(c1, e)
			continue
		}
		flush()
		c0, c1 = a, e
	}
	flush()
	return b.String()
}
