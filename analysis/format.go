package analysis

import "github.com/rocetrace/rocetrace/internal/units"

// fmtDur renders a duration in ns with a unit: "850 ns", "12.3 µs",
// "4.56 ms", "1.234 s".
func fmtDur(ns int64) string { return units.Duration(ns) }

// fmtTs renders a timestamp relative to the capture start: "+1.234 ms".
func fmtTs(ts, start int64) string {
	return "+" + fmtDur(ts-start)
}

// fmtBytes renders a byte count: "512 B", "1.5 KiB", "3.2 MiB", "1.1 GiB".
func fmtBytes(n int64) string { return units.Bytes(n) }

// plural renders "1 NAK", "2 NAKs".
func plural(n int64, what string) string { return units.Plural(n, what) }
