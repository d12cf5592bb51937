package tui

import (
	"strconv"

	"github.com/rocetrace/rocetrace/internal/units"
)

// Formatting helpers: how numbers read on screen. Every number carries its
// unit.

// fmtDur renders nanoseconds as "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
func fmtDur(ns int64) string { return units.Duration(ns) }

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
func fmtCount(n int64) string { return units.Count(n) }

// fmtBytes renders a byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.1 GiB".
func fmtBytes(n int64) string { return units.Bytes(n) }

// fmtRate renders bytes over ns as a bit rate: "12.3 Gb/s".
func fmtRate(bytes, ns int64) string { return units.Rate(bytes, ns) }

func trimFloat1(v float64) string { return units.One(v) }

// fmtPercent renders part/whole as "12.5%".
func fmtPercent(part, whole int64) string {
	if whole <= 0 {
		return "0%"
	}
	return trimFloat1(100*float64(part)/float64(whole)) + "%"
}

// plural renders "1 flow", "2 flows".
func plural(n int64, what string) string { return units.Plural(n, what) }
