package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docRow is a row of the package doc's findings table: "\tcode  severity  text".
var docRow = regexp.MustCompile(`^\t([a-z0-9_]+) +(error|warning|info) `)

// docCodes returns the codes of the findings table in doc.go, with their
// documented severities.
func docCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package doc")
	}
	_, table, ok := strings.Cut(f.Doc.Text(), "\n# Findings\n")
	if !ok {
		t.Fatal(`doc.go: no "# Findings" section`)
	}
	table, _, _ = strings.Cut(table, "\n# ")
	codes := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		if m := docRow.FindStringSubmatch(line); m != nil {
			if _, dup := codes[m[1]]; dup {
				t.Errorf("doc.go lists %s twice", m[1])
			}
			codes[m[1]] = m[2]
		}
	}
	return codes
}

// constCodes returns the values of the Code* constants of the package's
// non-test files, keyed by value, with the constants' names.
func constCodes(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Code") {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: %s is not a string literal", fset.Position(id.Pos()), id.Name)
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes[v] = id.Name
				}
			}
		}
	}
	return codes
}

// The findings table of the package doc and the Code* constants list the
// same codes.
func TestDocCodes(t *testing.T) {
	doc, consts := docCodes(t), constCodes(t)
	if len(doc) == 0 || len(consts) == 0 {
		t.Fatalf("found %d codes in doc.go and %d Code* constants", len(doc), len(consts))
	}
	for _, code := range slices.Sorted(maps.Keys(consts)) {
		if _, ok := doc[code]; !ok {
			t.Errorf("%s (%q) is missing from the findings table in doc.go", consts[code], code)
		}
	}
	for _, code := range slices.Sorted(maps.Keys(doc)) {
		if _, ok := consts[code]; !ok {
			t.Errorf("doc.go lists %q, which no Code* constant has", code)
		}
	}
}

// Every finding is added with the severity doc.go gives its code.
func TestDocSeverities(t *testing.T) {
	doc, consts := docCodes(t), constCodes(t)
	byName := map[string]string{}
	for code, name := range consts {
		byName[name] = code
	}
	sevs := map[string]string{"SeverityError": "error", "SeverityWarning": "warning", "SeverityInfo": "info"}
	files, err := filepath.Glob("findings*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	added := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "add" {
				return true
			}
			sev, ok1 := call.Args[0].(*ast.Ident)
			code, ok2 := call.Args[1].(*ast.Ident)
			if !ok1 || !ok2 || sevs[sev.Name] == "" || byName[code.Name] == "" {
				t.Errorf("%s: add called without a Severity and a Code constant", fset.Position(call.Pos()))
				return true
			}
			c := byName[code.Name]
			added[c] = true
			if d, ok := doc[c]; ok && d != sevs[sev.Name] {
				t.Errorf("%s: %s added as %s, doc.go says %s", fset.Position(call.Pos()), c, sevs[sev.Name], d)
			}
			return true
		})
	}
	for _, code := range slices.Sorted(maps.Keys(consts)) {
		if !added[code] {
			t.Errorf("no finding is ever added with %s (%q)", consts[code], code)
		}
	}
}
