package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// The tests below keep docs/interface.md true to the CLI: every flag a
// command registers, every key of `report --json` and `packets --json`, and
// every finding code must be named there, in its own section, in backticks.

// interfaceDoc returns docs/interface.md.
func interfaceDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "interface.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docSection returns the part of doc under the heading line heading (e.g.
// "## `report --json`"), up to the next heading of the same or a higher
// level.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	level := strings.IndexByte(heading, ' ')
	var out []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		if in && strings.HasPrefix(line, "#") {
			if l := strings.IndexByte(line, ' '); l > 0 && l <= level && strings.Trim(line[:l], "#") == "" {
				break
			}
		}
		if line == heading {
			in = true
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("docs/interface.md has no heading %q", heading)
	}
	return strings.Join(out, "\n")
}

// requireNamed fails for every name that section does not mention as `name`.
func requireNamed(t *testing.T, section, where string, names []string) {
	t.Helper()
	for _, n := range names {
		if !strings.Contains(section, "`"+n+"`") {
			t.Errorf("docs/interface.md, %s: `%s` is not described", where, n)
		}
	}
}

// flagLine matches a flag in a command's -h output: "  -o, --output string".
var flagLine = regexp.MustCompile(`^\s+(?:-(\w), )?--([a-z0-9-]+)`)

// commandFlags runs `rocetrace COMMAND -h` in-process and returns the
// long names and the one-letter forms of the flags it lists (every flag the
// command's flag set registers).
func commandFlags(t *testing.T, command string) (long, short []string) {
	t.Helper()
	code, out, errOut := rt(t, command, "-h")
	if code != exitOK {
		t.Fatalf("%s -h: exit %d: %s", command, code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			long = append(long, "--"+m[2])
			if m[1] != "" {
				short = append(short, "-"+m[1])
			}
		}
	}
	if len(long) == 0 {
		t.Fatalf("%s -h lists no flag:\n%s", command, out)
	}
	return long, short
}

// TestInterfaceDocFlags: every flag of every command, with its one-letter
// form, is in that command's section; the flags all commands share are
// also in the shared section.
func TestInterfaceDocFlags(t *testing.T) {
	doc := interfaceDoc(t)
	commands := []string{"report", "packets", "export", "tui", "capture"}
	count := map[string]int{}
	for _, c := range commands {
		long, short := commandFlags(t, c)
		sec := docSection(t, doc, "### `rocetrace "+c+"`")
		requireNamed(t, sec, "rocetrace "+c, long)
		requireNamed(t, sec, "rocetrace "+c, short)
		for _, f := range long {
			count[f]++
		}
	}
	shared := docSection(t, doc, "## Flags every command accepts")
	var common []string
	for f, n := range count {
		if n == len(commands) {
			common = append(common, f)
		}
	}
	sort.Strings(common)
	if len(common) == 0 {
		t.Fatal("no flag is shared by every command")
	}
	requireNamed(t, shared, "Flags every command accepts", common)
}

// demoCaptures returns the demo captures in pcaps/.
func demoCaptures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.pcap", "*.pcapng"} {
		m, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "pcaps", pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no demo capture in pcaps/")
	}
	return out
}

// jsonKeys adds to keys every object key in v, at any depth.
func jsonKeys(v any, keys map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			keys[k] = true
			jsonKeys(e, keys)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, keys)
		}
	}
}

// structKeys adds to keys the JSON names of typ's fields, at any depth.
func structKeys(typ reflect.Type, keys map[string]bool) {
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		structKeys(typ.Elem(), keys)
	case reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			keys[name] = true
			structKeys(f.Type, keys)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reportKeys runs `report --json` on each capture and returns every key of
// the documents.
func reportKeys(t *testing.T, paths []string) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	for _, p := range paths {
		code, out, errOut := rt(t, "report", "--json", p)
		if code != exitOK {
			t.Fatalf("report --json %s: exit %d: %s", p, code, errOut)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("report --json %s: %v", p, err)
		}
		jsonKeys(v, keys)
	}
	return keys
}

// packetKeys runs `packets --json` on the captures and returns every key of
// its objects.
func packetKeys(t *testing.T, paths []string) map[string]bool {
	t.Helper()
	code, out, errOut := rt(t, append([]string{"packets", "--json"}, paths...)...)
	if code != exitOK {
		t.Fatalf("packets --json: exit %d: %s", code, errOut)
	}
	keys := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("packets --json line %q: %v", sc.Text(), err)
		}
		jsonKeys(v, keys)
	}
	return keys
}

// TestInterfaceDocReportKeys: every key of `report --json` on the demo
// captures, and every JSON name of the report's types (keys the demos do
// not show, such as the rnr_nak event's), is in the report section.
func TestInterfaceDocReportKeys(t *testing.T) {
	sec := docSection(t, interfaceDoc(t), "## `report --json`")
	keys := reportKeys(t, demoCaptures(t))
	if !keys["ecn_to_cnp_ns"] || !keys["after_nak_ns"] || !keys["duration_ns"] {
		t.Fatalf("the demo captures no longer show cnp, retransmission and pause events: %v", sortedKeys(keys))
	}
	structKeys(reflect.TypeOf(analysis.Report{}), keys)
	requireNamed(t, sec, "report --json", sortedKeys(keys))
}

// TestInterfaceDocPacketKeys: every key of `packets --json` on the demo
// captures, and the keys only some frames have (encap, cm_*), is in the
// packets section.
func TestInterfaceDocPacketKeys(t *testing.T) {
	sec := docSection(t, interfaceDoc(t), "## `packets --json`")
	keys := packetKeys(t, demoCaptures(t))
	// A frame that has everything optional: mirrored, and a CM REQ.
	p := decode.Packet{Encap: decode.EncapERSPAN3, CM: decode.CMFields{Attr: decode.CMAttrREQ}}
	var v any
	if err := json.Unmarshal(p.AppendJSON(nil, "f.pcap", ""), &v); err != nil {
		t.Fatal(err)
	}
	jsonKeys(v, keys)
	if !keys["encap"] || !keys["cm_local_qpn"] {
		t.Fatalf("optional packet keys missing: %v", sortedKeys(keys))
	}
	requireNamed(t, sec, "packets --json", sortedKeys(keys))
}

// TestInterfaceDocSharedCaptures: the same for the real captures in
// ../shared/pcaps, when they are there.
func TestInterfaceDocSharedCaptures(t *testing.T) {
	paths := testenv.SharedPcaps(t)
	doc := interfaceDoc(t)
	requireNamed(t, docSection(t, doc, "## `report --json`"), "report --json", sortedKeys(reportKeys(t, paths)))
	requireNamed(t, docSection(t, doc, "## `packets --json`"), "packets --json", sortedKeys(packetKeys(t, paths)))
}

// TestInterfaceDocFindingCodes: every finding code of analysis is in the
// findings section, in a table row with the severity analysis/doc.go gives.
func TestInterfaceDocFindingCodes(t *testing.T) {
	sec := docSection(t, interfaceDoc(t), "### `findings`")
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "analysis", "findings.go"))
	if err != nil {
		t.Fatal(err)
	}
	pkgDoc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "analysis", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	severity := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z_]+) +(error|warning|info) `).FindAllStringSubmatch(string(pkgDoc), -1) {
		severity[m[1]] = m[2]
	}
	codes := regexp.MustCompile(`(?m)^\tCode\w+ += "([a-z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(codes) == 0 {
		t.Fatal("no finding code found in analysis/findings.go")
	}
	for _, m := range codes {
		code := m[1]
		sev, ok := severity[code]
		if !ok {
			t.Errorf("analysis/doc.go does not list finding %s", code)
			continue
		}
		if row := "| `" + code + "` | " + sev + " |"; !strings.Contains(sec, row) {
			t.Errorf("docs/interface.md, findings: no row %q", row)
		}
	}
}
