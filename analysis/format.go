package analysis

import (
	"fmt"
	"strconv"
)

// fmtDur renders a duration in ns with a unit: "850 ns", "12.3 µs",
// "4.56 ms", "1.234 s".
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

// trimFloat prints 3 significant decimals at most, without trailing zeros.
func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// fmtTs renders a timestamp relative to the capture start: "+1.234 ms".
func fmtTs(ts, start int64) string {
	return "+" + fmtDur(ts-start)
}

// fmtBytes renders a byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.1 GiB".
func fmtBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return trimFloat1(float64(n)/(1<<10)) + " KiB"
	case n < 1<<30:
		return trimFloat1(float64(n)/(1<<20)) + " MiB"
	}
	return trimFloat1(float64(n)/(1<<30)) + " GiB"
}

func trimFloat1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// plural renders "1 NAK", "2 NAKs".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return num(n) + " " + what + "s"
}
