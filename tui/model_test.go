package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// load runs a model to the end and returns it with its last snapshot.
func load(t testing.TB, cfg Config) (*Model, *Snapshot) {
	t.Helper()
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.Start(context.Background())
	<-m.Done()
	return m, m.Snapshot()
}

// writeBulk writes a synth.WriteBulk capture of cfg to dir/name and returns
// its path.
func writeBulk(t testing.TB, dir, name string, cfg synth.BulkConfig) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteBulk(f, cfg); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// reference analyses paths the way `rocetrace report` does.
func reference(t testing.TB, paths []string) analysis.Report {
	t.Helper()
	var readers []*pcapio.Reader
	for i, p := range paths {
		r, err := pcapio.OpenFile(p, i)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r)
	}
	mg := pcapio.NewMerger(readers)
	dec := decode.NewDecoder(decode.Config{})
	table := flows.NewTable(flows.Config{})
	var (
		c   analysis.Counter
		rec pcapio.Record
		p   decode.Packet
	)
	for {
		err := mg.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			continue
		}
		dec.DecodeRecord(&rec, &p)
		c.Observe(&p)
		table.Observe(&p)
	}
	return analysis.Build(table, c.Summary(paths), analysis.Options{})
}

// allScenarios writes every demo scenario and returns the paths.
func allScenarios(t testing.TB) []string {
	var paths []string
	for _, sc := range synth.Scenarios() {
		paths = append(paths, writeScenario(t, sc.Name, sc.Build(), sc.Format))
	}
	return paths
}

// The final snapshot holds the very report `rocetrace report` builds, and
// the model's own lists and counters agree with it.
func TestModelFinalSnapshot(t *testing.T) {
	paths := allScenarios(t)
	for _, set := range [][]string{paths[:1], paths[1:2], paths[2:3], paths[3:], paths} {
		_, s := load(t, Config{Paths: set})
		want := reference(t, set)
		if !s.Progress.Done || s.Progress.Canceled || len(s.Errors) != 0 {
			t.Fatalf("%v: progress %+v errors %v", set, s.Progress, s.Errors)
		}
		if !reflect.DeepEqual(*s.Report, want) {
			t.Fatalf("%v: the model's report differs from the reference", set)
		}
		r := s.Report
		if int64(s.Index.Len()) != r.Capture.Packets || s.ReportFrames != r.Capture.Packets {
			t.Fatalf("index %d frames, report %d", s.Index.Len(), r.Capture.Packets)
		}
		for i, f := range r.Flows {
			if got := int64(s.FlowFramesOf(i).Len()); got != f.Packets {
				t.Errorf("flow %s: %d frames listed, %d packets", f.ID, got, f.Packets)
			}
			if s.FlowIndex[f.ID] != i {
				t.Errorf("flow index of %s", f.ID)
			}
			var bytes int64
			for _, b := range s.FlowRate(i) {
				bytes += b
			}
			if bytes != f.Bytes {
				t.Errorf("flow %s: rate sums to %d bytes, report says %d", f.ID, bytes, f.Bytes)
			}
		}
		if got := int64(s.PFCFrames.Len()); got != r.Capture.PFCFrames+r.Capture.PauseFrames {
			t.Errorf("%d PFC frames listed, report %d", got, r.Capture.PFCFrames+r.Capture.PauseFrames)
		}
		sum := func(sr Series) (n int64) {
			for _, v := range s.Timeline.V[sr] {
				n += v
			}
			return n
		}
		var paused, problems int64
		for _, p := range r.PFC {
			paused += p.PausedNs
		}
		for _, e := range r.Events {
			switch e.Kind {
			case "psn_gap", "retransmission", "nak", "rnr_nak":
				problems++
			}
		}
		var ce int64
		for _, f := range r.Flows {
			ce += f.ECNCE
		}
		for _, c := range []struct {
			name      string
			got, want int64
		}{
			{"packets", sum(SeriesPackets), r.Capture.Packets},
			{"CNPs", sum(SeriesCNP), r.Capture.CNPPackets},
			{"CE", sum(SeriesCE), ce},
			{"paused", sum(SeriesPaused), paused},
			{"problems", sum(SeriesProblems), problems},
		} {
			if c.got != c.want {
				t.Errorf("%v: timeline %s sums to %d, want %d", set, c.name, c.got, c.want)
			}
		}
	}
}

// While loading, snapshots carry reports of the frames read so far, built
// from a clone of the table: each equals the reference analysis of that
// prefix of the capture, and the last one is the whole.
func TestModelProgressiveSnapshots(t *testing.T) {
	path := writeBulk(t, t.TempDir(), "bulk.pcap", synth.BulkConfig{Frames: 20000, QPs: 50, Seed: 7})
	m, err := Open(Config{Paths: []string{path}, publishFrames: 5000})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var seen []*Snapshot
	m.SetNotify(func() { seen = append(seen, m.Snapshot()) }) // called on the loader goroutine
	m.Start(context.Background())
	<-m.Done()
	var partial int
	for i, s := range seen {
		if i > 0 && s.Seq <= seen[i-1].Seq {
			t.Fatal("snapshot sequence does not grow")
		}
		if s.Report == nil || s.Progress.Done {
			continue
		}
		partial++
		if s.ReportFrames != s.Report.Capture.Packets || s.ReportFrames > int64(s.Index.Len()) {
			t.Fatalf("report of %d frames claims %d, index %d", s.ReportFrames, s.Report.Capture.Packets, s.Index.Len())
		}
		for i := range s.Report.Flows {
			if got := int64(s.FlowFramesOf(i).Len()); got < s.Report.Flows[i].Packets {
				t.Fatalf("flow %d: %d frames listed, the report of fewer frames has %d", i, got, s.Report.Flows[i].Packets)
			}
		}
	}
	if partial < 3 {
		t.Fatalf("%d partial reports, want at least 3", partial)
	}
	last := seen[len(seen)-1]
	if !last.Progress.Done || last.Report.Capture.Packets != int64(last.Index.Len()) {
		t.Fatalf("last snapshot: %+v", last.Progress)
	}
	// A partial report is the analysis of the frames read so far: cut the
	// capture there and compare.
	mid := seen[len(seen)/2]
	if mid.Report == nil || mid.Progress.Done {
		t.Fatal("no partial report in the middle")
	}
	cut := cutCapture(t, path, int(mid.ReportFrames))
	want := reference(t, []string{cut})
	got := *mid.Report
	got.Capture.Files = want.Capture.Files
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the report of the first %d frames differs from the analysis of those frames", mid.ReportFrames)
	}
}

// cutCapture writes the first n records of a pcap to a new file.
func cutCapture(t *testing.T, path string, n int) string {
	t.Helper()
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec pcapio.Record
	end := int64(len(data))
	for i := 0; i <= n; i++ {
		if err := r.Next(&rec); err != nil {
			break
		}
		if i == n {
			end = rec.Offset
		}
	}
	out := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(out, data[:end], 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// Cancelling stops loading early, without a final build.
func TestModelCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bulk.pcap")
	f, _ := os.Create(path)
	if _, err := synth.WriteBulk(f, synth.BulkConfig{Frames: 20000, QPs: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	m, err := Open(Config{Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Start(ctx)
	<-m.Done()
	s := m.Snapshot()
	if !s.Progress.Done || !s.Progress.Canceled || s.Progress.Frames > 2048 {
		t.Fatalf("cancelled load: %+v", s.Progress)
	}
}

// Files that cannot be opened are reported; damage too, with what was read
// before it kept.
func TestModelErrors(t *testing.T) {
	good := lossNAK(t)
	if _, err := Open(Config{Paths: []string{"/nonexistent.pcap"}}); err == nil {
		t.Fatal("no error when nothing can be opened")
	}
	data, _ := os.ReadFile(good)
	damaged := filepath.Join(t.TempDir(), "damaged.pcap")
	os.WriteFile(damaged, data[:len(data)-10], 0o644)
	_, s := load(t, Config{Paths: []string{"/nonexistent.pcap", damaged}})
	if len(s.Errors) != 2 {
		t.Fatalf("errors: %v", s.Errors)
	}
	var de *pcapio.DamageError
	if !errors.As(s.Errors[1], &de) {
		t.Fatalf("second error is not damage: %v", s.Errors[1])
	}
	if s.Report.Capture.Packets != 22 {
		t.Fatalf("%d frames before the damage, want 22", s.Report.Capture.Packets)
	}
}

// The pager reads every frame of a merged pcap + pcapng input back exactly
// as the sequential reader delivered it (pcapio.ReadRecordAt with the
// layouts the loader recorded).
func TestPagerReadsEveryFrame(t *testing.T) {
	paths := allScenarios(t)
	m, s := load(t, Config{Paths: paths})
	p := NewPager(m.readersAt(), paths, decode.Config{}, s.LinkBps, nil)
	var readers []*pcapio.Reader
	for i, path := range paths {
		r, err := pcapio.OpenFile(path, i)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r)
	}
	mg := pcapio.NewMerger(readers)
	var (
		want, got pcapio.Record
		pw, pg    decode.Packet
		buf       []byte
		err       error
	)
	dec := decode.NewDecoder(decode.Config{})
	for pos := 0; ; pos++ {
		if mg.Next(&want) != nil {
			if pos != s.Index.Len() {
				t.Fatalf("%d frames read back, index has %d", pos, s.Index.Len())
			}
			break
		}
		buf, err = p.read(s, pos, &got, &pg, buf)
		if err != nil {
			t.Fatalf("frame %d: %v", pos, err)
		}
		if !bytes.Equal(got.Data, want.Data) || got.TsNs != want.TsNs || got.Frame != want.Frame ||
			got.File != want.File || got.Offset != want.Offset || got.Len != want.Len || got.LinkType != want.LinkType {
			t.Fatalf("frame %d differs: got file %d frame %d off %d ts %d, want file %d frame %d off %d ts %d",
				pos, got.File, got.Frame, got.Offset, got.TsNs, want.File, want.Frame, want.Offset, want.TsNs)
		}
		dec.DecodeRecord(&want, &pw)
		if !reflect.DeepEqual(pg, pw) {
			t.Fatalf("frame %d decodes differently", pos)
		}
	}
}

// Frame numbers within files, for an index over several files, equal a
// plain count.
func TestIndexFrameNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nfiles := range []int{1, 2, 3, 7} {
		x := newPacketIndex(nfiles)
		counts := make([]uint64, nfiles)
		var want []uint64
		for i := range 5000 {
			f := rng.IntN(nfiles)
			counts[f]++
			want = append(want, counts[f])
			x.add(f, int64(i)*100)
		}
		v := x.view()
		for i, w := range want {
			if got := v.Frame(i); got != w {
				t.Fatalf("%d files: frame %d numbered %d, want %d", nfiles, i, got, w)
			}
			if f, off := v.At(i); off != int64(i)*100 || counts[f] == 0 {
				t.Fatalf("At(%d) = %d, %d", i, f, off)
			}
		}
	}
}

func TestTimelineWidens(t *testing.T) {
	var tl timelines
	const origin = 1_000_000_000
	var total int64
	for i := range 10000 {
		ts := origin + int64(i)*int64(i)*37 // ever wider gaps
		tl.add(SeriesPackets, ts, 1)
		tl.addFlow(i%3, ts, 10)
		total++
	}
	tl.addSpan(SeriesPaused, origin+5, origin+4_000_000_000)
	var n, paused, fb int64
	for b := range timelineBuckets {
		n += tl.tl.V[SeriesPackets][b]
		paused += tl.tl.V[SeriesPaused][b]
	}
	for _, f := range tl.flows {
		for _, v := range f {
			fb += v
		}
	}
	if n != total || paused != 4_000_000_000-5 || fb != 10*total {
		t.Fatalf("sums after widening: packets %d/%d paused %d flows %d", n, total, paused, fb)
	}
	last := origin + int64(9999)*9999*37
	if span := int64(tl.tl.Used) * tl.tl.WidthNs; span < 4_000_000_000 || span > 2*(4_000_000_000) {
		t.Fatalf("used span %d for data up to +%d", span, last-origin)
	}
	vals, w := tl.tl.Resample(SeriesPackets, 50)
	if len(vals) != 50 || w != tl.tl.WidthNs {
		t.Fatalf("resample: %d values, width %d", len(vals), w)
	}
}
