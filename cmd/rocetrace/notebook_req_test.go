package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// TestNotebookRequirements: examples/rocetrace.ipynb states its
// requirements in its first cell (markdown) and examples/requirements.txt
// lists every package its code imports, pandas at 2 or later (for
// dtype_backend); the CNP latency plot caps its legend (WORST flows and one
// grey series for the others).
func TestNotebookRequirements(t *testing.T) {
	root := testenv.RepoRoot()
	b, err := os.ReadFile(filepath.Join(root, "examples", "rocetrace.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	first := strings.Join(nb.Cells[0].Source, "")
	if nb.Cells[0].CellType != "markdown" || !strings.Contains(first, "## Requirements") ||
		!strings.Contains(first, "pip install -r examples/requirements.txt") {
		t.Errorf("the first cell does not state the requirements:\n%s", first)
	}
	var code strings.Builder
	for _, c := range nb.Cells {
		if c.CellType == "code" {
			code.WriteString(strings.Join(c.Source, ""))
		}
	}
	req, err := os.ReadFile(filepath.Join(root, "examples", "requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []struct{ imp, req string }{
		{"import duckdb", "duckdb>="}, {"import pandas", "pandas>=2"}, {"import pyarrow", "pyarrow>="},
		{"import matplotlib", "matplotlib>="},
	} {
		if !strings.Contains(code.String(), pkg.imp) || !strings.Contains(string(req), "\n"+pkg.req) {
			t.Errorf("%q in the notebook needs %q in requirements.txt", pkg.imp, pkg.req)
		}
		if !strings.Contains(first, "`"+strings.TrimPrefix(pkg.imp, "import ")+"`") {
			t.Errorf("the first cell does not name %s", pkg.imp)
		}
	}
	if !strings.Contains(code.String(), `cnp[cnp["rank"] <= WORST]`) || !strings.Contains(code.String(), "other flows") {
		t.Error("the CNP latency legend is not capped to the worst flows")
	}
}
