package units

// BitRate renders a rate in bits per second: "850 b/s", "12.3 kb/s",
// "4.6 Mb/s", "97.7 Gb/s", "1.2 Tb/s" (decimal prefixes, one decimal).
func BitRate(bps int64) string {
	f := float64(bps)
	switch {
	case bps >= 1e12:
		return One(f/1e12) + " Tb/s"
	case bps >= 1e9:
		return One(f/1e9) + " Gb/s"
	case bps >= 1e6:
		return One(f/1e6) + " Mb/s"
	case bps >= 1e3:
		return One(f/1e3) + " kb/s"
	}
	return Count(bps) + " b/s"
}
