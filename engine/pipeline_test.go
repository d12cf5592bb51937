package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// BenchmarkPipelineFile runs the whole `report --json` path (analyse and
// WriteJSON) over the capture named by $ROCETRACE_BENCH_FILE, e.g. one made
// by bench/gen.sh; it is skipped when the variable is unset. Use it for
// profiles of real-size captures:
//
//	ROCETRACE_BENCH_FILE=/tmp/rocetrace-bench/bulk-10m-128.pcap go test -run '^$' \
//	    -bench PipelineFile -benchtime 1x -cpuprofile cpu.out ./cmd/rocetrace
func BenchmarkPipelineFile(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var frames int64
	for b.Loop() {
		in := Open([]string{path})
		rep, err := analyse(context.Background(), in, testCfg)
		in.Close()
		if err != nil || in.Failed() {
			b.Fatalf("analyse: %v %v", err, in.Errors())
		}
		var out bytes.Buffer
		if err := analysis.WriteJSON(&out, rep, true); err != nil {
			b.Fatal(err)
		}
		frames = rep.Capture.Packets
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
}

// benchFile returns the capture named by $ROCETRACE_BENCH_FILE, the file
// benchmarks' input, or skips b when the variable is unset.
func benchFile(b *testing.B) string {
	b.Helper()
	path := os.Getenv("ROCETRACE_BENCH_FILE")
	if path == "" {
		b.Skip("ROCETRACE_BENCH_FILE not set")
	}
	return path
}

// analyse is what `rocetrace report` runs: an Engine over the pipeline.
func analyse(ctx context.Context, in *Inputs, cfg Config) (analysis.Report, error) {
	e := New(cfg)
	err := e.Run(ctx, in, nil)
	return e.Report(e.Summary(in.Names()), analysis.Options{}), err
}

// analyseSerial is analyse as one loop on one goroutine, written out
// without the engine: the reference the pipeline must match.
func analyseSerial(ctx context.Context, in *Inputs, cfg Config) (analysis.Report, error) {
	dec := decode.NewDecoder(cfg.Decode)
	table := flows.NewTable(cfg.Flows)
	var (
		counter analysis.Counter
		p       decode.Packet
	)
	err := in.Each(ctx, func(rec *pcapio.Record) error {
		dec.DecodeRecord(rec, &p)
		counter.Observe(&p)
		table.Observe(&p)
		return nil
	})
	return analysis.Build(table, counter.Summary(in.Names()), analysis.Options{}), err
}

// corruptPcap flips one byte in every 5th record of a pcap file: in the
// payload of big frames, in the ICRC of small ones, so that both have bad
// ICRCs.
func corruptPcap(b []byte) {
	off := 24
	for i := 0; off+16 <= len(b); i++ {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		rec := b[off+16 : off+16+n]
		if i%5 == 0 && n > 60 {
			if n > 512 {
				rec[256] ^= 0x5A
			} else {
				rec[n-5] ^= 0x01
			}
		}
		off += 16 + n
	}
}

// The two-goroutine pipeline gives the report and the input errors a single
// loop gives: whole and cut frames, bad ICRCs, two files merged, and a
// damaged end.
func TestPipelineMatchesSerial(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	// OpenFileMapped maps both (over 4 MiB each); the second's PMTU of 256
	// (snaplen 512) and the first's whole frames make IP packets over
	// deferICRCMin, whose ICRCs the consumer checks in the mapping.
	for i, snap := range []int{0, 512} {
		var buf bytes.Buffer
		cfg := synth.BulkConfig{Frames: 40_000, QPs: 200, Snaplen: snap, Seed: uint64(3 + i)}
		if snap == 512 {
			cfg.PMTU = 256
		}
		if _, err := synth.WriteBulk(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		corruptPcap(data)
		if i == 1 {
			data = data[:len(data)-7] // a record cut short: damage
		}
		p := filepath.Join(dir, filepath.Base(t.Name())+string(rune('a'+i))+".pcap")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	type analyser func(context.Context, *Inputs, Config) (analysis.Report, error)
	runs := []struct {
		name   string
		run    analyser
		mapped bool
	}{
		{"serial loop, buffered reading", analyseSerial, false},
		{"pipeline, mapped files", analyse, true},
		{"pipeline, buffered reading", analyse, false},
	}
	for _, files := range [][]string{paths[:1], paths[1:], paths} {
		var out [3]bytes.Buffer
		var errs [3][]error
		for k, r := range runs {
			open := pcapio.OpenFile
			if r.mapped {
				open = pcapio.OpenFileMapped
			}
			in := OpenWith(files, open)
			if in.Mapped() != r.mapped {
				t.Fatalf("%s: %v mapped: %v", r.name, files, in.Mapped())
			}
			rep, err := r.run(context.Background(), in, testCfg)
			in.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := analysis.WriteJSON(&out[k], rep, true); err != nil {
				t.Fatal(err)
			}
			errs[k] = in.Errors()
		}
		for k := 1; k < len(runs); k++ {
			if !bytes.Equal(out[k].Bytes(), out[0].Bytes()) {
				t.Errorf("%v: the report of the %s differs from the %s's", files, runs[k].name, runs[0].name)
			}
			if len(errs[k]) != len(errs[0]) {
				t.Errorf("%v: %s: errors %v, serial %v", files, runs[k].name, errs[k], errs[0])
			}
			for i := range min(len(errs[0]), len(errs[k])) {
				if errs[0][i].Error() != errs[k][i].Error() {
					t.Errorf("%v: %s: error %v, serial %v", files, runs[k].name, errs[k][i], errs[0][i])
				}
			}
		}
		if bytes.Contains(out[0].Bytes(), []byte(`"icrc_bad": 0,`)) {
			t.Errorf("%v: no bad ICRC in the test capture", files)
		}
		if (files[len(files)-1] == paths[1]) != (len(errs[0]) == 1) {
			t.Errorf("%v: errors %v, want the damage of %s", files, errs[0], paths[1])
		}
	}
}

// TestMappedFileShrinksOneError: a mapped file cut short while it is
// analysed faults on both goroutines, the producer on the next record's
// header and the consumer in the ICRC of a record whose headers were
// whole; the inputs record one error, at the first record not fully read,
// and the records before it are analysed.
func TestMappedFileShrinksOneError(t *testing.T) {
	// WRITE Only frames of 14+20+8+12+16+240+4 = 314 bytes, records of
	// 16+314 = 330 bytes from offset 24: 12800 of them make 4.2 MB, mapped
	// (snaplen 512). A cut at 8192 (two pages) falls inside record 24
	// (7944..8274): its headers end at 7944+16+86 = 8046, its ICRC, checked
	// by the consumer (the first batch's checks are left to it), is past
	// the cut; the producer then faults on record 25's header at 8274.
	const n, cut, want = 12800, 8192, 7944
	c := &synth.Capture{Snaplen: 512}
	r := &synth.RoCE{Src: synth.Host(1), Dst: synth.Host(2), SrcPort: 50000, Payload: 240,
		BTH:  decode.BTHFields{Opcode: decode.Opcode(decode.OpWriteOnly), PKey: 0xFFFF, DestQP: 0x11},
		RETH: decode.RETHFields{VA: 0x1000, RKey: 1, DMALen: 240}}
	for i := range n {
		r.BTH.PSN = uint32(i)
		c.AddRoCE(int64(1+i)*1000, r)
	}
	path := filepath.Join(t.TempDir(), "shrinks.pcap")
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	in := Open([]string{path})
	defer in.Close()
	if !in.Mapped() {
		t.Skip("the file is not mapped here")
	}
	if err := os.Truncate(path, cut); err != nil {
		t.Fatal(err)
	}
	rep, err := analyse(context.Background(), in, testCfg)
	if err != nil {
		t.Fatal(err)
	}
	errs := in.Errors()
	wantErr := path + ": damaged record at byte offset 7944: " + pcapio.ReasonShrank
	if len(errs) != 1 || errs[0].Error() != wantErr {
		t.Fatalf("errors %q, want one: %q", errs, wantErr)
	}
	var de *pcapio.DamageError
	if !errors.As(errs[0], &de) || de.Offset != want {
		t.Errorf("damage %v, want a *DamageError at %d", errs[0], want)
	}
	if rep.Capture.Packets != 24 { // records 0..23
		t.Errorf("%d packets analysed, want 24", rep.Capture.Packets)
	}
}
