package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestReportCSV: report --csv on congestion_cnp writes the four tables with
// the JSON names as headers and one row per element of the JSON report.
func TestReportCSV(t *testing.T) {
	capture := filepath.Join(testenv.RepoRoot(), "pcaps", "congestion_cnp.pcap")
	dir := filepath.Join(t.TempDir(), "new", "csv")
	code, jsonOut, errOut := rt(t, "report", "--json", "--csv", dir, capture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]json.RawMessage{}
	for _, k := range []string{"flows", "events", "findings", "pfc"} {
		var v []json.RawMessage
		if err := json.Unmarshal(rep[k], &v); err != nil {
			t.Fatal(err)
		}
		rows[k] = v
	}
	for _, table := range []string{"flows", "events", "findings", "pfc"} {
		recs := readCSV(t, filepath.Join(dir, table+".csv"))
		if len(recs) != 1+len(rows[table]) {
			t.Errorf("%s.csv: %d records, want a header and %d rows", table, len(recs), len(rows[table]))
			continue
		}
		header := recs[0]
		for i, obj := range rows[table] {
			keys := objectKeys(t, obj)
			if table != "events" && !slices.Equal(keys, header) {
				t.Errorf("%s.csv header %v, JSON keys %v", table, header, keys)
			}
			// An event has its kind's keys only: each is a column, in the same order.
			var at []int
			for _, k := range keys {
				at = append(at, slices.Index(header, k))
			}
			if slices.Contains(at, -1) || !slices.IsSorted(at) {
				t.Errorf("%s.csv row %d: keys %v, columns %v", table, i, keys, header)
			}
		}
	}
	// The scenario's CNPs (internal/synth CongestionCNP): message 1 is CE-marked from
	// t0+100 µs and answered at t0+112 µs (12,000 ns); message 2 from t0+200 µs, answered at
	// t0+240 µs (40,000 ns); t0 = 1767323045000000000. Columns not of a CNP are empty.
	events := readCSV(t, filepath.Join(dir, "events.csv"))
	col := func(name string) int { return slices.Index(events[0], name) }
	want := [][4]string{{"cnp", "1767323045000112000", "12000", ""}, {"cnp", "1767323045000240000", "40000", ""}}
	for i, w := range want {
		row := events[1+i]
		got := [4]string{row[col("kind")], row[col("ts_ns")], row[col("ecn_to_cnp_ns")], row[col("psn")]}
		if got != w {
			t.Errorf("events.csv row %d: %v, want %v", i+1, got, w)
		}
	}
	flows := readCSV(t, filepath.Join(dir, "flows.csv"))
	// The first flow is q1's A>B QP 0x101: RC, so src_qpn is null (an empty cell); messages 1
	// and 2 were CE-marked, 4 packets of 1024 bytes each (4096 at PMTU 1024): ecn_ce 8.
	if flows[0][0] != "id" || flows[1][slices.Index(flows[0], "src_qpn")] != "" ||
		flows[1][slices.Index(flows[0], "ecn_ce")] != "8" {
		t.Errorf("flows.csv: %v / %v", flows[0], flows[1])
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in the CSV directory (temporary files left?)", len(entries))
	}
}

// TestReportHTMLFile: report --html writes the page and leaves no temporary
// file; stdout keeps the text report; an unwritable place is exit 1 with
// the path named.
func TestReportHTMLFile(t *testing.T) {
	capture := filepath.Join(testenv.RepoRoot(), "pcaps", "pfc_pause_storm.pcapng")
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	if err := os.WriteFile(page, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rt(t, "report", "--html", page, capture)
	if code != 0 || !strings.Contains(out, "== Capture") {
		t.Fatalf("exit %d, stdout %.200q, stderr %q", code, out, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte("pause_storm")) {
		t.Fatalf("page: %v, %.100q", err, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want only r.html", len(entries))
	}
	bad := filepath.Join(dir, "no", "such", "dir", "r.html")
	code, _, errOut = rt(t, "report", "--html", bad, capture)
	if code != exitFailed || !strings.Contains(errOut, "write "+bad) {
		t.Errorf("unwritable: exit %d, stderr %q", code, errOut)
	}
}
