package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// SchemaVersion is stored in every file's footer metadata under
// "rocetrace.schema_version". It changes only if a column changes meaning.
const SchemaVersion = "1"

// MetadataCapture is the footer metadata key of packets.parquet that holds
// the report's "capture" object (every counter, the frames without a row
// included) as JSON.
const MetadataCapture = "rocetrace.capture"

// Table names, as in the file and partition directory names.
const (
	TablePackets = "packets"
	TableFlows   = "flows"
	TableEvents  = "events"
	TablePFC     = "pfc"
)

// Tables lists the tables in the order they are written.
var Tables = []string{TablePackets, TableFlows, TableEvents, TablePFC, TableLatency, TableRates}

// Paths are the output files of one export, one per table.
type Paths struct {
	Packets, Flows, Events, PFC string
	// Points and Hops, with capture points (WithPoints): written when set.
	Points, Hops string
	Latency      string // latency.parquet (issue 13)
	Rates        string // rates.parquet (rates.go)
}

// List returns the paths in table order.
func (p Paths) List() []string {
	l := []string{p.Packets, p.Flows, p.Events, p.PFC, p.Latency, p.Rates}
	if p.Points != "" {
		l = append(l, p.Points, p.Hops)
	}
	return l
}

// FilePaths returns the contract's layout: DIR/packets.parquet,
// DIR/flows.parquet, DIR/events.parquet, DIR/pfc.parquet and
// DIR/latency.parquet and DIR/rates.parquet.
func FilePaths(dir string) Paths {
	f := func(t string) string { return filepath.Join(dir, t+".parquet") }
	return Paths{Packets: f(TablePackets), Flows: f(TableFlows), Events: f(TableEvents), PFC: f(TablePFC), Latency: f(TableLatency), Rates: f(TableRates)}
}

// PartitionPaths returns the hive-style layout for one capture:
// DIR/<table>/capture=<value>/part-0.parquet, where value is the capture's
// base name escaped by PartitionValue. Many captures exported into one DIR
// (in parallel, by one process or many) form one dataset per table.
func PartitionPaths(dir, capture string) Paths {
	v := "capture=" + PartitionValue(filepath.Base(capture))
	f := func(t string) string { return filepath.Join(dir, t, v, "part-0.parquet") }
	return Paths{Packets: f(TablePackets), Flows: f(TableFlows), Events: f(TableEvents), PFC: f(TablePFC), Latency: f(TableLatency), Rates: f(TableRates)}
}

// PartitionValue escapes a partition value the way Hive and Spark do
// (%XX for control characters and "#%'*/:=?\^{[]\x7f), so that readers
// decode it back to the original name.
func PartitionValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\^{[]", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	return b.String()
}

// Options configures an export.
type Options struct {
	Compression  string // none, snappy, gzip, zstd (default) or lz4
	RowGroupRows int64  // rows per row group; 0 = DefaultRowGroupRows
	Force        bool   // replace existing files

	temps *tempSet // set by Create: the export's temporary files (file.go)
}

// Written describes one complete output file.
type Written struct {
	Table string
	Path  string
	Rows  int64
	Bytes int64
}

// Export writes the five tables of one analysis. packets.parquet is written
// as frames arrive (Packet), rates.parquet as the flow table closes rate
// windows (Rate); the other three come from the report at the end
// (Finish). Every file is written under a temporary name and renamed only
// when all five are complete, so readers never see a partial file. An
// Export is used from one goroutine (but for RemoveTemps).
type Export struct {
	paths Paths
	opts  Options
	files []string

	pkt     *atomicFile
	pw      *packetWriter
	temps   []*atomicFile
	openErr error // the first small table that could not be created
	pktDone bool  // FinishPackets was called
	pktErr  error // and returned this

	lat   *latencyTable // latency.parquet, streamed (Latency); nil once in temps
	rates *rateTable    // rates.parquet, written as windows close (Rate)
}

// Create checks that no output file exists (unless opts.Force) and opens
// packets.parquet for writing. files are the capture names, indexed by
// decode.Packet.File, as they appear in the file column.
func Create(paths Paths, files []string, opts Options) (*Export, error) {
	if _, err := Codec(opts.Compression); err != nil {
		return nil, err
	}
	if err := CheckFree(paths, opts.Force); err != nil {
		return nil, err
	}
	opts.temps = &tempSet{}
	e := &Export{paths: paths, opts: opts, files: files}
	af, err := createAtomic(paths.Packets, opts)
	if err != nil {
		return nil, err
	}
	e.temps = append(e.temps, af)
	w, err := newPacketWriter(af, writerOptions(TablePackets, opts))
	if err != nil {
		af.abort()
		return nil, err
	}
	e.pkt, e.pw = af, w
	if e.lat, err = openLatency(paths.Latency, opts); err != nil {
		e.Abort()
		return nil, err
	}
	if e.rates, err = openRates(paths.Rates, opts); err != nil {
		e.Abort()
		return nil, err
	}
	return e, nil
}

func writerOptions(table string, opts Options) WriterOptions {
	return WriterOptions{
		Compression:  opts.Compression,
		RowGroupRows: opts.RowGroupRows,
		Metadata: map[string]string{
			"rocetrace.table":          table,
			"rocetrace.schema_version": SchemaVersion,
		},
	}
}

// openTable creates the temporary file and writer of one table.
func openTable[T any](path, table string, opts Options) (*atomicFile, *Writer[T], error) {
	af, err := createAtomic(path, opts)
	if err != nil {
		return nil, nil, err
	}
	wo := writerOptions(table, opts)
	if c := strings.ToLower(opts.Compression); c == "" || c == "zstd" {
		// The small-window encoder (smallZstd): parquet-go's default
		// one holds a 16 MiB history buffer, which these tables, written
		// once the report is built, added to the export's peak memory.
		if wo.Codec, err = newSmallZstd(); err != nil {
			af.abort()
			return nil, nil, err
		}
	}
	w, err := NewWriter[T](af, wo)
	if err != nil {
		af.abort()
		return nil, nil, err
	}
	return af, w, nil
}

// Packet adds one frame to packets.parquet if it is a RoCE, CNP, PFC or
// PAUSE frame (see Wanted); f is its flow (nil for none), whose id fills the
// flow column. It does not keep p.
func (e *Export) Packet(p *decode.Packet, f *flows.Flow) error { return e.PacketEvents(p, f, 0) }

// PacketEvents is Packet with the events the frame shows (the `events`
// column; flows.Table.FrameEvents after the frame was observed).
func (e *Export) PacketEvents(p *decode.Packet, f *flows.Flow, ev flows.EventMask) error {
	if !Wanted(p) {
		return nil
	}
	var file string
	if p.File >= 0 && p.File < len(e.files) {
		file = e.files[p.File]
	}
	return e.pw.addFlow(p, file, f, ev)
}

// PacketRows returns the number of packet rows so far.
func (e *Export) PacketRows() int64 { return e.pw.Rows() }

// FinishPackets completes packets.parquet (not yet renamed into place),
// with c, the report's "capture" object, in its footer metadata, and frees
// the packet writer's memory: call it once the capture has been read, before
// building the report. Finish calls it if it was not called.
func (e *Export) FinishPackets(c *analysis.CaptureSummary) error {
	if e.pktDone {
		return e.pktErr
	}
	e.pktDone = true
	e.pktErr = e.finishPackets(c)
	e.pw.release()
	return e.pktErr
}

func (e *Export) finishPackets(c *analysis.CaptureSummary) error {
	cs := *c
	if cs.Files == nil {
		cs.Files = []string{} // as analysis.Build
	}
	if capture, err := json.Marshal(cs); err == nil {
		e.pw.setMetadata(MetadataCapture, string(capture))
	}
	if err := e.pw.Close(); err != nil {
		return err
	}
	if err := e.pkt.finish(); err != nil {
		return fmt.Errorf("writing %s: %w", e.paths.Packets, err)
	}
	return nil
}

// Finish writes flows.parquet, events.parquet and pfc.parquet from r,
// completes packets.parquet (see FinishPackets), latency.parquet (its
// rows came from Latency while the capture was read) and rates.parquet
// (whose last windows the flow table's Finish, in analysis.Build, handed to
// Rate) and renames all six into place, all or none. It returns the files
// written: all six, or none on error (every temporary file is removed).
//
// ctx is checked between the tables and before every rename: once it has
// ended, nothing more is renamed, and Finish returns an error wrapping ctx's
// (errors.Is(err, context.Canceled)). An interruption or a failed rename
// takes back the renames done before it: a file that replaced another
// (Force) gives way to the one it replaced, which was kept under a
// temporary name until every rename succeeded; a new one is removed. So
// the directory holds the old export or the new one, never a mix.
func (e *Export) Finish(ctx context.Context, r *analysis.Report) ([]Written, error) {
	defer e.Abort()
	if err := e.FinishPackets(&r.Capture); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export interrupted: %w", err)
	}
	out := []Written{{TablePackets, e.paths.Packets, e.pw.Rows(), e.pkt.size}}

	// flows and events are converted a chunk at a time (a lean report
	// builds its rows from the flow table): no row per flow or event is
	// held for the whole table.
	var fb []analysis.FlowReport
	flowRows := func(dst []FlowRow, from, to int) []FlowRow {
		fb = r.AppendFlows(fb[:0], from, to)
		for i := range fb {
			dst = append(dst, FlowRowOf(&fb[i]))
		}
		return dst
	}
	var eb []analysis.EventReport
	eventRows := func(dst []EventRow, from, to int) []EventRow {
		eb = r.AppendEvents(eb[:0], from, to)
		for i := range eb {
			dst = append(dst, EventRowOf(&eb[i]))
		}
		return dst
	}
	pfcRows := make([]PFCRow, len(r.PFC))
	for i := range r.PFC {
		pfcRows[i] = PFCRowOf(&r.PFC[i])
	}
	// The three small tables, one after the other (written concurrently,
	// their parquet-go writers would add to the export's peak memory for a
	// few milliseconds' gain).
	for _, write := range append([]func() (Written, error){
		chunkedTable(e, TableFlows, e.paths.Flows, r.NumFlows(), flowRows),
		chunkedTable(e, TableEvents, e.paths.Events, r.NumEvents(), eventRows),
		smallTable(e, TablePFC, e.paths.PFC, pfcRows),
		e.finishRates,
	}, e.pointTables(r)...) {
		if write == nil {
			return nil, e.openErr
		}
		w, err := write()
		if err != nil {
			return nil, err
		}
		out = append(out, w)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("export interrupted: %w", err)
		}
	}
	w, err := e.finishLatency()
	if err != nil {
		return nil, err
	}
	out = append(out, w)
	if err := commitAll(ctx, e.opts.temps, e.temps); err != nil {
		return nil, err
	}
	return out, nil
}

// smallTable creates the temporary file of a table (in e.temps, in table
// order) and returns the function that writes rows to it, or nil if the
// file could not be created (e.openErr says why).
func smallTable[T any](e *Export, table, path string, rows []T) func() (Written, error) {
	return chunkedTable(e, table, path, len(rows), func(dst []T, from, to int) []T {
		return append(dst, rows[from:to]...)
	})
}

// tableChunk is how many rows chunkedTable asks for at a time.
const tableChunk = 1024

// chunkedTable is smallTable over n rows that rows(dst, from, to) appends to
// dst tableChunk at a time, so that the rows are never all held at once.
func chunkedTable[T any](e *Export, table, path string, n int, rows func(dst []T, from, to int) []T) func() (Written, error) {
	if e.openErr != nil {
		return nil
	}
	af, w, err := openTable[T](path, table, e.opts)
	if err != nil {
		e.openErr = err
		return nil
	}
	e.temps = append(e.temps, af)
	return func() (Written, error) {
		var buf []T
		for from := 0; from < n; from += tableChunk {
			buf = rows(buf[:0], from, min(from+tableChunk, n))
			if err := w.Write(buf...); err != nil {
				return Written{}, fmt.Errorf("writing %s: %w", path, err)
			}
		}
		if err := w.Close(); err != nil {
			return Written{}, fmt.Errorf("writing %s: %w", path, err)
		}
		if err := af.finish(); err != nil {
			return Written{}, fmt.Errorf("writing %s: %w", path, err)
		}
		return Written{table, path, w.Rows(), af.size}, nil
	}
}

// Abort removes every temporary file not yet renamed into place. It is safe
// to call more than once and after Finish.
func (e *Export) Abort() {
	if e.pw != nil {
		e.pw.abort() // the worker no longer writes to the file
		e.pw.release()
	}
	for _, af := range e.temps {
		af.abort()
	}
	if e.lat != nil {
		e.lat.w.abort()
		e.lat.af.abort()
	}
	if e.rates != nil {
		e.rates.w.abort()
		e.rates.af.abort()
	}
}

// RemoveTemps removes the export's temporary files (those not renamed into
// place) and makes it create no more, so that the export fails: for a
// process that must end before the export returns (cmd/rocetrace's
// watchdog, a second after a signal). Unlike Abort it is safe to call from
// any goroutine while the export runs: it only removes the files (their
// writers go on into unlinked files until the process ends), and waits for
// renames in progress (Finish), which end as a whole or are taken back.
func (e *Export) RemoveTemps() { e.opts.temps.removeAll() }

// IsExist reports whether err is about an output file that already exists.
func IsExist(err error) bool { return errors.Is(err, ErrExist) }

// CheckFree returns an error (matched by IsExist) when one of the paths
// exists and force is not set.
func CheckFree(paths Paths, force bool) error {
	for _, p := range paths.List() {
		if err := checkFree(p, force); err != nil {
			return err
		}
	}
	return nil
}
