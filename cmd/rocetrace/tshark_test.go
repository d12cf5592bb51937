package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// tsharkField maps a tshark field to the contract's packet field.
type tsharkField struct {
	tshark, ours string
	ext          bool // an extended header field (not compared on CNP/XRC, where tshark is wrong)
}

// tsharkFields are compared frame by frame wherever tshark decodes them.
var tsharkFields = []tsharkField{
	{"infiniband.bth.opcode", "opcode", false},
	{"infiniband.bth.destqp", "dst_qpn", false},
	{"infiniband.bth.psn", "psn", false},
	{"infiniband.bth.a", "ackreq", false},
	{"infiniband.bth.p_key", "pkey", false},
	{"infiniband.aeth.syndrome", "aeth_syndrome", true},
	{"infiniband.aeth.msn", "aeth_msn", true},
	{"infiniband.reth.va", "reth_va", true},
	{"infiniband.reth.r_key", "reth_rkey", true},
	{"infiniband.reth.dmalen", "reth_len", true},
	{"infiniband.atomiceth.swapdt", "atomic_swap_add", true},
	{"infiniband.atomiceth.cmpdt", "atomic_compare", true},
	{"infiniband.atomicacketh.origremdt", "atomic_ack_orig", true},
	{"infiniband.deth.q_key", "deth_qkey", true},
	{"infiniband.deth.srcqp", "deth_src_qpn", true},
	{"ip.src", "src_ip", false},
	{"ip.dst", "dst_ip", false},
	{"ipv6.src", "src_ip", false},
	{"ipv6.dst", "dst_ip", false},
	{"udp.srcport", "udp_sport", false},
	{"udp.dstport", "udp_dport", false},
	// RoCEv1: the GRH's GIDs are rocetrace's src_ip and dst_ip.
	{"infiniband.grh.sgid", "src_ip", false},
	{"infiniband.grh.dgid", "dst_ip", false},
}

// fieldIndex returns the column of a tshark field in tsharkFields.
func fieldIndex(name string) int {
	for i, f := range tsharkFields {
		if f.tshark == name {
			return i
		}
	}
	panic("unknown tshark field " + name)
}

// diffCounts totals one differential run.
type diffCounts struct {
	frames, roceFrames, fields int
}

// runTSharkFields runs tshark over path and returns, per frame number, the
// compared fields. TFTP and RPC-over-RDMA heuristics are disabled: tshark
// takes RoCE from source port 69 for TFTP (hwnic capture), and RoCE is
// forced on the RoCE port as rocetrace does.
func runTSharkFields(t *testing.T, tshark, path string) map[int][]string {
	t.Helper()
	args := []string{"-n", "-r", path, "--disable-protocol", "tftp", "--disable-protocol", "rpcordma",
		"-d", "udp.port==4791,infiniband", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=l",
		"-e", "frame.number"}
	for _, f := range tsharkFields {
		args = append(args, "-e", f.tshark)
	}
	out, err := exec.Command(tshark, args...).Output()
	if err != nil {
		t.Fatalf("tshark on %s: %v", path, err)
	}
	rows := map[int][]string{}
	for line := range strings.SplitSeq(strings.TrimRight(string(out), "\n"), "\n") {
		cols := strings.Split(line, "\t")
		n, err := strconv.Atoi(cols[0])
		if err != nil {
			t.Fatalf("tshark line %q: %v", line, err)
		}
		rows[n] = cols[1:]
	}
	return rows
}

// normalize turns a tshark or JSON value into a comparable string: numbers
// (decimal or 0x hex) become decimal, booleans 1/0.
func normalize(s string) string {
	switch s {
	case "True", "true":
		return "1"
	case "False", "false":
		return "0"
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return strconv.FormatUint(v, 10)
	}
	return s
}

// diffAgainstTShark compares `rocetrace packets --json` with tshark for one
// capture and returns the counts.
func diffAgainstTShark(t *testing.T, tshark, path string) diffCounts {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"rocetrace", "packets", "--json", path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("rocetrace packets --json %s: exit %d: %s", path, code, stderr.String())
	}
	want := runTSharkFields(t, tshark, path)
	var c diffCounts
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&obj); err != nil {
			t.Fatalf("%s: bad JSON line %q: %v", path, sc.Text(), err)
		}
		c.frames++
		frame, _ := strconv.Atoi(string(obj["frame"].(json.Number)))
		row, ok := want[frame]
		if !ok {
			t.Errorf("%s frame %d: tshark has no such frame", filepath.Base(path), frame)
			continue
		}
		tsOpcode := row[0]
		ourOpcode := obj["opcode"]
		if (tsOpcode != "") != (ourOpcode != nil) {
			t.Errorf("%s frame %d: tshark opcode %q, rocetrace %v", filepath.Base(path), frame, tsOpcode, ourOpcode)
			continue
		}
		roce := ourOpcode != nil
		if roce {
			c.roceFrames++
		}
		op, _ := strconv.Atoi(normalize(tsOpcode))
		// tshark 4.0 does not know CNP (0x81) and does not parse XRCETH,
		// so it misplaces every extended header after it.
		// rocetrace decodes RD (RDETH, DETH) only as far as the BTH.
		skipExt := op == 0x81 || op>>5 == 5 || op>>5 == 2
		ipv6Src := row[fieldIndex("ipv6.src")]
		for i, f := range tsharkFields {
			ts := row[i]
			if f.ext && skipExt {
				continue
			}
			if ipv6Src != "" && strings.HasPrefix(f.tshark, "ip.") {
				// An IPv6 frame mirrored in IPv4 (ERSPAN): ip.* is the
				// outer mirror header, rocetrace reports the inner one.
				continue
			}
			name := f.ours
			if atomic := op&0x1F == 0x13 || op&0x1F == 0x14; atomic && strings.HasPrefix(name, "reth_") {
				// tshark files the AtomicETH VA and R_Key under its RETH fields.
				name = strings.Replace(name, "reth_", "atomic_", 1)
			}
			ours, present := obj[name]
			if !roce && obj["encap"] != nil && (ours == nil || !present) {
				// A PFC or PAUSE frame inside a tunnel: tshark's last IP
				// and UDP are the tunnel's, rocetrace describes the inner
				// frame, which has none.
				continue
			}
			if ts == "" {
				if !roce && f.ext {
					continue
				}
				// ip.* is empty on IPv6 frames and ipv6.* on IPv4 ones;
				// tshark leaves ports empty when it does not decode UDP.
				continue
			}
			c.fields++
			if !present || ours == nil {
				t.Errorf("%s frame %d: %s: tshark %q, rocetrace null", filepath.Base(path), frame, name, ts)
				continue
			}
			got := normalize(jsonString(ours))
			if got != normalize(ts) {
				t.Errorf("%s frame %d: %s: tshark %q, rocetrace %q", filepath.Base(path), frame, name, ts, got)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if c.frames != len(want) {
		t.Errorf("%s: rocetrace printed %d frames, tshark %d", filepath.Base(path), c.frames, len(want))
	}
	return c
}

func jsonString(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestTSharkDifferentialShared compares every frame of every shared real
// capture with tshark.
func TestTSharkDifferentialShared(t *testing.T) {
	tshark := testenv.TShark(t)
	files := testenv.SharedPcaps(t)
	var total diffCounts
	for _, f := range files {
		if strings.Contains(f, "erf") {
			continue // native InfiniBand over ERF: no Ethernet/UDP, rocetrace does not decode it
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := diffAgainstTShark(t, tshark, f)
			total.frames += c.frames
			total.roceFrames += c.roceFrames
			total.fields += c.fields
		})
	}
	t.Logf("differential vs tshark: %d files, %d frames, %d RoCE frames, %d field values compared",
		len(files)-1, total.frames, total.roceFrames, total.fields)
	if total.roceFrames == 0 {
		t.Fatal("no RoCE frame compared")
	}
}

// TestTSharkDifferentialAllOpcodes builds one frame of every defined
// opcode (RC, UC, UD, XRC, CNP), alternating IPv4 and IPv6 and with
// every extended header filled with distinct values, and compares with
// tshark.
func TestTSharkDifferentialAllOpcodes(t *testing.T) {
	tshark := testenv.TShark(t)
	c := &synth.Capture{}
	ts := int64(1767323045_000000000)
	for op := 0; op < 256; op++ {
		o := decode.Opcode(op)
		if !o.Defined() || o.Transport() == decode.TransportRD {
			// RD is not used over RoCE; rocetrace decodes it only as far as
			// the BTH, so the synthesizer cannot build a valid RD frame.
			continue
		}
		src, dst := synth.Host(1), synth.Host(2)
		if op%2 == 1 {
			src, dst = synth.Host6(1), synth.Host6(2)
		}
		r := &synth.RoCE{Src: src, Dst: dst, SrcPort: uint16(50000 + op), DSCP: 26, ECN: 2,
			BTH: decode.BTHFields{Opcode: o, PKey: 0x8000 | uint16(op), DestQP: 0x10000 | uint32(op),
				AckReq: op%3 == 0, PSN: 0xFFFF00 + uint32(op)},
			RETH:          decode.RETHFields{VA: 0x1122334455667700 + uint64(op), RKey: 0xA0000000 | uint32(op), DMALen: 4096 + uint32(op)},
			AETH:          decode.AETHFields{Syndrome: decode.Syndrome(op & 0x7F), MSN: 0x30000 + uint32(op)},
			DETH:          decode.DETHFields{QKey: 0x80010000 + uint32(op), SrcQP: 0x20000 + uint32(op)},
			AtomicETH:     decode.AtomicETHFields{VA: 0x99 + uint64(op), RKey: 0x77, SwapAdd: 0x1234_5678_9ABC_DEF0, Compare: uint64(op)},
			AtomicAckOrig: 0xFEDC_BA98_7654_3210 - uint64(op),
			Imm:           0xCAFE0000 | uint32(op), IETHRKey: 0xBEEF0000 | uint32(op), XRCSRQ: 0x40000 + uint32(op),
			Payload: op % 37,
		}
		c.AddRoCE(ts, r)
		ts += 1000
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	path := writeCapture(t, c, synth.PcapNanos)
	if os.Getenv("ROCETRACE_KEEP") != "" {
		_ = c.WriteFile(os.Getenv("ROCETRACE_KEEP"), synth.PcapNanos)
	}
	got := diffAgainstTShark(t, tshark, path)
	t.Logf("all opcodes: %d frames, %d RoCE, %d fields compared", got.frames, got.roceFrames, got.fields)
	if got.roceFrames != len(c.Frames) {
		t.Errorf("compared %d RoCE frames, built %d", got.roceFrames, len(c.Frames))
	}
}
