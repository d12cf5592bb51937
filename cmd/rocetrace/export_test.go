package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// expRun runs the CLI in-process with ctx.
func expRun(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"rocetrace"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// expCaptures returns the demo captures and a synthesized one with what
// they lack (UD, immediate, invalidate, atomics, RNR NAK, XRC, bad ICRC,
// PAUSE, QinQ, snaplen cut), in a temp dir.
func expCaptures(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, s := range synth.Scenarios() {
		files = append(files, filepath.Join(testenv.RepoRoot(), "pcaps", s.Name+synth.Extension(s.Format)))
	}
	p := filepath.Join(t.TempDir(), "extras.pcapng")
	if err := expExtras().WriteFile(p, synth.Pcapng); err != nil {
		t.Fatal(err)
	}
	return append(files, p)
}

func expExtras() *synth.Capture {
	const t0 = 1767323045_000000000
	c := &synth.Capture{}
	ud := &synth.UD{Cap: c, Src: synth.Host(5), Dst: synth.Host(6), SrcQP: 0x51, DstQP: 0x61, QKey: 0x11111111, PSN: 7, SrcPort: 50000}
	ud.Send(t0+1_000, 256)
	ud.Send(t0+2_000, 512)
	conn := synth.NewConn(c, synth.Host(3), synth.Host(4), 0x33, 0x44, 10, 20)
	conn.Request(synth.A, t0+3_000, decode.OpSendOnlyImm, 64, func(r *synth.RoCE) { r.Imm = 0xdeadbeef })
	conn.Request(synth.A, t0+4_000, decode.OpSendOnlyInvalidate, 64, func(r *synth.RoCE) { r.IETHRKey = 0xabc })
	conn.Request(synth.A, t0+5_000, decode.OpCompareSwap, 0, func(r *synth.RoCE) {
		r.AtomicETH = decode.AtomicETHFields{VA: 0xffff_0000_0000_0008, RKey: 0x77, SwapAdd: 1 << 63, Compare: 42}
	})
	conn.Request(synth.A, t0+7_000, decode.OpSendOnly, 128, nil)
	conn.RNRNAK(synth.B, t0+8_000, 13, 14)
	conn.Lose(synth.A, 2)
	conn.Request(synth.A, t0+9_000, decode.OpSendOnly, 128, func(r *synth.RoCE) { r.CorruptICRC = true })
	x := synth.NewConn(c, synth.Host(7), synth.Host(8), 0x70, 0x80, 0, 0)
	x.Transport = decode.TransportXRC
	x.XRCSRQ = 0x1234
	x.Write(synth.A, t0+10_000, 1_000, 2048)
	x.SetWrap(synth.A, synth.Wrap{QinQ: true, VLANs: []synth.VLAN{{PCP: 5, VID: 200}, {PCP: 3, VID: 10}}})
	x.Write(synth.A, t0+20_000, 1_000, 1024)
	sw := [6]byte{0x02, 0x5a, 0, 0, 0, 9}
	c.Add(t0+30_000, synth.Pause(sw, 0xffff))
	c.Add(t0+40_000, synth.Pause(sw, 0))
	c.Add(t0+50_000, synth.PFC(sw, 0x0081, [8]uint16{0: 100, 7: 200, 3: 999}))
	c.Add(t0+60_000, synth.PFC(sw, 0x0081, [8]uint16{}))
	b, _ := (&synth.RoCE{
		Src: synth.Host(3), Dst: synth.Host(4), DSCP: 26, ECN: 2, Payload: 1024,
		BTH:  decode.BTHFields{Opcode: decode.Opcode(decode.OpWriteOnly), PKey: 0xFFFF, DestQP: 0x44, PSN: 30},
		RETH: decode.RETHFields{VA: 0x1000, RKey: 9, DMALen: 1024},
	}).Frame(synth.Wrap{})
	c.Frames = append(c.Frames, synth.Frame{TsNs: t0 + 70_000, Data: b[:70], Len: len(b)})
	c.Sort()
	return c
}

// expRead reads a whole Parquet file into rows of T.
func expRead[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return rows
}

// expFiles lists every file under dir (relative, sorted).
func expFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestExportRoundTrip exports several captures (merged, as the report
// merges them), reads every table back with parquet-go and compares it with
// `report --json` and `packets --json` on the same files.
func TestExportRoundTrip(t *testing.T) {
	files := expCaptures(t)
	dir := t.TempDir()
	code, out, errOut := expRun(context.Background(), append([]string{"export", "-o", dir}, files...)...)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	for _, tb := range export.Tables {
		if !strings.Contains(out, filepath.Join(dir, tb+".parquet")) {
			t.Errorf("stdout does not name %s.parquet:\n%s", tb, out)
		}
	}
	if got, want := expFiles(t, dir), []string{"events.parquet", "flows.parquet", "latency.parquet", "packets.parquet", "pfc.parquet", "rates.parquet"}; !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}

	code, js, errOut := expRun(context.Background(), append([]string{"report", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	var rep analysis.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	paths := export.FilePaths(dir)
	packets := expRead[export.PacketRow](t, paths.Packets)
	flowRows := expRead[export.FlowRow](t, paths.Flows)
	events := expRead[export.EventRow](t, paths.Events)
	pfc := expRead[export.PFCRow](t, paths.PFC)

	// Counts: the footer holds the report's capture counters.
	f, err := os.Open(paths.Packets)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := pf.Lookup(export.MetadataCapture)
	var capture analysis.CaptureSummary
	if err := json.Unmarshal([]byte(meta), &capture); err != nil || !reflect.DeepEqual(capture, rep.Capture) {
		t.Errorf("footer %s = %s (%v), want %+v", export.MetadataCapture, meta, err, rep.Capture)
	}
	kinds := map[string]int64{}
	for _, p := range packets {
		kinds[p.Kind]++
	}
	c := rep.Capture
	if kinds["roce"]+kinds["cnp"] != c.RoCEPackets || kinds["cnp"] != c.CNPPackets ||
		kinds["pfc"] != c.PFCFrames || kinds["pause"] != c.PauseFrames || len(kinds) != 4 {
		t.Errorf("rows by kind %v; capture %+v", kinds, c)
	}
	if c.PauseFrames == 0 || c.CNPPackets == 0 || c.PFCFrames == 0 || len(rep.Events) < 6 {
		t.Fatalf("test captures too poor: %+v, %d events", c, len(rep.Events))
	}

	// Every table row equals the report's entry.
	if len(flowRows) != len(rep.Flows) || len(events) != len(rep.Events) || len(pfc) != len(rep.PFC) {
		t.Fatalf("rows: %d flows, %d events, %d pfc; report: %d, %d, %d",
			len(flowRows), len(events), len(pfc), len(rep.Flows), len(rep.Events), len(rep.PFC))
	}
	for i := range rep.Flows {
		if want := export.FlowRowOf(&rep.Flows[i]); !reflect.DeepEqual(flowRows[i], want) {
			t.Errorf("flow %d:\n got %s\nwant %s", i, expJSON(flowRows[i]), expJSON(want))
		}
	}
	for i := range rep.Events {
		if want := export.EventRowOf(&rep.Events[i]); !reflect.DeepEqual(events[i], want) {
			t.Errorf("event %d:\n got %s\nwant %s", i, expJSON(events[i]), expJSON(want))
		}
	}
	for i := range rep.PFC {
		if want := export.PFCRowOf(&rep.PFC[i]); !reflect.DeepEqual(pfc[i], want) {
			t.Errorf("pfc %d:\n got %s\nwant %s", i, expJSON(pfc[i]), expJSON(want))
		}
	}
	seenKinds := map[string]bool{}
	for _, e := range events {
		seenKinds[e.Kind] = true
	}
	for _, k := range []string{"psn_gap", "retransmission", "nak", "rnr_nak", "cnp", "pause"} {
		if !seenKinds[k] {
			t.Errorf("no %s event exported", k)
		}
	}

	// Per-flow counters recomputed from the packet rows; flow ids join.
	type agg struct{ packets, cnps, naks, rnrNaks, ce int64 }
	byFlow := map[string]*agg{}
	for _, p := range packets {
		if p.Flow == nil {
			if p.Kind == "roce" || p.Kind == "cnp" {
				t.Errorf("frame %d of %s: %s row without a flow", p.Frame, p.File, p.Kind)
			}
			continue
		}
		a := byFlow[*p.Flow]
		if a == nil {
			a = &agg{}
			byFlow[*p.Flow] = a
		}
		a.packets++
		if p.Kind == "cnp" {
			a.cnps++
		}
		if p.AETHSyndrome != nil && *p.AETHSyndrome>>5 == 3 {
			a.naks++
		}
		if p.AETHSyndrome != nil && *p.AETHSyndrome>>5 == 1 {
			a.rnrNaks++
		}
		if p.Kind == "roce" && p.ECN != nil && *p.ECN == 3 {
			a.ce++
		}
	}
	if len(byFlow) != len(rep.Flows) {
		t.Errorf("%d flow ids in packets.parquet, %d flows", len(byFlow), len(rep.Flows))
	}
	for _, f := range rep.Flows {
		a := byFlow[f.ID]
		if a == nil {
			t.Errorf("flow %s has no packet rows", f.ID)
			continue
		}
		if a.packets != f.Packets || a.cnps != f.CNPs || a.naks != f.NAKs || a.rnrNaks != f.RNRNAKs || a.ce != f.ECNCE {
			t.Errorf("flow %s: rows give %+v; report packets=%d cnps=%d naks=%d rnr_naks=%d ecn_ce=%d",
				f.ID, *a, f.Packets, f.CNPs, f.NAKs, f.RNRNAKs, f.ECNCE)
		}
	}
	for _, e := range events {
		for _, id := range []*string{e.Flow, e.TargetFlow} {
			if id != nil && byFlow[*id] == nil {
				t.Errorf("event %s at %d names flow %s, absent from packets.parquet", e.Kind, e.TsNs, *id)
			}
		}
	}

	// Row by row against `packets --json` (frames of kind "other" have no row).
	code, lines, errOut := expRun(context.Background(), append([]string{"packets", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("packets --json: exit %d: %s", code, errOut)
	}
	i := 0
	sc := bufio.NewScanner(strings.NewReader(lines))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var obj struct {
			Frame uint64  `json:"frame"`
			File  string  `json:"file"`
			TsNs  int64   `json:"ts_ns"`
			Kind  string  `json:"kind"`
			Flow  *string `json:"flow"`
			PSN   *uint32 `json:"psn"`
		}
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "other" {
			continue
		}
		if i >= len(packets) {
			t.Fatalf("more frames in packets --json than rows (%d)", len(packets))
		}
		p := packets[i]
		if uint64(p.Frame) != obj.Frame || p.File != obj.File || p.TsNs != obj.TsNs || p.Ts != obj.TsNs ||
			p.Kind != obj.Kind || !reflect.DeepEqual(p.Flow, obj.Flow) || !reflect.DeepEqual(p.PSN, obj.PSN) {
			t.Errorf("row %d = %s\nwant %s", i, expJSON(p), sc.Text())
		}
		i++
	}
	if i != len(packets) {
		t.Errorf("%d rows, %d frames of interest", len(packets), i)
	}
}

func expJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// expCountdown is a context whose Err reports cancellation after its first
// n calls: the export loop checks it every 1024 records, so the export is
// interrupted part-way at a known frame.
type expCountdown struct {
	context.Context
	n atomic.Int64
}

func (c *expCountdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestExportInterrupted: an export cancelled part-way (as by Ctrl-C) exits
// 1, says so, and leaves no .parquet file nor temporary file.
func TestExportInterrupted(t *testing.T) {
	c := &synth.Capture{}
	conn := synth.NewConn(c, synth.Host(1), synth.Host(2), 0x11, 0x22, 0, 0)
	ts := int64(1767323045_000000000)
	for range 1000 {
		ts, _ = conn.Write(synth.A, ts, 100, 4096)
	}
	in := filepath.Join(t.TempDir(), "big.pcap")
	if err := c.WriteFile(in, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	for _, partition := range []bool{false, true} {
		dir := t.TempDir()
		ctx := &expCountdown{Context: context.Background()}
		ctx.n.Store(2) // cancelled at record 2048 of 4000
		args := []string{"export", "-o", dir, in}
		if partition {
			args = append(args, "--partition")
		}
		code, out, errOut := expRun(ctx, args...)
		if code != 1 {
			t.Errorf("partition=%v: exit %d, want 1 (stderr %q)", partition, code, errOut)
		}
		if !strings.Contains(errOut, "interrupted after 2048 frames") || !strings.Contains(errOut, "nothing written") {
			t.Errorf("partition=%v: stderr %q does not say what happened", partition, errOut)
		}
		if out != "" {
			t.Errorf("partition=%v: stdout %q", partition, out)
		}
		if got := expFiles(t, dir); len(got) != 0 {
			t.Errorf("partition=%v: files left: %v", partition, got)
		}
	}
}

// TestExportDamagedInput: a capture damaged part-way is exported up to the
// damage (like the report), with exit status 1 and the offset on stderr;
// the files are complete and hold the frames before the damage.
func TestExportDamagedInput(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.pcap")
	if err := synth.LossNAKReplay().WriteFile(good, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int
	for off := 24; off < len(b); off += 16 + int(binary.LittleEndian.Uint32(b[off+8:])) {
		offs = append(offs, off)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, b[:offs[9]+20], 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errOut := expRun(context.Background(), "export", "-o", dir, cut)
	if code != 1 || !strings.Contains(errOut, "cut.pcap") || !strings.Contains(errOut, "offset "+strconv.Itoa(offs[9])) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "packets.parquet: 9 rows") {
		t.Errorf("stdout %q", out)
	}
	if got := expFiles(t, dir); len(got) != len(export.Tables) {
		t.Fatalf("files %v", got)
	}
	rows := expRead[export.PacketRow](t, export.FilePaths(dir).Packets)
	if len(rows) != 9 || rows[8].Frame != 9 {
		t.Errorf("%d rows, want the 9 frames before the damage", len(rows))
	}
}

// TestExportRefusesToOverwrite: existing files stay unless --force.
func TestExportRefusesToOverwrite(t *testing.T) {
	in := filepath.Join(t.TempDir(), "a.pcap")
	if err := synth.LossNAKReplay().WriteFile(in, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errOut := expRun(context.Background(), "export", "-o", dir, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := filepath.Join(dir, "flows.parquet")
	if err := os.WriteFile(p, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := expRun(context.Background(), "export", "-o", dir, in)
	if code != 1 || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Error("flows.parquet overwritten without --force")
	}
	if code, _, errOut := expRun(context.Background(), "export", "--force", "-o", dir, in); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if rows := expRead[export.FlowRow](t, p); len(rows) != 2 {
		t.Errorf("%d flows after --force", len(rows))
	}
	if got := expFiles(t, dir); len(got) != len(export.Tables) {
		t.Errorf("files %v", got)
	}
}

func TestExportUsage(t *testing.T) {
	in := filepath.Join(t.TempDir(), "a.pcap")
	if err := synth.LossNAKReplay().WriteFile(in, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		has  string
	}{
		{[]string{"export", in}, 2, "-o DIR"},
		{[]string{"export", "-o", dir}, 2, "no capture file"},
		{[]string{"export", "-o", dir, "--compression", "brotli", in}, 2, "compression"},
		{[]string{"export", "-o", dir, "-j", "2", in}, 2, "--partition"},
		{[]string{"export", "-o", dir, "--partition", in, filepath.Join(t.TempDir(), "a.pcap")}, 2, "capture=a.pcap"},
		{[]string{"export", "-o", dir, filepath.Join(dir, "missing.pcap")}, 1, "missing.pcap"},
		{[]string{"export", "-h"}, 0, ""},
	} {
		code, _, errOut := expRun(context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.has) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, errOut, tc.code, tc.has)
		}
	}
	if got := expFiles(t, dir); len(got) != 0 {
		t.Errorf("files left: %v", got)
	}
}

// TestExportPartitioned exports three captures as a hive-style dataset in
// parallel; each partition equals the export of its capture alone.
func TestExportPartitioned(t *testing.T) {
	files := expCaptures(t)[1:] // three captures with distinct base names
	dir := t.TempDir()
	code, out, errOut := expRun(context.Background(), append([]string{"export", "--partition", "-j", "2", "-o", dir}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var want []string
	for _, tb := range export.Tables {
		for _, f := range files {
			want = append(want, fmt.Sprintf("%s/capture=%s/part-0.parquet", tb, filepath.Base(f)))
		}
	}
	sort.Strings(want)
	if got := expFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files\n%v\nwant\n%v", got, want)
	}
	if n := strings.Count(out, "wrote "); n != len(export.Tables)*len(files) {
		t.Errorf("stdout names %d files:\n%s", n, out)
	}
	for _, f := range files {
		single := t.TempDir()
		if code, _, errOut := expRun(context.Background(), "export", "-o", single, f); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		part := export.PartitionPaths(dir, f)
		one := export.FilePaths(single)
		expSame[export.PacketRow](t, part.Packets, one.Packets)
		expSame[export.FlowRow](t, part.Flows, one.Flows)
		expSame[export.EventRow](t, part.Events, one.Events)
		expSame[export.PFCRow](t, part.PFC, one.PFC)
	}
	// A second run refuses before writing anything.
	code, _, errOut = expRun(context.Background(), append([]string{"export", "--partition", "-o", dir}, files...)...)
	if code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("rerun: exit %d, stderr %q", code, errOut)
	}
}

func expSame[T any](t *testing.T, a, b string) {
	t.Helper()
	ra, rb := expRead[T](t, a), expRead[T](t, b)
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// expDuckDB returns the command running DuckDB's Node package on a script,
// or skips: node must be installed and @duckdb/node-api installed under
// $ROCETRACE_DUCKDB_NODE (default /tmp/duckdb-node), as .ci/run does.
func expDuckDB(t *testing.T) (node, modDir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the DuckDB reader check needs node and @duckdb/node-api")
	}
	dir := os.Getenv("ROCETRACE_DUCKDB_NODE")
	if dir == "" {
		dir = "/tmp/duckdb-node"
	}
	mod := filepath.Join(dir, "node_modules", "@duckdb", "node-api")
	if _, err := os.Stat(filepath.Join(mod, "package.json")); err != nil {
		t.Skipf("@duckdb/node-api not installed in %s (mkdir -p %s && cd %s && npm install @duckdb/node-api)", dir, dir, dir)
	}
	return node, mod
}

// expDuckScript runs each SQL statement in DuckDB and returns the rows of
// each as JSON values.
const expDuckScript = `
const { DuckDBInstance } = require(process.argv[2]);
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const out = [];
  for (const sql of JSON.parse(process.argv[3])) {
    const r = await con.runAndReadAll(sql);
    out.push(r.getRowsJson());
  }
  console.log(JSON.stringify(out));
})().catch(e => { console.error(String(e)); process.exit(1); });
`

func expDuck(t *testing.T, queries ...string) [][][]any {
	t.Helper()
	node, mod := expDuckDB(t)
	script := filepath.Join(t.TempDir(), "duck.js")
	if err := os.WriteFile(script, []byte(expDuckScript), 0o644); err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(queries)
	cmd := exec.Command(node, script, mod, string(q))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v: %s", err, stderr.String())
	}
	var res [][][]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output %q: %v", out, err)
	}
	return res
}

// TestExportDuckDB reads the export with DuckDB, an independent Parquet
// implementation: logical types, nullability, row counts and values, for
// each codec, and the partitioned dataset with hive partitioning.
func TestExportDuckDB(t *testing.T) {
	expDuckDB(t)
	files := expCaptures(t)
	sqlStr := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	for _, codec := range export.Compressions {
		t.Run(codec, func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := expRun(context.Background(), append([]string{"export", "--compression", codec, "--row-group-rows", "100", "-o", dir}, files...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			paths := export.FilePaths(dir)
			packets := expRead[export.PacketRow](t, paths.Packets)
			var queries []string
			tables := []struct {
				path  string
				model any
			}{
				{paths.Packets, new(export.PacketRow)},
				{paths.Flows, new(export.FlowRow)},
				{paths.Events, new(export.EventRow)},
				{paths.PFC, new(export.PFCRow)},
				{paths.Rates, new(export.RateRow)},
			}
			for _, tb := range tables {
				queries = append(queries,
					"SELECT name, repetition_type, logical_type IS NOT NULL AND logical_type LIKE 'TimestampType%NANOS%' AND logical_type LIKE '%isAdjustedToUTC=1%' FROM parquet_schema("+sqlStr(tb.path)+")",
					"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+sqlStr(tb.path)+")",
					"SELECT count(*) FROM "+sqlStr(tb.path))
			}
			queries = append(queries,
				"SELECT count(*) FILTER (WHERE flow IS NULL), count(*) FILTER (WHERE psn IS NULL), count(*) FILTER (WHERE pfc_quanta IS NOT NULL), "+
					"count(*) FILTER (WHERE epoch_ns(ts) // 1000 = ts_ns // 1000), sum(len(pfc_quanta)), max(reth_va), max(atomic_swap_add) FROM "+sqlStr(paths.Packets),
				"SELECT count(*) FROM "+sqlStr(paths.Packets)+" p JOIN "+sqlStr(paths.Flows)+" f ON p.flow = f.id",
			)
			res := expDuck(t, queries...)
			for i, tb := range tables {
				schema := parquet.SchemaOf(tb.model)
				fields := map[string]parquet.Field{}
				var want []string
				for _, f := range schema.Fields() {
					fields[f.Name()] = f
					want = append(want, f.Name())
				}
				var names []string
				for _, row := range res[3*i][1:] { // [0] is the root
					name, rep, ts := row[0].(string), row[1].(string), row[2].(bool)
					if name == "element" || name == "list" {
						continue // pfc_quanta's inner LIST group and element
					}
					names = append(names, name)
					if opt := fields[name] != nil && fields[name].Optional(); opt != (rep == "OPTIONAL") {
						t.Errorf("%s.%s: %s, want optional=%v", filepath.Base(tb.path), name, rep, opt)
					}
					wantTS := name == "ts" || name == "first_ts" || name == "last_ts"
					if ts != wantTS {
						t.Errorf("%s.%s: TIMESTAMP(NANOS, UTC) = %v, want %v", filepath.Base(tb.path), name, ts, wantTS)
					}
				}
				if !slices.Equal(names, want) {
					t.Errorf("%s: DuckDB columns %v, want %v", filepath.Base(tb.path), names, want)
				}
				types := map[string]string{}
				for _, row := range res[3*i+1] {
					types[row[0].(string)] = row[1].(string)
				}
				for col, typ := range map[string]string{
					"ts": "TIMESTAMP WITH TIME ZONE", "ts_ns": "BIGINT", "file": "VARCHAR", "kind": "VARCHAR",
					"src_ip": "VARCHAR", "flow": "VARCHAR", "psn": "UINTEGER", "dst_qpn": "UINTEGER",
					"pfc_quanta": "USMALLINT[]", "reth_va": "UBIGINT", "se": "BOOLEAN", "first_ts": "TIMESTAMP WITH TIME ZONE",
					"src_qpn": "UINTEGER", "priority": "UTINYINT", "target_flow": "VARCHAR",
				} {
					if got, ok := types[col]; ok && got != typ {
						t.Errorf("%s.%s: DuckDB type %s, want %s", filepath.Base(tb.path), col, got, typ)
					}
				}
			}
			if n := expNum(res[2][0][0]); n != int64(len(packets)) {
				t.Errorf("DuckDB counts %d packet rows, parquet-go %d", n, len(packets))
			}
			var noFlow, noPSN, pfcRows, quanta int64
			var maxVA uint64
			for _, p := range packets {
				if p.Flow == nil {
					noFlow++
				}
				if p.PSN == nil {
					noPSN++
				}
				if p.PFCQuanta != nil {
					pfcRows++
					quanta += int64(len(p.PFCQuanta))
				}
				if p.RETHVA != nil {
					maxVA = max(maxVA, *p.RETHVA)
				}
			}
			agg := res[len(res)-2][0]
			if expNum(agg[0]) != noFlow || expNum(agg[1]) != noPSN || expNum(agg[2]) != pfcRows ||
				expNum(agg[3]) != int64(len(packets)) || expNum(agg[4]) != quanta || fmt.Sprint(agg[5]) != strconv.FormatUint(maxVA, 10) ||
				fmt.Sprint(agg[6]) != strconv.FormatUint(1<<63, 10) {
				t.Errorf("DuckDB aggregates %v; want null flow %d, null psn %d, pfc rows %d, %d rows, %d quanta, max VA %d",
					agg, noFlow, noPSN, pfcRows, len(packets), quanta, maxVA)
			}
			if n := expNum(res[len(res)-1][0][0]); n != int64(len(packets))-noFlow {
				t.Errorf("packets JOIN flows: %d rows, want %d", n, int64(len(packets))-noFlow)
			}
		})
	}

	t.Run("partitioned", func(t *testing.T) {
		dir := t.TempDir()
		code, _, errOut := expRun(context.Background(), append([]string{"export", "--partition", "-j", "3", "-o", dir}, files...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		glob := func(tb string) string { return sqlStr(filepath.Join(dir, tb, "*", "*.parquet")) }
		res := expDuck(t,
			"SELECT capture, count(*) FROM read_parquet("+glob("packets")+", hive_partitioning = true) GROUP BY capture ORDER BY capture",
			"SELECT count(*) FROM read_parquet("+glob("flows")+", hive_partitioning = true) f JOIN read_parquet("+glob("events")+", hive_partitioning = true) e ON e.flow = f.id AND e.capture = f.capture",
		)
		var want [][]any
		var events int64
		for _, f := range files {
			p := export.PartitionPaths(dir, f)
			rows := expRead[export.PacketRow](t, p.Packets)
			want = append(want, []any{filepath.Base(f), strconv.Itoa(len(rows))})
			for _, e := range expRead[export.EventRow](t, p.Events) {
				if e.Flow != nil {
					events++
				}
			}
		}
		sort.Slice(want, func(i, j int) bool { return want[i][0].(string) < want[j][0].(string) })
		got := res[0]
		if len(got) != len(want) {
			t.Fatalf("DuckDB partitions %v, want %v", got, want)
		}
		for i := range got {
			if got[i][0] != want[i][0] || fmt.Sprint(got[i][1]) != want[i][1] {
				t.Errorf("partition %v, want %v", got[i], want[i])
			}
		}
		if n := expNum(res[1][0][0]); n != events {
			t.Errorf("events JOIN flows across partitions: %d, want %d", n, events)
		}
	})
}

// expNum converts a DuckDB JSON number (BIGINT comes as a string).
func expNum(v any) int64 {
	switch x := v.(type) {
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	case float64:
		return int64(x)
	}
	return -1
}

// expNotebook is examples/rocetrace.ipynb, parsed.
type expNotebook struct {
	Cells []struct {
		CellType       string          `json:"cell_type"`
		ID             string          `json:"id"`
		Metadata       map[string]any  `json:"metadata"`
		Source         []string        `json:"source"`
		Outputs        []any           `json:"outputs"`
		ExecutionCount json.RawMessage `json:"execution_count"`
	} `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// TestExampleNotebook checks that examples/rocetrace.ipynb is an nbformat 4
// notebook and runs every query in it with DuckDB on a plain and on a
// partitioned export, the way its first cell sets the views up.
func TestExampleNotebook(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "examples", "rocetrace.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb expNotebook
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&nb); err != nil {
		t.Fatalf("not a notebook: %v", err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor < 5 || nb.Metadata["kernelspec"] == nil {
		t.Errorf("nbformat %d.%d, kernelspec %v", nb.NBFormat, nb.NBFormatMinor, nb.Metadata["kernelspec"])
	}
	var code strings.Builder
	ids := map[string]bool{}
	for i, c := range nb.Cells {
		if c.ID == "" || ids[c.ID] || c.Metadata == nil || len(c.Source) == 0 {
			t.Errorf("cell %d: id %q (unique, required), metadata %v, %d source lines", i, c.ID, c.Metadata, len(c.Source))
		}
		ids[c.ID] = true
		switch c.CellType {
		case "code":
			if c.Outputs == nil || string(c.ExecutionCount) != "null" {
				t.Errorf("cell %d: code cell needs outputs [] and execution_count null", i)
			}
			code.WriteString(strings.Join(c.Source, "") + "\n")
		case "markdown":
			if c.Outputs != nil || c.ExecutionCount != nil {
				t.Errorf("cell %d: markdown cell with outputs", i)
			}
		default:
			t.Errorf("cell %d: type %q", i, c.CellType)
		}
	}
	src := code.String()
	view := func(name string) string {
		m := regexp.MustCompile(name + ` = "(.*)"`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no %s in the notebook", name)
		}
		return m[1]
	}
	single, partitioned := view("VIEW_SINGLE"), view("VIEW_PARTITIONED")
	var queries []string
	for _, m := range regexp.MustCompile(`(?s)q\("""(.*?)"""\)|q\("([^"\n]*)"\)`).FindAllStringSubmatch(src, -1) {
		queries = append(queries, m[1]+m[2])
	}
	if len(queries) < 8 {
		t.Fatalf("found %d queries in the notebook", len(queries))
	}
	expDuckDB(t)

	files := expCaptures(t)
	for _, partition := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"export", "-o", dir}
		tmpl := single
		if partition {
			args = append(args, "--partition", "-j", "2")
			tmpl = partitioned
		}
		if code, _, errOut := expRun(context.Background(), append(args, files...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var stmts []string
		for _, tb := range export.Tables {
			path := filepath.Join(dir, tb+".parquet")
			if partition {
				path = filepath.Join(dir, tb, "*", "*.parquet")
			}
			stmts = append(stmts, strings.NewReplacer("{table}", tb, "{path}", path).Replace(tmpl))
		}
		res := expDuck(t, append(stmts, queries...)...)
		for i, rows := range res[len(stmts):] {
			if len(rows) == 0 {
				t.Errorf("partition=%v: notebook query %d returns no row:\n%s", partition, i, queries[i])
			}
		}
	}
}

// expColumns returns a row's values by column name (nil for null).
func expColumns(v any) map[string]any {
	rv := reflect.ValueOf(v)
	m := make(map[string]any)
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name == "" || !f.IsExported() {
			continue
		}
		fv := rv.Field(i)
		switch {
		case (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Slice) && fv.IsNil():
			m[name] = nil
		case fv.Kind() == reflect.Pointer:
			m[name] = fv.Elem().Interface()
		default:
			m[name] = fv.Interface()
		}
	}
	return m
}

// TestExportSharedCaptures exports each real capture of ../shared/pcaps and
// compares every column of every row with `packets --json`.
func TestExportSharedCaptures(t *testing.T) {
	for _, path := range testenv.SharedPcaps(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := expRun(context.Background(), "export", "-o", dir, path)
			_, lines, _ := expRun(context.Background(), "packets", "--json", path)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			rows := expRead[export.PacketRow](t, export.FilePaths(dir).Packets)
			i := 0
			for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
				d := json.NewDecoder(strings.NewReader(line))
				d.UseNumber()
				var obj map[string]any
				if err := d.Decode(&obj); err != nil {
					t.Fatal(err)
				}
				if obj["kind"] == "other" {
					continue
				}
				if i >= len(rows) {
					t.Fatalf("more frames of interest than the %d rows", len(rows))
				}
				got := expColumns(rows[i])
				for k, want := range obj {
					if g, ok := got[k]; !ok || fmt.Sprint(g) != fmt.Sprint(want) {
						t.Errorf("row %d (frame %v) %s: parquet %v, json %v", i, obj["frame"], k, g, want)
					}
				}
				for k, v := range got {
					if _, ok := obj[k]; !ok && v != nil && k != "ts" {
						t.Errorf("row %d: %s = %v, absent from the JSON", i, k, v)
					}
				}
				i++
			}
			if i != len(rows) {
				t.Errorf("%d rows, %d frames of interest", len(rows), i)
			}
		})
	}
}
