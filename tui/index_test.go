package tui

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
)

// The packet index gives back every frame's file, offset and number within
// its file, for records of one size, of random sizes, with gaps (frames
// left out by -R) and offsets past what it can hold; a view taken while
// loading is unchanged by what is added after it.
func TestIndexRoundTrip(t *testing.T) {
	type frame struct {
		file int
		off  int64
		num  uint64
	}
	cases := []struct {
		name   string
		nfiles int
		size   func(r *rand.Rand) int64 // the record's bytes (the step to the next)
	}{
		{"one size", 1, func(*rand.Rand) int64 { return 144 }},
		{"random sizes", 1, func(r *rand.Rand) int64 { return 16 + r.Int64N(9000) }},
		{"gaps", 1, func(r *rand.Rand) int64 { return 144 + 144*r.Int64N(3)*r.Int64N(2) }},
		{"huge records", 1, func(r *rand.Rand) int64 { return 1 + r.Int64N(1<<40) }},
		{"two files", 2, func(r *rand.Rand) int64 { return 16 + r.Int64N(200) }},
		{"seven files", 7, func(r *rand.Rand) int64 { return 16 + r.Int64N(9000) }},
		{"many files", 300, func(r *rand.Rand) int64 { return 144 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(tc.nfiles)))
			x := newPacketIndex(tc.nfiles)
			next := make([]int64, tc.nfiles)
			nums := make([]uint64, tc.nfiles)
			for f := range next {
				next[f] = 24 + rng.Int64N(1000)
			}
			var want []frame
			var early IndexView
			for i := range 20_000 {
				f := rng.IntN(tc.nfiles)
				if tc.nfiles > 2 && i%3 != 0 {
					f = (i / 100) % tc.nfiles // runs of one file, as a merge of files in time order
				}
				nums[f]++
				off := min(next[f], maxOffset)
				want = append(want, frame{f, off, nums[f]})
				x.add(f, next[f])
				next[f] += tc.size(rng)
				if i == 6_000 {
					early = x.view()
				}
			}
			check := func(v IndexView, want []frame) {
				t.Helper()
				if v.Len() != len(want) {
					t.Fatalf("Len %d, want %d", v.Len(), len(want))
				}
				for i, w := range want {
					if f, off := v.At(i); f != w.file || off != w.off {
						t.Fatalf("At(%d) = %d, %d; want %d, %d", i, f, off, w.file, w.off)
					}
					if n := v.Frame(i); n != w.num {
						t.Fatalf("Frame(%d) = %d, want %d", i, n, w.num)
					}
				}
			}
			check(x.view(), want)
			check(early, want[:6_001])
			// addBatch, in batches of random sizes, indexes as add does.
			xb := newPacketIndex(tc.nfiles)
			var ps []decode.Packet
			for _, w := range want {
				ps = append(ps, decode.Packet{File: w.file, Offset: w.off})
			}
			for len(ps) > 0 {
				k := min(len(ps), 1+rng.IntN(300))
				xb.addBatch(ps[:k])
				ps = ps[k:]
			}
			check(xb.view(), want)
		})
	}
}

// A FrameList gives back its positions (At, Positions) and finds the first
// at or after any position (Search) as a binary search of the slice does,
// for gaps of one byte, two, four and five as varints; a view is unchanged
// by later adds.
func TestFrameList(t *testing.T) {
	cases := []struct {
		name string
		n    int
		gap  func(r *rand.Rand) uint32
	}{
		{"empty", 0, nil},
		{"one", 1, func(*rand.Rand) uint32 { return 7 }},
		{"consecutive", 5000, func(*rand.Rand) uint32 { return 1 }},
		{"a flow among a thousand", 5000, func(r *rand.Rand) uint32 { return 1 + r.Uint32N(4000) }},
		{"repeated", 500, func(r *rand.Rand) uint32 { return r.Uint32N(2) }},
		{"wide gaps", 2000, func(r *rand.Rand) uint32 { return r.Uint32N(1 << 21) }},
		{"five-byte gaps", 3, func(*rand.Rand) uint32 { return 1<<31 - 5 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(tc.n)))
			var l FrameList
			var want []uint32
			var pos uint32
			var early FrameList
			for i := range tc.n {
				pos += tc.gap(rng)
				want = append(want, pos)
				l.add(pos)
				if i == tc.n/2 {
					early = l.view()
				}
			}
			v := l.view()
			if v.Len() != len(want) || !slices.Equal(v.Positions(), want) {
				t.Fatalf("Len %d, want %d; positions differ", v.Len(), len(want))
			}
			if !slices.Equal(FrameListOf(want).Positions(), want) {
				t.Fatal("FrameListOf differs")
			}
			if tc.n > 0 && !slices.Equal(early.Positions(), want[:tc.n/2+1]) {
				t.Fatal("a view changed after adds")
			}
			for i, w := range want {
				if got := v.At(i); got != w {
					t.Fatalf("At(%d) = %d, want %d", i, got, w)
				}
			}
			probes := []uint32{0, 1, 1<<32 - 1}
			for _, w := range want {
				probes = append(probes, w-1, w, w+1)
			}
			for _, p := range probes {
				wi, _ := slices.BinarySearch(want, p)
				if got := v.Search(p); got != wi {
					t.Fatalf("Search(%d) = %d, want %d", p, got, wi)
				}
			}
		})
	}
}

// Issue 16: the TUI holds at most 16 bytes per frame more than `rocetrace
// report` on a mirror-style capture (snaplen 128, 1000 QPs). Both hold the
// engine's flow table while loading and the report at the end; what the
// TUI holds besides is measured as live heap: the model with its final
// snapshot (packet index, flow and PFC frame lists, frame events,
// timelines, flow rates and marks) against the model with the snapshot's
// report alone. The 500,000 frames make the per-flow series (about 3 bytes
// a frame here, 1,500 bytes a flow) a part of what is counted.
func TestIndexBytesPerFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads a 500,000-frame capture")
	}
	const frames = 500_000
	path := filepath.Join(t.TempDir(), "bulk.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteBulk(f, synth.BulkConfig{Frames: frames, Snaplen: 128, Seed: 1})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	m, s := load(t, Config{Paths: []string{path}, Decode: decode.Config{RoCEPort: 4791}})
	n := int64(s.Index.Len())
	if n < frames || s.Report == nil {
		t.Fatalf("%d frames indexed", n)
	}
	withSnapshot := int64(testenv.LiveHeap())
	r, ids := s.Report, s.FlowIndex
	m.cur.Store(&Snapshot{})
	s = nil
	reportOnly := int64(testenv.LiveHeap())
	runtime.KeepAlive(r)
	runtime.KeepAlive(ids)

	perFrame := float64(withSnapshot-reportOnly) / float64(n)
	t.Logf("%d frames: %d bytes of live heap besides the report, %.2f a frame", n, withSnapshot-reportOnly, perFrame)
	if perFrame > 16 {
		t.Errorf("the TUI holds %.2f bytes a frame besides the report, want at most 16", perFrame)
	}
}

// A flow's frame list made from the frames' flow ids is the frames of that
// flow, for a snapshot taken before others extended the cached list (a
// prefix of it), after them (the list extended), across ids chunks and
// the change to 32-bit ids (a flow past 65,535 in the third chunk); more
// flows than the cache keeps are made again when asked.
func TestFlowListsFromIDs(t *testing.T) {
	const flowsN, big = 11, 70_000
	rng := rand.New(rand.NewPCG(9, 9))
	var ids frameFlows
	want := make(map[int][]uint32)
	var views []frameFlows
	for pos := range 3*idChunkLen + 123 {
		id := uint32(rng.IntN(flowsN + 1)) // 0: no flow
		if pos%1000 < 300 {
			id = 3 // runs of one flow
		}
		if pos > 2*idChunkLen+500 && pos%7 == 0 {
			id = big + 1
		}
		ids.add(id)
		if id > 0 {
			want[int(id)-1] = append(want[int(id)-1], uint32(pos))
		}
		if pos%50_000 == 0 || pos == 2*idChunkLen+499 {
			views = append(views, ids.view())
		}
	}
	views = append(views, ids.view())
	if !ids.wide || ids.chunks[1].u16 == nil || ids.chunks[3].u32 == nil {
		t.Fatal("ids not in 16-bit chunks, then 32-bit ones")
	}
	var c flowLists
	prefix := func(w []uint32, n int) []uint32 {
		i, _ := slices.BinarySearch(w, uint32(n))
		return w[:i]
	}
	// The newest first (the cache then holds more than older views), then
	// the oldest first, for every flow (more than the cache keeps).
	flowIDs := []int{big}
	for f := range flowsN {
		flowIDs = append(flowIDs, f)
	}
	for _, order := range [][]int{{len(views) - 1, 0, 2, len(views) - 2}, {0, 1, len(views) - 2, len(views) - 1}} {
		for _, f := range flowIDs {
			for _, vi := range order {
				v := views[vi]
				got := c.get(v, f)
				w := prefix(want[f], v.n)
				if got.Len() != len(w) || !slices.Equal(got.Positions(), w) {
					t.Fatalf("flow %d over %d frames: %d frames, want %d", f, v.n, got.Len(), len(w))
				}
				if len(w) > 0 && (got.At(len(w)-1) != w[len(w)-1] || got.Search(uint32(v.n)) != len(w)) {
					t.Fatalf("flow %d over %d frames: last %d, want %d", f, v.n, got.At(len(w)-1), w[len(w)-1])
				}
			}
		}
	}
}

// The per-flow sums (flowacc.go) give the same rates and latency maxima as
// adding every frame and sample to its flow's series at once: per flow
// bucket of the final grid, the bytes summed and the largest samples, for
// times mostly ascending with some going back, across widenings and
// publishes, with flows past maxFlowRates left out.
func TestFlowAccSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	type sample struct {
		flow  int
		ts, v int64
		what  int // 0 bytes, 1 ack latency, 2 read latency
	}
	var tl timelines
	var all []sample
	fl := testFlows(t, 5)
	ts := int64(1_000_000)
	for k := range 20_000 {
		ts += rng.Int64N(2_000)
		at := ts
		if k%97 == 0 {
			at = ts - rng.Int64N(100_000) // back in time, maybe before the origin
		}
		i := rng.IntN(len(fl))
		switch rng.IntN(4) {
		case 0:
			kind, what := flows.LatencyAck, 1
			if rng.IntN(2) == 0 {
				kind, what = flows.LatencyRead, 2
			}
			s := flows.LatencySample{Flow: fl[i], Kind: kind, RequestTsNs: at - 500 - rng.Int64N(9000), ResponseTsNs: at}
			tl.addLatency(&s)
			all = append(all, sample{i, at, s.LatencyNs(), what})
		default:
			n := 64 + rng.Int64N(1000)
			tl.addFlowAt(i, tl.bucket(at), n)
			all = append(all, sample{i, at, n, 0})
		}
		if k%3000 == 0 {
			tl.publishFlows(nil)
		}
	}
	tl.addFlowAt(maxFlowRates, tl.bucket(ts), 1) // left out
	rates := tl.publishFlows(nil)
	marks := tl.publishMarks(nil)
	if len(rates) != len(fl) {
		t.Fatalf("%d flow rates, want %d", len(rates), len(fl))
	}
	want := make([][3]FlowRate, len(fl)) // bytes, ack max, read max
	for _, s := range all {
		d := s.ts - tl.tl.OriginNs
		fb := 0
		if d >= 0 {
			fb = int(d/tl.tl.WidthNs) / flowBucketRatio
		}
		w := &want[s.flow]
		if s.what == 0 {
			w[0][fb] += s.v
		} else {
			w[s.what][fb] = max(w[s.what][fb], s.v)
		}
	}
	for i := range fl {
		if *rates[i] != want[i][0] || *marks[i].AckMaxNs != want[i][1] || *marks[i].ReadMaxNs != want[i][2] {
			t.Fatalf("flow %d: rates or latency maxima differ from the per-sample sums", i)
		}
	}
}

// testFlows returns n flows of a small synthesized capture, flow i with
// index i.
func testFlows(t *testing.T, n int) []*flows.Flow {
	t.Helper()
	path := filepath.Join(t.TempDir(), "few.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteBulk(f, synth.BulkConfig{Frames: 2000, QPs: n, Seed: 1})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	in := engine.Open([]string{path})
	defer in.Close()
	out := make([]*flows.Flow, n)
	e := engine.New(engine.Config{Decode: decode.Config{RoCEPort: 4791}})
	if err := e.Run(context.Background(), in, func(_ *decode.Packet, f *flows.Flow) error {
		if f != nil && f.Index() < n {
			out[f.Index()] = f
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, f := range out {
		if f == nil {
			t.Fatalf("no flow %d", i)
		}
	}
	return out
}
