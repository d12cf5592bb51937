package analysis

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

func TestAppendIndented(t *testing.T) {
	cases := []struct {
		name, src, prefix, want string
	}{
		{"scalar", `3`, "  ", `3`},
		{"empty object and array", `{"a":{},"b":[]}`, "", "{\n  \"a\": {},\n  \"b\": []\n}"},
		{"prefix on every new line", `{"a":[1,2]}`, "    ", "{\n      \"a\": [\n        1,\n        2\n      ]\n    }"},
		{"punctuation inside strings", `{"k,{[:":"v]},\"x\":1"}`, "", "{\n  \"k,{[:\": \"v]},\\\"x\\\":1\"\n}"},
		{"escaped backslash before the closing quote", `["a\\",{"b":"\\\""}]`, "", "[\n  \"a\\\\\",\n  {\n    \"b\": \"\\\\\\\"\"\n  }\n]"},
		{"backslash pairs and escaped quotes", `["a\\\\",{"\\\"":"\\\\\"x"}]`, "", "[\n  \"a\\\\\\\\\",\n  {\n    \"\\\\\\\"\": \"\\\\\\\\\\\"x\"\n  }\n]"},
		{"nested empties", `[[],{},[{}]]`, "", "[\n  [],\n  {},\n  [\n    {}\n  ]\n]"},
		{"null true false", `{"n":null,"t":true,"f":false,"x":-1.5e+30}`, "", "{\n  \"n\": null,\n  \"t\": true,\n  \"f\": false,\n  \"x\": -1.5e+30\n}"},
		{"non-ASCII and control escapes", `["é\u2028\u0001<&>"]`, "", "[\n  \"é\\u2028\\u0001<&>\"\n]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(appendIndented([]byte("pre"), []byte(c.src), c.prefix, "  "))
			if got != "pre"+c.want {
				t.Errorf("appendIndented(%s) =\n%s\nwant\n%s", c.src, got, "pre"+c.want)
			}
			var ref bytes.Buffer // the standard library agrees with want
			if err := json.Indent(&ref, []byte(c.src), c.prefix, "  "); err != nil {
				t.Fatal(err)
			}
			if ref.String() != c.want {
				t.Errorf("json.Indent(%s) =\n%s\nwant\n%s", c.src, ref.String(), c.want)
			}
		})
	}
}

// BenchmarkAppendIndented compares appendIndented with json.Indent on the
// flows of a report.
func BenchmarkAppendIndented(b *testing.B) {
	rep := benchReport(b)
	src, err := json.Marshal(rep.Flows)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("appendIndented", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		var dst []byte
		for b.Loop() {
			dst = appendIndented(dst[:0], src, "    ", "  ")
		}
	})
	b.Run("json.Indent", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		var dst bytes.Buffer
		for b.Loop() {
			dst.Reset()
			if err := json.Indent(&dst, src, "    ", "  "); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchReport is the report of a 20k-frame bulk capture (2000 flows).
func benchReport(b *testing.B) Report {
	b.Helper()
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, synth.BulkConfig{Frames: 20_000, Snaplen: 128, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	r, err := pcapio.NewReader(&buf, "bench.pcap", 0)
	if err != nil {
		b.Fatal(err)
	}
	d := decode.NewDecoder(decode.Config{})
	table := flows.NewTable(flows.Config{})
	var (
		c   Counter
		p   decode.Packet
		rec pcapio.Record
	)
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		d.DecodeRecord(&rec, &p)
		c.Observe(&p)
		table.Observe(&p)
	}
	return Build(table, c.Summary([]string{"bench.pcap"}), Options{})
}
