package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// A capture whose name is not UTF-8 ("a\xffb.pcap") still gives valid JSON
// (RFC 8259: UTF-8 text) from packets --json and report --json, the bad
// byte written as \ufffd as encoding/json writes it.
func TestJSONInvalidUTF8FileName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a\xffb.pcap")
	if err := synth.LossNAKReplay().WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	want := strings.ToValidUTF8(path, `\ufffd`)
	code, out, errOut := rt(t, "packets", "--json", path)
	if code != 0 {
		t.Fatalf("packets --json: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, line := range lines {
		if !json.Valid([]byte(line)) || !utf8.ValidString(line) {
			t.Fatalf("packets --json line %d is not valid JSON: %q", i+1, line)
		}
		if !strings.Contains(line, `"file":"`+want+`"`) {
			t.Fatalf("packets --json line %d: no \"file\":%q: %s", i+1, want, line)
		}
	}
	code, out, errOut = rt(t, "report", "--json", path)
	if code != 0 {
		t.Fatalf("report --json: exit %d: %s", code, errOut)
	}
	if !json.Valid([]byte(out)) || !utf8.ValidString(out) || !bytes.Contains([]byte(out), []byte(want)) {
		t.Fatalf("report --json: not valid JSON naming %q:\n%s", want, out)
	}
}
