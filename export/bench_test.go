package export

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/stagebench"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// The benchmark capture: 1M frames on 1000 RC QPs, cut at snaplen 128 as a
// switch mirror would: 4 KiB WRITEs (PMTU 1024) each acknowledged, with CE
// marks answered by CNPs, a lost packet now and then, and PFC frames.
const benchFrames = 1_000_000

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

// benchCapture writes the benchmark capture once per process (~150 MB in
// the OS temp dir, removed by TestMain) and returns its path.
// ROCETRACE_BENCH_PCAP=FILE keeps it in FILE instead (written if missing,
// with ROCETRACE_BENCH_FRAMES frames if set; reused by later runs, whose
// measurements then carry no garbage from the generator).
func benchCapture(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("ROCETRACE_BENCH_PCAP"); p != "" {
		if _, err := os.Stat(p); err != nil {
			n := benchFrames
			if v, err := strconv.Atoi(os.Getenv("ROCETRACE_BENCH_FRAMES")); err == nil && v > 0 {
				n = v
			}
			if err := writeBenchCapture(p, n); err != nil {
				b.Fatal(err)
			}
		}
		return p
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rocetrace-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, "bench1m.pcap")
		benchErr = writeBenchCapture(benchPath, benchFrames)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchPath != "" {
		_ = os.RemoveAll(filepath.Dir(benchPath))
	}
	os.Exit(code)
}

// writeBenchCapture streams n synthesized frames to path in chunks, so the
// generator's memory stays small.
func writeBenchCapture(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	const snap = 128
	_, _ = w.Write(pcapio.AppendPcapHeader(nil, pcapio.PcapHeader{Nanos: true, Snaplen: snap, LinkType: pcapio.LinkTypeEthernet}))
	c := &synth.Capture{Snaplen: snap}
	const qps = 1000
	conns := make([]*synth.Conn, qps)
	for i := range conns {
		a, bh := synth.Host(uint8(1+i%50)), synth.Host(uint8(101+i%50))
		conns[i] = synth.NewConn(c, a, bh, uint32(0x1000+i), uint32(0x8000+i), uint32(i*7), uint32(i*11))
	}
	sw := [6]byte{0x02, 0x5a, 0, 0, 0, 1}
	ts := int64(1767323045_000000000)
	written := 0
	var rec []byte
	for msg := 0; written < n; msg++ {
		conn := conns[msg%qps]
		ce := msg%97 == 0
		conn.SetECN(synth.A, map[bool]uint8{true: 3, false: 2}[ce])
		if msg%1009 == 0 {
			conn.Lose(synth.A, 1)
		}
		end, psns := conn.Write(synth.A, ts, 100, 4096)
		conn.Ack(synth.B, end+50, psns[len(psns)-1])
		if ce {
			conn.CNP(synth.B, end+80, nil)
		}
		if msg%5000 == 0 {
			c.Add(end+90, synth.PFC(sw, 1<<3, [8]uint16{3: 1000}))
		}
		ts = end + 100
		if len(c.Frames) >= 10_000 || written+len(c.Frames) >= n {
			if err := c.Err(); err != nil {
				return err
			}
			c.Sort()
			for _, fr := range c.Frames {
				if written == n {
					break
				}
				rec = pcapio.AppendPcapRecord(rec[:0], true, fr.TsNs, fr.Data, fr.Len)
				if _, err := w.Write(rec); err != nil {
					return err
				}
				written++
			}
			c.Frames = c.Frames[:0]
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// benchResult is what one pass over the benchmark capture measured.
type benchResult struct {
	frames, rows, size int64
	peakHeap           uint64 // largest HeapInuse sampled every 128k frames
}

// benchRun reads, decodes and analyses the capture at path; with dir set it
// exports to dir.
func benchRun(b *testing.B, path, dir string) benchResult {
	b.Helper()
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	dec := decode.NewDecoder(decode.Config{RoCEPort: decode.DefaultRoCEPort})
	table := flows.NewTable(flows.Config{})
	var (
		counter analysis.Counter
		p       decode.Packet
		rec     pcapio.Record
		e       *Export
		res     benchResult
		ms      runtime.MemStats
	)
	if dir != "" {
		if e, err = Create(FilePaths(dir), []string{path}, Options{Force: true}); err != nil {
			b.Fatal(err)
		}
		defer e.Abort()
	}
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if res.frames++; res.frames&(1<<17-1) == 0 {
			runtime.ReadMemStats(&ms)
			res.peakHeap = max(res.peakHeap, ms.HeapInuse)
		}
		dec.DecodeRecord(&rec, &p)
		counter.Observe(&p)
		table.Observe(&p)
		if e != nil {
			var f *flows.Flow
			if p.IsRoCE() {
				f = table.FlowOf(&p)
			}
			if err := e.Packet(&p, f); err != nil {
				b.Fatal(err)
			}
		}
	}
	rep := analysis.Build(table, counter.Summary([]string{path}), analysis.Options{})
	if e == nil {
		return res
	}
	ws, err := e.Finish(context.Background(), &rep)
	if err != nil {
		b.Fatal(err)
	}
	res.rows, res.size = ws[0].Rows, ws[0].Bytes
	return res
}

// BenchmarkExport1M measures the whole export of the 1M-frame capture
// (read, decode, flows, four tables written) against the same pass without
// the export. Metrics: rows/s (wall), CPU ns per row (user+system, which a
// busy shared machine does not distort), packets.parquet bytes per packet
// row, allocations per row and the peak heap in use.
//
//	go test ./export -run '^$' -bench Export1M -benchtime 3x
func BenchmarkExport1M(b *testing.B) {
	path := benchCapture(b)
	for _, export := range []bool{false, true} {
		name := "analyse-only"
		if export {
			name = "export"
		}
		b.Run(name, func(b *testing.B) {
			dir := ""
			if export {
				dir = b.TempDir()
			}
			var res benchResult
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := time.Duration(stagebench.CPUNs())
			for b.Loop() {
				res = benchRun(b, path, dir)
			}
			cpu := time.Duration(stagebench.CPUNs()) - cpu0
			runtime.ReadMemStats(&ms1)
			n := float64(res.frames) * float64(b.N)
			if export {
				n = float64(res.rows) * float64(b.N)
				b.ReportMetric(float64(res.size)/float64(res.rows), "B/row")
			}
			b.ReportMetric(n/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/row")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/row")
			b.ReportMetric(float64(res.peakHeap)/(1<<20), "peak-heap-MiB")
		})
	}
}

// BenchmarkPacketRow measures the export of one packet row alone (fill the
// page set, encode, compress and write on the worker), cycling over decoded
// frames of the benchmark's kind; one op is one row. Metrics: ns/row (wall,
// until the file is complete), cpu-ns/row (both goroutines), allocs/row.
//
//	go test ./export -run '^$' -bench PacketRow
func BenchmarkPacketRow(b *testing.B) {
	dir := b.TempDir()
	c := &synth.Capture{Snaplen: 128}
	for q := range 100 {
		conn := synth.NewConn(c, synth.Host(1), synth.Host(2), uint32(0x100+q), uint32(0x200+q), 0, 0)
		conn.Write(synth.A, int64(q)*1000, 10, 4096)
	}
	c.Sort()
	d := decodeCapture(b, c)
	e, err := Create(FilePaths(dir), []string{"bench.pcap"}, Options{Force: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Abort()
	b.ReportAllocs()
	i := 0
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := time.Duration(stagebench.CPUNs())
	for b.Loop() {
		if err := e.Packet(&d.packets[i], d.flows[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(d.packets) {
			i = 0
		}
	}
	// The rows still in flight are part of the cost: complete the file.
	if err := e.pw.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	n := float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/row")
	b.ReportMetric(float64((time.Duration(stagebench.CPUNs())-cpu0).Nanoseconds())/n, "cpu-ns/row")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/row")
}
