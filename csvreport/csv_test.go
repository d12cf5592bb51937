package csvreport

import (
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
)

type inner struct {
	P50 int64 `json:"p50_ns"`
	Max int64 `json:"max_ns"`
}

type row struct {
	Name    string   `json:"name"`
	N       *uint32  `json:"n,omitempty"`
	OK      bool     `json:"ok"`
	Lat     inner    `json:"lat"`
	List    []string `json:"list"`
	Skipped int      `json:"-"`
	hidden  int
}

func TestWriteTable(t *testing.T) {
	n := uint32(7)
	rows := []row{
		{Name: `a,"b"`, N: &n, OK: true, Lat: inner{1, 2}, List: []string{"x"}},
		{Name: "c", Lat: inner{3, 4}, hidden: 1},
	}
	var b strings.Builder
	if err := writeTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	// The struct field spreads into lat.p50_ns and lat.max_ns; "-" and unexported fields
	// are no column; a nil pointer and a nil slice's JSON: "" and null; quoting per RFC 4180.
	want := "name,n,ok,lat.p50_ns,lat.max_ns,list\n" +
		`"a,""b""",7,true,1,2,"[""x""]"` + "\n" +
		"c,,false,3,4,null\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteFileNames(t *testing.T) {
	r := &analysis.Report{Findings: []analysis.Finding{{Severity: analysis.SeverityInfo, Code: "x", Message: "m"}}}
	var b strings.Builder
	if err := WriteFile(&b, "findings.csv", r); err != nil {
		t.Fatal(err)
	}
	// A capture-wide finding: flow is null, an empty last cell.
	if want := "severity,code,message,flow,timeout_k,idle_ns\ninfo,x,m,,,\n"; b.String() != want {
		t.Errorf("findings.csv = %q, want %q", b.String(), want)
	}
	if err := WriteFile(&b, "nope.csv", r); err == nil {
		t.Error("no error for an unknown table")
	}
}
