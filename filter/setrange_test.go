package filter

import (
	"strings"
	"testing"
)

// TestSetRanges: the contract's `FIELD in {V1, V2, LO..HI}` takes ranges of
// addresses too (Wireshark 4 does for every ordered type). The frames of
// testPackets: write 10.0.0.1 -> 10.0.0.2 (MACs :01 -> :02), ack 10.0.0.2 ->
// 10.0.0.1 (MACs :02 -> :01), atomic fd00::1 -> fd00::2, pfc from :09.
func TestSetRanges(t *testing.T) {
	ps := testPackets(t)
	tests := []struct {
		expr string
		want string // the matching frames, in the order write ack atomic pfc
	}{
		{"ip.addr in {10.0.0.2..10.0.0.9}", "write ack"},      // .2 on one side of both
		{"ip.src in {10.0.0.2..10.0.0.9}", "ack"},             // 10.0.0.1 < .2: not write
		{"ip.src in {10.0.0.0 .. 10.0.0.1}", "write"},         // spaced, bounds inclusive
		{"ip.src in {10.0.0.1..10.0.0.1, 10.0.0.7}", "write"}, // a one-address range
		{"ip.dst in {10.0.0.3..10.0.0.255}", ""},              // neither .1 nor .2
		{"ipv6.src in {fd00::1..fd00::ff}", "atomic"},         // IPv6 bounds
		{"src_ip in {0.0.0.0..255.255.255.255}", "write ack"}, // an IPv4 range holds no IPv6 address
		{"src_ip in {10.0.0.2..10.0.0.2 fd00::..fd00::1}", "ack atomic"},
		{"eth.src in {02:00:00:00:00:01..02:00:00:00:00:02}", "write ack"}, // :09 (pfc) above
		{"eth.dst in {02:00:00:00:00:02..02:00:00:00:00:08}", "write"},     // ack goes to :01
		{"eth.addr in {02:00:00:00:00:09..02:00:00:00:00:09}", "pfc"},
		// An inverted range is empty, as in tshark 4.0 (which accepts it
		// and matches nothing with it); the set's other members still count.
		{"ip.addr in {10.0.0.9..10.0.0.1}", ""},
		{"ip.src in {10.0.0.9..10.0.0.1, 10.0.0.2}", "ack"},
		{"eth.src in {02:00:00:00:00:09..02:00:00:00:00:01}", ""},
		{"ipv6.src in {fd00::ff..fd00::1}", ""},
	}
	order := []string{"write", "ack", "atomic", "pfc"}
	for _, tc := range tests {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		var got []string
		for _, name := range order {
			if f.Match(ps[name], &Frame{}) {
				got = append(got, name)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: matched %q, want %q", tc.expr, g, tc.want)
		}
	}
}

// TestSetRangeErrors: bad address ranges are usage errors with a caret
// under the range (column of its first character).
func TestSetRangeErrors(t *testing.T) {
	tests := []struct {
		expr string
		col  int
		msg  string
	}{
		{"ip.addr in {10.0.0.0/8..10.0.0.9}", 13, "not a valid range"}, // a prefix is no bound
		{"src_ip in {10.0.0.1..fd00::1}", 12, "not a valid range"},     // two families
		{"ip.addr in {fd00::1..fd00::2}", 13, "IPv4"},                  // the field's family
		{"ip.addr == 10.0.0.1..10.0.0.2", 12, "not a valid address"},   // ranges only in sets
	}
	for _, tc := range tests {
		_, err := Compile(tc.expr)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: error %v, want *Error", tc.expr, err)
			continue
		}
		if e.Col != tc.col || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%q: column %d %q, want column %d with %q", tc.expr, e.Col, e.Msg, tc.col, tc.msg)
		}
	}
}
