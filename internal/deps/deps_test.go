package deps

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

const module = "github.com/rocetrace/rocetrace/"

// rules says which of the module's packages each may import. A line
// "A, B < C, D" lets C and D import A and B and everything A and B may
// import; later lines build on earlier ones. Every package of the module
// must appear on the right of a rule (or on the left of the first ones, as
// a leaf), so that a new package is placed on purpose. Tests (_test.go
// files) are not checked: they may use test support from anywhere.
const rules = `
# leaves
NONE < internal/jsonstr, internal/units, internal/testenv, internal/golden, internal/deps

# network namespaces for the live-capture tests
NONE < capture/captest

# capture files, then the fast-path decoder and the gopacket layers
NONE < pcapio
pcapio, internal/jsonstr < decode
decode < layers

# live capture: AF_PACKET, BPF, writing what it captures
decode < capture

# the filter language (-Y, -R): over decoded packets; the events mask comes
# from the caller, so it knows nothing of flows
decode < filter

# per-QP flow state, then the report
decode < flows

# the same frames at several capture points (hops, same traffic)
flows < points
flows, points, internal/units, internal/jsonstr < analysis

# the one reading path under every command
analysis, filter < engine

# Parquet (not below the TUI, nor the other way); its column encoder knows
# nothing of RoCE
NONE < export/internal/colenc
analysis, export/internal/colenc < export

# the terminal UI: over the engine, never over export or live capture
engine, internal/units < tui

# test and demo captures; the tools that write them
layers < internal/synth
internal/synth < internal/cmd/mkdemo, bench/cmd/gencap, internal/stagebench

# the shareable HTML report and the CSV tables of report --html / --csv
analysis, internal/units < htmlreport
analysis < csvreport

# the command line: flags and wiring over everything; nothing imports it
engine, export, tui, capture, htmlreport, csvreport < cmd/rocetrace
`

// parseRules returns, per package, the set of module packages it may import.
func parseRules(t *testing.T) map[string]map[string]bool {
	allowed := map[string]map[string]bool{}
	for i, line := range strings.Split(rules, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lo, hi, ok := strings.Cut(line, "<")
		if !ok {
			t.Fatalf("rule %d: no '<': %q", i, line)
		}
		below := map[string]bool{}
		for _, a := range split(lo) {
			if a == "NONE" {
				continue
			}
			if _, ok := allowed[a]; !ok {
				t.Fatalf("rule %d: %s is used before a rule places it", i, a)
			}
			below[a] = true
			for b := range allowed[a] {
				below[b] = true
			}
		}
		for _, b := range split(hi) {
			if _, dup := allowed[b]; dup {
				t.Fatalf("rule %d: %s placed twice", i, b)
			}
			allowed[b] = below
		}
	}
	return allowed
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// moduleImports returns, per package directory of the module (relative to
// its root), the module packages its non-test files import.
func moduleImports(t *testing.T, root string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if strings.HasPrefix(p, module) {
				out[pkg][strings.TrimPrefix(p, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every package imports only what the rules allow, and every package is
// placed by a rule.
func TestImportRules(t *testing.T) {
	allowed := parseRules(t)
	imports := moduleImports(t, testenv.RepoRoot())
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		ok, placed := allowed[p]
		if !placed {
			t.Errorf("package %s is not placed by the import rules: add it to internal/deps/deps_test.go", p)
			continue
		}
		for im := range imports[p] {
			if !ok[im] {
				t.Errorf("%s imports %s, which the import rules do not allow", p, im)
			}
		}
	}
}

// The rules forbid what the architecture forbids: data flows one way.
func TestRulesForbid(t *testing.T) {
	allowed := parseRules(t)
	for _, c := range [][2]string{
		{"decode", "flows"}, {"decode", "analysis"}, {"flows", "analysis"},
		{"analysis", "export"}, {"analysis", "engine"}, {"export", "tui"},
		{"tui", "export"}, {"tui", "capture"}, {"engine", "export"},
		{"engine", "tui"}, {"capture", "flows"}, {"decode", "internal/synth"},
		{"pcapio", "decode"}, {"decode", "layers"}, {"flows", "layers"},
		{"analysis", "htmlreport"}, {"htmlreport", "engine"}, {"htmlreport", "export"}, {"tui", "htmlreport"},
		{"export", "csvreport"},
	} {
		if allowed[c[0]][c[1]] {
			t.Errorf("the rules let %s import %s", c[0], c[1])
		}
	}
	for p, ok := range allowed {
		if ok["cmd/rocetrace"] {
			t.Errorf("the rules let %s import cmd/rocetrace", p)
		}
	}
}
