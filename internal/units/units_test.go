package units

import "testing"

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{Duration(850), "850 ns"},
		{Duration(-850), "-850 ns"},
		{Duration(12_300), "12.3 µs"},
		{Duration(12_000), "12 µs"},
		{Duration(4_560_000), "4.56 ms"},
		{Duration(150_100_000), "150.1 ms"},
		{Duration(1_234_000_000), "1.234 s"},
		{Duration(163_834_000_000), "163.834 s"},
		{Count(0), "0"},
		{Count(999), "999"},
		{Count(1_000), "1,000"},
		{Count(-1_234_567), "-1,234,567"},
		{Bytes(512), "512 B"},
		{Bytes(1536), "1.5 KiB"},
		{Bytes(3 << 20), "3.0 MiB"},
		{Bytes(2 << 40), "2.0 TiB"},
		{Rate(125_000_000, 1_000_000_000), "1.0 Gb/s"},
		{Rate(1, 0), "-"},
		{Plural(1, "NAK"), "1 NAK"},
		{Plural(1234, "NAK"), "1,234 NAKs"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
