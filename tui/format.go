package tui

import (
	"strconv"
	"strings"
)

// Formatting helpers: how numbers read on screen. Every number carries its
// unit.

// fmtDur renders nanoseconds as "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
func fmtDur(ns int64) string {
	a := ns
	if a < 0 {
		a = -a
	}
	switch {
	case a < 1_000:
		return strconv.FormatInt(ns, 10) + " ns"
	case a < 1_000_000:
		return trimFloat(float64(ns)/1e3) + " µs"
	case a < 1_000_000_000:
		return trimFloat(float64(ns)/1e6) + " ms"
	}
	return trimFloat(float64(ns)/1e9) + " s"
}

// trimFloat prints at most 3 decimals, without trailing zeros.
func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// fmtRel renders a time relative to the capture start as "+1.234 ms".
func fmtRel(ts, start int64) string {
	if ts < start {
		return "-" + fmtDur(start-ts)
	}
	return "+" + fmtDur(ts-start)
}

// fmtSeconds renders ns as seconds with 9 decimals ("0.000123456"), as
// tshark does.
func fmtSeconds(ns int64) string {
	neg := ns < 0
	if neg {
		ns = -ns
	}
	s := strconv.FormatInt(ns/1_000_000_000, 10) + "." + pad0(ns%1_000_000_000, 9)
	if neg {
		return "-" + s
	}
	return s
}

func pad0(v int64, w int) string {
	s := strconv.FormatInt(v, 10)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

// fmtCount renders a count with thousands separators: "1,234,567".
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtBytes renders a byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.1 GiB".
func fmtBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(f/(1<<10), 'f', 1, 64) + " KiB"
	case n < 1<<30:
		return strconv.FormatFloat(f/(1<<20), 'f', 1, 64) + " MiB"
	case n < 1<<40:
		return strconv.FormatFloat(f/(1<<30), 'f', 1, 64) + " GiB"
	}
	return strconv.FormatFloat(f/(1<<40), 'f', 1, 64) + " TiB"
}

// fmtRate renders bytes over ns as a bit rate: "12.3 Gb/s".
func fmtRate(bytes, ns int64) string {
	if ns <= 0 {
		return "-"
	}
	bps := float64(bytes) * 8 * 1e9 / float64(ns)
	switch {
	case bps >= 1e9:
		return trimFloat1(bps/1e9) + " Gb/s"
	case bps >= 1e6:
		return trimFloat1(bps/1e6) + " Mb/s"
	case bps >= 1e3:
		return trimFloat1(bps/1e3) + " kb/s"
	}
	return trimFloat1(bps) + " b/s"
}

func trimFloat1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// fmtPercent renders part/whole as "12.5%".
func fmtPercent(part, whole int64) string {
	if whole <= 0 {
		return "0%"
	}
	return trimFloat1(100*float64(part)/float64(whole)) + "%"
}

// plural renders "1 flow", "2 flows".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmtCount(n) + " " + what + "s"
}
