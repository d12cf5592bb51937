// Package units renders numbers the way rocetrace shows them to people,
// each with its unit: durations, counts with thousands separators, byte
// sizes, bit rates and percentages. The text report and the terminal UI
// both use it, so a number reads the same in both.
package units

import (
	"strconv"
	"strings"
)

// Duration renders nanoseconds as "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
func Duration(ns int64) string {
	a := ns
	if a < 0 {
		a = -a
	}
	switch {
	case a < 1_000:
		return strconv.FormatInt(ns, 10) + " ns"
	case a < 1_000_000:
		return trim3(float64(ns)/1e3) + " µs"
	case a < 1_000_000_000:
		return trim3(float64(ns)/1e6) + " ms"
	}
	return trim3(float64(ns)/1e9) + " s"
}

// trim3 prints at most 3 decimals, without trailing zeros.
func trim3(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// One prints v with one decimal.
func One(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// Count renders an integer with thousands separators: "1,234,567".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Bytes renders a byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.1 GiB",
// "2.0 TiB".
func Bytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return One(f/(1<<10)) + " KiB"
	case n < 1<<30:
		return One(f/(1<<20)) + " MiB"
	case n < 1<<40:
		return One(f/(1<<30)) + " GiB"
	}
	return One(f/(1<<40)) + " TiB"
}

// Rate renders bytes over ns nanoseconds as a bit rate: "12.3 Gb/s".
func Rate(bytes, ns int64) string {
	if ns <= 0 {
		return "-"
	}
	bps := float64(bytes) * 8 * 1e9 / float64(ns)
	switch {
	case bps >= 1e9:
		return One(bps/1e9) + " Gb/s"
	case bps >= 1e6:
		return One(bps/1e6) + " Mb/s"
	case bps >= 1e3:
		return One(bps/1e3) + " kb/s"
	}
	return One(bps) + " b/s"
}

// Plural renders "1 flow", "2 flows", "1,234 flows".
func Plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return Count(n) + " " + what + "s"
}
