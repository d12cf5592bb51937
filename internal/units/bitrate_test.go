package units

import "testing"

func TestBitRate(t *testing.T) {
	tests := []struct {
		bps  int64
		want string
	}{
		{0, "0 b/s"},
		{999, "999 b/s"},
		{1_000, "1.0 kb/s"},
		{12_345_678, "12.3 Mb/s"},
		{97_700_000_000, "97.7 Gb/s"},
		{1_250_000_000_000, "1.2 Tb/s"},
	}
	for _, tc := range tests {
		if got := BitRate(tc.bps); got != tc.want {
			t.Errorf("BitRate(%d) = %q, want %q", tc.bps, got, tc.want)
		}
	}
}
