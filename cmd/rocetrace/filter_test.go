package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

func demo(name string) string { return filepath.Join(testenv.RepoRoot(), "pcaps", name) }

// jsonFrames returns the frame numbers and the events of packets --json
// output.
func jsonFrames(t *testing.T, out string) (frames []int, events map[int][]string) {
	t.Helper()
	events = map[int][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var o struct {
			Frame  int      `json:"frame"`
			Events []string `json:"events"`
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		frames = append(frames, o.Frame)
		if o.Events != nil {
			events[o.Frame] = o.Events
		}
	}
	return frames, events
}

// TestEventNamesAgree: the filter's names of the mask bits are flows' (the
// filter package cannot import flows), and flows' kinds name themselves so.
func TestEventNamesAgree(t *testing.T) {
	if filter.EventNames != flows.EventMaskNames {
		t.Fatalf("filter.EventNames %v != flows.EventMaskNames %v", filter.EventNames, flows.EventMaskNames)
	}
	for k := flows.EventPSNGap; k <= flows.EventPause; k++ {
		if got := flows.EventMaskNames[bitIndex(k.Bit())]; got != k.String() {
			t.Errorf("bit of %s names %s", k, got)
		}
	}
}

func bitIndex(m flows.EventMask) int {
	for i := range 8 {
		if m == 1<<i {
			return i
		}
	}
	return -1
}

// TestFrameEventsDemos checks the events field on the demo captures by
// hand against their reports:
//   - loss_nak_replay: PSN 1003 is lost, so frame 4 (PSN 1004, expected
//     1003) shows psn_gap; frame 5 is B's NAK of 1003; frame 9 is the first
//     replayed packet (PSN 1003), where the replay episode starts (the
//     report's retransmission event has frame 9's ts_ns).
//   - congestion_cnp: the two CNPs are frames 16 and 26 (2 cnp events).
//   - pfc_pause_storm: frame 16 arms the storm (its pause event starts at
//     frame 16's time) and frame 18 arms the short XON'd pause.
//   - mirror_erspan_snap192: no events.
func TestFrameEventsDemos(t *testing.T) {
	tests := []struct {
		file string
		want map[int][]string
	}{
		{"loss_nak_replay.pcap", map[int][]string{4: {"psn_gap"}, 5: {"nak"}, 9: {"retransmission"}}},
		{"congestion_cnp.pcap", map[int][]string{16: {"cnp"}, 26: {"cnp"}}},
		{"pfc_pause_storm.pcapng", map[int][]string{16: {"pause"}, 18: {"pause"}}},
		{"mirror_erspan_snap192.pcapng", map[int][]string{}},
	}
	for _, tc := range tests {
		code, out, errOut := rt(t, "packets", "--json", demo(tc.file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, errOut)
		}
		_, got := jsonFrames(t, out)
		if !mapsEqual(got, tc.want) {
			t.Errorf("%s: events %v, want %v", tc.file, got, tc.want)
		}
		// -Y events lists exactly those frames.
		_, out, _ = rt(t, "packets", "--json", "-Y", "events", demo(tc.file))
		frames, _ := jsonFrames(t, out)
		var want []int
		for f := range tc.want {
			want = append(want, f)
		}
		slices.Sort(want)
		if !slices.Equal(frames, want) {
			t.Errorf("%s: -Y events frames %v, want %v", tc.file, frames, want)
		}
	}
	// One kind: -Y 'events == "nak"'.
	_, out, _ := rt(t, "packets", "--json", "-Y", `events == "nak"`, demo("loss_nak_replay.pcap"))
	if frames, _ := jsonFrames(t, out); !slices.Equal(frames, []int{5}) {
		t.Errorf(`events == "nak": frames %v, want [5]`, frames)
	}
	// -V: the Analysis section of frame 4 (expected 1003, got 1004).
	_, out, _ = rt(t, "packets", "-V", "-Y", "frame == 4", demo("loss_nak_replay.pcap"))
	if !strings.Contains(out, "Analysis\n    [PSN gap: expected 1003, got 1004 (1 missing)]\n") {
		t.Errorf("-V frame 4:\n%s", out)
	}
}

func mapsEqual(a, b map[int][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestFilterErrorsCLI: a filter that does not compile exits 2 with the
// message, the expression and a caret under the column.
func TestFilterErrorsCLI(t *testing.T) {
	f := demo("loss_nak_replay.pcap")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"packets", "-Y", "dst_qpn == 0x11 && ip.sr", f},
			"rocetrace: display filter: unknown field \"ip.sr\"\n  dst_qpn == 0x11 && ip.sr\n                     ^\n"},
		{[]string{"packets", "-R", "kind == 5", f},
			"rocetrace: read filter: kind is a string: write the value as a \"quoted string\", not 5\n  kind == 5\n          ^\n"},
		{[]string{"report", "--read-filter", "psn in {1,", f},
			"rocetrace: read filter: missing \"}\" for this \"{\"\n  psn in {1,\n         ^\n"},
		{[]string{"export", "-o", t.TempDir(), "-Y", "(psn", f},
			"rocetrace: display filter: missing \")\" for this \"(\"\n  (psn\n  ^\n"},
		{[]string{"report", "-R", "events", f},
			"rocetrace: read filter: events is known only after the analysis: use it in a display filter (-Y)\n  events\n  ^\n"},
	}
	for _, tc := range tests {
		code, out, errOut := rt(t, tc.args...)
		if code != exitUsage || errOut != tc.want || out != "" {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit 2 and\n%s", tc.args, code, errOut, tc.want)
		}
	}
}

// TestReadFilterLikeDroppedFrames: -R changes the analysis exactly as
// dropping the frames from the file would. congestion_cnp without frames 3
// and 16 (a CE-marked WRITE and the first CNP), written by the
// synthesizer, against the whole capture read with -R.
func TestReadFilterLikeDroppedFrames(t *testing.T) {
	c := synth.CongestionCNP()
	n := len(c.Frames)
	kept := &synth.Capture{}
	for i, fr := range c.Frames {
		if i+1 != 3 && i+1 != 16 {
			kept.Frames = append(kept.Frames, fr)
		}
	}
	full, part := writeCapture(t, c, synth.PcapNanos), writeCapture(t, kept, synth.PcapNanos)
	_, a, _ := rt(t, "report", "--json", "-R", "!(frame in {3, 16})", full)
	_, b, _ := rt(t, "report", "--json", part)
	var ra, rb map[string]any
	if err := json.Unmarshal([]byte(a), &ra); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &rb); err != nil {
		t.Fatal(err)
	}
	ca, cb := ra["capture"].(map[string]any), rb["capture"].(map[string]any)
	// packets counts every frame read (n), filtered_out the 2 dropped.
	if ca["packets"] != float64(n) || ca["filtered_out"] != float64(2) || cb["packets"] != float64(n-2) || cb["filtered_out"] != float64(0) {
		t.Errorf("packets %v filtered_out %v (filtered), %v %v (dropped): want %d 2, %d 0",
			ca["packets"], ca["filtered_out"], cb["packets"], cb["filtered_out"], n, n-2)
	}
	for _, k := range []string{"packets", "filtered_out", "files"} {
		delete(ca, k)
		delete(cb, k)
	}
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("report with -R differs from the report of the pre-filtered capture:\n%s\n%s", ja, jb)
	}
	// The text report names the dropped frames.
	_, txt, _ := rt(t, "report", "-R", "!(frame in {3, 16})", full)
	if !strings.Contains(txt, "filtered out  2 frames dropped by the read filter (-R)") {
		t.Errorf("text report:\n%s", txt)
	}
}

// TestExportFilterAndEvents: -Y keeps only the matching rows of
// packets.parquet (the other tables cover the whole capture), and the
// events column holds the frame's events as packets --json does (and as
// DuckDB reads it).
func TestExportFilterAndEvents(t *testing.T) {
	f := demo("loss_nak_replay.pcap")
	dir := t.TempDir()
	if code, _, errOut := rt(t, "export", "-o", dir, "-Y", "events || frame == 1", f); code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	paths := export.FilePaths(dir)
	rows := expRead[export.PacketRow](t, paths.Packets)
	var got []string
	for _, r := range rows {
		got = append(got, strconv.FormatInt(r.Frame, 10)+":"+strings.Join(r.Events, ","))
	}
	// Frame 1 (no events), 4 psn_gap, 5 nak, 9 retransmission.
	if want := []string{"1:", "4:psn_gap", "5:nak", "9:retransmission"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if rows[0].Events != nil {
		t.Errorf("frame 1 events %v, want null", rows[0].Events)
	}
	if fl := expRead[export.FlowRow](t, paths.Flows); len(fl) != 2 || fl[0].Packets+fl[1].Packets != 23 {
		t.Errorf("flows.parquet: %d flows, want the whole capture's 2 (23 packets)", len(fl))
	}
	if _, _, err := duckAvailable(); err != nil {
		t.Skip(err)
	}
	res := expDuck(t, "SELECT frame, events FROM '"+paths.Packets+"' ORDER BY frame",
		"SELECT count(*) FROM '"+paths.Packets+"' WHERE list_contains(events, 'nak')")
	b, _ := json.Marshal(res)
	want := `[[["1",null],["4",["psn_gap"]],["5",["nak"]],["9",["retransmission"]]],[["1"]]]`
	if string(b) != want {
		t.Errorf("DuckDB: %s, want %s", b, want)
	}
}

// duckAvailable reports whether expDuck can run, without skipping.
func duckAvailable() (string, string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "", err
	}
	dir := os.Getenv("ROCETRACE_DUCKDB_NODE")
	if dir == "" {
		dir = "/tmp/duckdb-node"
	}
	mod := filepath.Join(dir, "node_modules", "@duckdb", "node-api")
	if _, err := os.Stat(filepath.Join(mod, "package.json")); err != nil {
		return "", "", err
	}
	return node, mod, nil
}

// tsharkFilterExprs are display filters over the Wireshark field names,
// compared with tshark's own display filter.
var tsharkFilterExprs = []string{
	"frame.number <= 100",
	"frame.len > 1000 or frame.len in {60..100}",
	"eth.src == 02:00:00:00:00:01",
	"eth.addr == 02:00:00:00:00:02",
	"eth.dst != 02:00:00:00:00:02",
	"vlan.id && vlan.priority == 3",
	"ip.src == 10.0.0.1",
	"ip.addr == 10.0.0.0/24",
	"ip.addr != 192.168.70.4",
	"ip.dst == 192.168.0.0/16",
	"ipv6.addr",
	"ipv6.src == fd00::/8 || ipv6.dst == fd00::2",
	"ip.dsfield.dscp == 26",
	"ip.dsfield.ecn == 3 || ip.dsfield.ecn eq 1",
	"ip.ttl < 64",
	"udp.srcport > 50000",
	"udp.port == 4791",
	"udp.port != 4791",
	"infiniband.bth.opcode == 0x11",
	"infiniband.bth.opcode in {0x06, 0x07, 0x08}",
	"infiniband.bth.opcode in {12..16, 0x81}",
	"infiniband.bth.opcode in {16..12, 0x81}", // an inverted range: empty
	"ip.addr in {10.0.0.9..10.0.0.1} || eth.src in {02:00:00:00:00:09..02:00:00:00:00:01}",
	"infiniband.bth.destqp == 0x11",
	"infiniband.bth.psn < 100",
	"infiniband.bth.a == 1",
	"infiniband.bth.se == true || infiniband.bth.p_key != 0xffff",
	"infiniband.aeth.syndrome >= 0x60",
	"infiniband.aeth.msn > 5 && !infiniband.reth.va",
	"infiniband.reth.r_key != 0",
	"infiniband.reth.dmalen >= 4096",
	"infiniband.deth.q_key",
	"infiniband.deth.srcqp == 1",
	"ip.addr == 10.0.0.1 && infiniband.bth.opcode == 0x11 || ipv6.addr",
	"not infiniband.bth.opcode and udp.dstport == 4791",
}

// TestFilterTSharkDifferential: on the real captures and the demos, merged
// into one file by mergecap (one tshark run per expression), packets -Y
// selects the frames tshark -Y selects. Left out, because tshark decodes
// them differently: the ERF capture (rocetrace does not read ERF) and the
// ERSPAN mirror (tshark's ip.addr also matches the outer, mirror header;
// rocetrace reads the inner frame). tshark is run with TFTP disabled: it
// takes UDP source port 69 of the hwnic capture's RoCE frames for TFTP.
func TestFilterTSharkDifferential(t *testing.T) {
	tshark := testenv.TShark(t)
	mergecap, err := exec.LookPath("mergecap")
	if err != nil {
		t.Skip("mergecap not installed (it comes with tshark)")
	}
	var files []string
	for _, f := range testenv.SharedPcaps(t) {
		if !strings.Contains(f, "erf") {
			files = append(files, f)
		}
	}
	files = append(files, demo("loss_nak_replay.pcap"), demo("congestion_cnp.pcap"), demo("pfc_pause_storm.pcapng"))
	all := filepath.Join(t.TempDir(), "all.pcapng")
	if out, err := exec.Command(mergecap, append([]string{"-a", "-w", all}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("mergecap: %v: %s", err, out)
	}
	frames := 0
	for _, expr := range tsharkFilterExprs {
		out, err := exec.Command(tshark, "--disable-protocol", "tftp", "-r", all, "-Y", expr, "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatalf("tshark -Y %q: %v", expr, err)
		}
		var want []int
		for _, l := range strings.Fields(string(out)) {
			n, _ := strconv.Atoi(l)
			want = append(want, n)
		}
		code, js, errOut := rt(t, "packets", "--json", "-Y", expr, all)
		if code != 0 {
			t.Fatalf("packets -Y %q: exit %d: %s", expr, code, errOut)
		}
		got, _ := jsonFrames(t, js)
		if !slices.Equal(got, want) {
			t.Errorf("-Y %q: %d frames, tshark %d (first of ours %v, of tshark's %v)", expr, len(got), len(want), head(got), head(want))
		}
		frames += len(want)
	}
	t.Logf("%d expressions over %d files, %d frames selected in all", len(tsharkFilterExprs), len(files), frames)
}

func head(v []int) []int { return v[:min(len(v), 8)] }

// TestExportFilterBatches: export adds its rows a batch of frames at a
// time, after the flow table observed the whole batch; each row must still
// get its own frame's events and pass -Y on them. On a synthesized capture
// of many batches with events throughout, the rows' frames and events
// equal those of `packets --json` under the same filter.
func TestExportFilterBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bulk.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteBulk(f, synth.BulkConfig{Frames: 20_000, QPs: 40, Snaplen: 128, Seed: 3,
		NAKShare: 0.05, CEShare: 0.05})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, filter string
		min          int // rows expected at least
	}{
		{"all", "", 20_000},
		{"events", "events", 500},
		{"no events", "!events && frame > 700", 15_000},
		{"one kind", "events contains \"cnp\" || frame in {255..258}", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var yArgs []string
			if tc.filter != "" {
				yArgs = []string{"-Y", tc.filter}
			}
			dir := t.TempDir()
			if code, _, errOut := rt(t, append([]string{"export", "-o", dir}, append(yArgs, path)...)...); code != 0 {
				t.Fatalf("export: %d %s", code, errOut)
			}
			var got []string
			for _, r := range expRead[export.PacketRow](t, export.FilePaths(dir).Packets) {
				got = append(got, fmt.Sprintf("%d:%v", r.Frame, r.Events))
			}
			code, lines, errOut := rt(t, append([]string{"packets", "--json"}, append(yArgs, path)...)...)
			if code != 0 {
				t.Fatalf("packets: %d %s", code, errOut)
			}
			var want []string
			for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
				var obj struct {
					Frame  int64
					Kind   string
					Events []string
				}
				if err := json.Unmarshal([]byte(line), &obj); err != nil {
					t.Fatal(err)
				}
				if obj.Kind != "other" {
					want = append(want, fmt.Sprintf("%d:%v", obj.Frame, obj.Events))
				}
			}
			if len(got) < tc.min || !slices.Equal(got, want) {
				t.Errorf("%d rows, %d frames from packets (want >= %d); first rows %v / %v", len(got), len(want),
					tc.min, got[:min(5, len(got))], want[:min(5, len(want))])
			}
		})
	}
}
