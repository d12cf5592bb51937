package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// reference is s as a json.Encoder without HTML escaping writes it.
func reference(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppend(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"10.0.0.1>10.0.0.2:qp0x000011", `"10.0.0.1>10.0.0.2:qp0x000011"`},
		{"a<b>&c", `"a<b>&c"`},
		{`say "hi"`, `"say \"hi\""`},
		{`C:\caps\x.pcap`, `"C:\\caps\\x.pcap"`},
		{"tab\there\nnl\rcr\bbs\fff", `"tab\there\nnl\rcr\bbs\fff"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"del\x7f", "\"del\x7f\""},
		{"é µs 日本", `"é µs 日本"`},
		{"a\xffb.pcap", `"a\ufffdb.pcap"`},
		{"\xff", `"\ufffd"`},
		{"\xe2\x82", `"\ufffd\ufffd"`},           // truncated sequence: one \ufffd per byte
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // surrogate half
		{"\xc0\xaf", `"\ufffd\ufffd"`},           // overlong
		{"\ufffd", "\"\ufffd\""},                 // a real U+FFFD stays as it is
		{"x\u2028y\u2029z", `"x\u2028y\u2029z"`}, // line and paragraph separators
		{"\u2027\u202a", "\"\u2027\u202a\""},     // their neighbours are not escaped
		{"é\"\xfe<\u2029\x01>", `"é\"\ufffd<\u2029\u0001>"`},
	} {
		got := Append([]byte("prefix "), tc.in)
		if want := "prefix " + tc.want; string(got) != want {
			t.Errorf("Append(%q) = %s, want %s", tc.in, got[7:], tc.want)
		}
		if ref := reference(t, tc.in); string(ref) != tc.want {
			t.Errorf("%q: encoding/json writes %s, the table says %s", tc.in, ref, tc.want)
		}
		if !json.Valid(got[7:]) {
			t.Errorf("Append(%q) = %s: invalid JSON", tc.in, got[7:])
		}
	}
}

// Plain ASCII takes the fast path: no allocation when b has room.
func TestAppendASCIINoAlloc(t *testing.T) {
	buf := make([]byte, 0, 256)
	for _, s := range []string{"10.0.0.1>10.0.0.2:qp0x000011", "capture-01.pcapng", "RDMA_WRITE_FIRST", ""} {
		if n := testing.AllocsPerRun(100, func() { buf = Append(buf[:0], s) }); n != 0 {
			t.Errorf("Append(%q): %v allocations, want 0", s, n)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{
		"", "plain", "10.0.0.1>10.0.0.2:qp0x000011", "a\xffb.pcap", "\u2028\u2029",
		"\"\\\b\f\n\r\t\x00\x1f\x7f", "é日本\ufffd", "\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80", strings.Repeat("<&>", 5),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Append(nil, s)
		if want := reference(t, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, encoding/json writes %s", s, got, want)
		}
		if !json.Valid(got) {
			t.Fatalf("Append(%q) = %s: invalid JSON", s, got)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"flowid", "10.0.0.1>10.0.0.2:qp0x000011"},
		{"file", "/work/shared/pcaps/rxe_tut_nccl_ring2_node0.pcap"},
		{"escapes", "dir\\name \"quoted\"\tx.pcap"},
		{"utf8", "capture-µs-日本.pcap"},
		{"invalid", "a\xffb.pcap"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 256)
			b.SetBytes(int64(len(bc.s)))
			b.ReportAllocs()
			for b.Loop() {
				buf = Append(buf[:0], bc.s)
			}
		})
	}
}
