package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

var testCfg = Config{Decode: decode.Config{RoCEPort: 4791}, Flows: flows.Config{LinkSpeedBps: 100e9}}

// writeBulk writes a synthesized bulk capture and returns its path.
func writeBulk(t testing.TB, dir, name string, cfg synth.BulkConfig) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := synth.WriteBulk(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportJSON runs an engine over paths and returns its report as JSON.
func reportJSON(t testing.TB, cfg Config, paths []string, obs Observer) ([]byte, *Engine, error) {
	t.Helper()
	in := Open(paths)
	defer in.Close()
	e := New(cfg)
	err := e.Run(context.Background(), in, obs)
	var out bytes.Buffer
	if werr := analysis.WriteJSON(&out, e.Report(e.Summary(in.Names()), analysis.Options{}), true); werr != nil {
		t.Fatal(werr)
	}
	return out.Bytes(), e, err
}

// Engines share nothing: two running side by side on their own goroutines
// (one per capture point) give the reports each gives alone. Run with
// -race, this also checks that they touch no common state.
func TestEnginesSideBySide(t *testing.T) {
	dir := t.TempDir()
	a := writeBulk(t, dir, "a.pcap", synth.BulkConfig{Frames: 20_000, QPs: 50, Seed: 1})
	b := writeBulk(t, dir, "b.pcap", synth.BulkConfig{Frames: 20_000, QPs: 70, Seed: 2, Snaplen: 128})
	wantA, _, _ := reportJSON(t, testCfg, []string{a}, nil)
	wantB, _, _ := reportJSON(t, testCfg, []string{b}, nil)
	if bytes.Equal(wantA, wantB) {
		t.Fatal("the two test captures give the same report")
	}
	var gotA, gotB []byte
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); gotA, _, _ = reportJSON(t, testCfg, []string{a}, nil) }()
	go func() { defer wg.Done(); gotB, _, _ = reportJSON(t, testCfg, []string{b}, nil) }()
	wg.Wait()
	if !bytes.Equal(gotA, wantA) || !bytes.Equal(gotB, wantB) {
		t.Error("engines side by side give other reports than alone")
	}
}

// The read filter drops frames before they are counted or observed: keeping
// only the CNPs leaves a report whose every packet is a CNP, and the
// observer sees exactly the kept frames.
func TestKeepFilter(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 20_000, QPs: 20, Seed: 4})
	_, all, _ := reportJSON(t, testCfg, []string{p}, nil)
	total := all.Summary(nil)
	cfg := testCfg
	cfg.Keep = func(p *decode.Packet) bool { return p.Kind == decode.KindCNP }
	var seen int64
	_, e, err := reportJSON(t, cfg, []string{p}, func(p *decode.Packet, f *flows.Flow) error {
		if p.Kind != decode.KindCNP || f == nil {
			t.Fatalf("observer got a %v frame (flow %v)", p.Kind, f)
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Summary: packets counts every frame read, filtered_out the dropped
	// ones, the other counters the kept frames only (Frames()).
	s := e.Summary(nil)
	if total.CNPPackets == 0 || e.Frames() != total.CNPPackets || s.CNPPackets != total.CNPPackets || seen != e.Frames() {
		t.Errorf("kept %d frames (%d CNPs, %d observed), want the %d CNPs", e.Frames(), s.CNPPackets, seen, total.CNPPackets)
	}
	if s.Packets != total.Packets || s.FilteredOut != total.Packets-total.CNPPackets || s.RoCEPackets != total.CNPPackets {
		t.Errorf("summary packets %d, filtered_out %d, roce %d; want %d, %d, %d", s.Packets, s.FilteredOut, s.RoCEPackets,
			total.Packets, total.Packets-total.CNPPackets, total.CNPPackets)
	}
	if e.Filtered() != total.Packets-total.CNPPackets {
		t.Errorf("Filtered() = %d, want %d", e.Filtered(), total.Packets-total.CNPPackets)
	}
}

// An observer's error stops the reading early and is returned; the frames
// decoded before the stop are still counted.
func TestObserverErrorStops(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 100_000, QPs: 20, Seed: 5})
	boom := errors.New("boom")
	var calls int
	_, e, err := reportJSON(t, testCfg, []string{p}, func(*decode.Packet, *flows.Flow) error {
		if calls++; calls == 1000 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Fatalf("Run returned %v, want the observer's error", err)
	}
	if calls != 1000 {
		t.Errorf("observer called %d times, want 1000 (none after its error)", calls)
	}
	if n := e.Frames(); n < 1000 || n >= 100_000 {
		t.Errorf("%d frames counted: want the reading stopped early, after the 1000th", n)
	}
}

// A cancelled context stops the pipeline with the context's error.
func TestRunCancelled(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 5000, QPs: 10, Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := Open([]string{p})
	defer in.Close()
	if err := New(testCfg).Run(ctx, in, nil); err != context.Canceled {
		t.Fatalf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

// Missing and damaged files are recorded, the rest is read; WriteErrors
// prints them and says the run failed.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeBulk(t, dir, "good.pcap", synth.BulkConfig{Frames: 1000, QPs: 5, Seed: 1})
	data, _ := os.ReadFile(good)
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	in := Open([]string{filepath.Join(dir, "missing.pcap"), good, cut})
	defer in.Close()
	if in.Opened() != 2 {
		t.Fatalf("%d files opened, want 2", in.Opened())
	}
	e := New(testCfg)
	if err := e.Run(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	_, alone, _ := reportJSON(t, testCfg, []string{good}, nil)
	if n, want := e.Frames(), 2*alone.Frames()-1; n != want { // the cut file loses its last record
		t.Errorf("%d frames analysed, want %d", n, want)
	}
	var msg bytes.Buffer
	if !in.WriteErrors(&msg) {
		t.Error("WriteErrors: not failed")
	}
	for _, want := range []string{"missing.pcap", "cut.pcap: damaged record at byte offset"} {
		if !bytes.Contains(msg.Bytes(), []byte(want)) {
			t.Errorf("errors %q do not name %q", msg.String(), want)
		}
	}
}

// TrackLayouts records one layout for a pcap file, at its first record.
func TestTrackLayouts(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 100, QPs: 2, Seed: 1})
	in := OpenWith([]string{p}, pcapio.OpenFile)
	defer in.Close()
	in.TrackLayouts()
	if err := New(testCfg).Run(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	l := in.Layouts()
	if len(l) != 1 || len(l[0]) != 1 || l[0][0].Off != 24 {
		t.Fatalf("layouts %+v, want one at offset 24", l)
	}
	// The record read again with the tracked layout is the file's first.
	r, err := pcapio.OpenFile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var first, rec pcapio.Record
	if err := r.Next(&first); err != nil {
		t.Fatal(err)
	}
	_, err = pcapio.ReadRecordAt(mustOpen(t, p), l[0][0].Layout, 24, &rec, nil)
	if err != nil {
		t.Fatalf("ReadRecordAt with the tracked layout: %v", err)
	}
	if rec.TsNs != first.TsNs || rec.CapLen != first.CapLen || !bytes.Equal(rec.Data, first.Data) {
		t.Fatalf("record read again: ts %d caplen %d, want the first record's ts %d caplen %d", rec.TsNs, rec.CapLen, first.TsNs, first.CapLen)
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// sliceSource yields the records of a pcap file's bytes, then io.EOF.
type sliceSource struct{ r *pcapio.Reader }

func (s sliceSource) Next(rec *pcapio.Record) error { return s.r.Next(rec) }

// RunLive analyses a source one record at a time like Run, honours the
// limit, and stops before analysing a record its Tap refuses.
func TestRunLive(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 3000, QPs: 10, Seed: 7})
	want, _, _ := reportJSON(t, testCfg, []string{p}, nil)
	live := func(opts Live) (*Engine, error) {
		r, err := pcapio.OpenFile(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		e := New(testCfg)
		return e, e.RunLive(sliceSource{r}, opts, nil)
	}
	e, err := live(Live{Lock: &sync.Mutex{}})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := analysis.WriteJSON(&got, e.Report(e.Summary([]string{p}), analysis.Options{}), true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Error("RunLive's report differs from Run's")
	}
	if e, err = live(Live{Limit: 100}); err != nil || e.Frames() != 100 {
		t.Errorf("Limit 100: %d frames, %v", e.Frames(), err)
	}
	full := errors.New("disk full")
	var tapped int
	e, err = live(Live{Tap: func(*pcapio.Record) error {
		if tapped++; tapped == 50 {
			return full
		}
		return nil
	}})
	if err != full || e.Frames() != 49 {
		t.Errorf("Tap failing at the 50th record: %d frames analysed, %v; want 49 and its error", e.Frames(), err)
	}
}

// NoFlows counts every frame as usual but leaves the flow table empty and
// gives observers no flow.
func TestNoFlows(t *testing.T) {
	p := writeBulk(t, t.TempDir(), "a.pcap", synth.BulkConfig{Frames: 5000, QPs: 10, Seed: 3})
	_, all, _ := reportJSON(t, testCfg, []string{p}, nil)
	cfg := testCfg
	cfg.NoFlows = true
	_, e, err := reportJSON(t, cfg, []string{p}, func(_ *decode.Packet, f *flows.Flow) error {
		if f != nil {
			t.Fatal("NoFlows: an observer got a flow")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Summary(nil), all.Summary(nil); got.Packets != want.Packets || got.RoCEPackets != want.RoCEPackets || got.CNPPackets != want.CNPPackets {
		t.Errorf("NoFlows counts %+v, want %+v", got, want)
	}
	if n := len(e.Table().Flows()); n != 0 || len(all.Table().Flows()) == 0 {
		t.Errorf("NoFlows: %d flows in the table (%d without)", n, len(all.Table().Flows()))
	}
}
