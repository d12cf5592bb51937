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
// gap (0: those that overlap or touch), so that no time counts twice.
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
// pixel resolution (lanePath): each pixel column a span touches is shaded
// by the share of its time paused, and neighbouring columns of one shade
// draw as one rectangle, so a lane has at most one rectangle per column
// (about 1,000) whatever the number of pauses.
func (t Timeline) SVG() template.HTML {
	lanes := t.Lanes
	if len(lanes) > MaxLanes {
		lanes = lanes[:MaxLanes]
	}
	if len(lanes) == 0 {
		return emptySVG(t.Title)
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
	for i, l := range lanes {
		y := f.y0 + float64(i*laneH)
		s.text(f.x0-6, y+15, "end", "ticklabel", l.Name)
		for shade, d := range lanePath(f, l.Spans, y+4) {
			if d != "" {
				s.raw(`<path class="pause`, strconv.Itoa(shade), `" d="`, d, `"/>`)
			}
		}
	}
	s.raw(`</svg>`)
	return template.HTML(s.b.String())
}

// pauseShades is the number of shades of a pause column.
const pauseShades = 4

// colStart returns the first value of pixel column c of cols over [lo,
// lo+span), without overflowing for any span.
func colStart(lo, span, cols, c int64) int64 {
	return lo + span/cols*c + span%cols*c/cols
}

// lanePath returns, per shade 1..pauseShades, the path data of a lane's
// spans (sorted and without overlaps, as MergeSpans leaves them) at pixel
// resolution, top y, height laneH-8. A pixel column some span touches
// gets the shade ceil(pauseShades * paused share of the column): a short
// pause stays visible (shade 1), a column paused throughout is shade 4, so
// a thousand 3 µs pauses over a second do not read as one long pause.
func lanePath(f frame, spans []Span, y float64) [pauseShades + 1]string {
	cols := int64(f.x1 - f.x0)
	span := max(f.xhi-f.xlo, 1)
	paused := make([]int64, cols)
	for _, sp := range spans {
		a := min(max((sp.Start-f.xlo)*cols/span, 0), cols-1)
		if sp.End <= sp.Start {
			paused[a] = max(paused[a], 1) // an instant pause still marks its column
			continue
		}
		for c := a; c < cols && colStart(f.xlo, span, cols, c) < sp.End; c++ {
			lo, hi := colStart(f.xlo, span, cols, c), colStart(f.xlo, span, cols, c+1)
			paused[c] += max(min(sp.End, hi)-max(sp.Start, lo), 0)
		}
	}
	var b [pauseShades + 1]strings.Builder
	shade := func(c int64) int64 {
		if paused[c] <= 0 {
			return 0
		}
		w := max(colStart(f.xlo, span, cols, c+1)-colStart(f.xlo, span, cols, c), 1)
		return min(max((paused[c]*pauseShades+w-1)/w, 1), pauseShades)
	}
	for c := int64(0); c < cols; {
		l := shade(c)
		e := c + 1
		for e < cols && shade(e) == l {
			e++
		}
		if l > 0 {
			w := strconv.FormatInt(e-c, 10)
			b[l].WriteString("M" + num(f.x0+float64(c)) + " " + num(y) + "h" + w + "v" + strconv.Itoa(laneH-8) + "h-" + w + "z")
		}
		c = e
	}
	var out [pauseShades + 1]string
	for i := range b {
		out[i] = b[i].String()
	}
	return out
}
