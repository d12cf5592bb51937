package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/export"
	"github.com/rocetrace/rocetrace/pcapio"
)

// exportGCPercent is the GC percent of an export (see runExport).
const exportGCPercent = 50

// runExport implements `rocetrace export -o DIR [flags] FILE...`. Each
// export registers its temporary files' removal in hooks while it runs.
func runExport(ctx context.Context, hooks *exitHooks, args []string, stdout, stderr io.Writer) int {
	var (
		c    common
		pf   pointFlags
		disp displayFlag
	)
	fs := newFlagSet("export", "export -o DIR [flags] FILE... | --point NAME=FILE[,FILE...]...", stderr)
	fs.registerReadFile()
	dir := fs.StringP("output", "o", "", "output directory (required)")
	compression := fs.String("compression", "zstd", "column compression: "+strings.Join(export.Compressions, ", "))
	force := fs.Bool("force", false, "overwrite existing output files")
	partition := fs.Bool("partition", false, "write a hive-style dataset, one partition per capture:\nDIR/<table>/capture=<file>/part-0.parquet (each capture analysed on its own)")
	jobs := fs.IntP("jobs", "j", 1, "with --partition: captures exported in parallel")
	rowGroup := fs.Int64("row-group-rows", export.DefaultRowGroupRows, "rows per Parquet row group")
	var cnp cnpFlags // accepted as on report; they tune findings, which are not exported
	cnp.register(fs.FlagSet)
	disp.register(fs.FlagSet, "write only the frames that match EXPR to packets.parquet (the other tables describe the whole capture)")
	c.registerMaxFlows(fs.FlagSet)
	c.registerBin(fs.FlagSet)
	c.register(fs.FlagSet)
	pf.register(fs.FlagSet)
	if code := pf.parse(fs, args, &c, stdout, stderr); code >= 0 {
		return code
	}
	if code := disp.compile(stderr); code >= 0 {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rocetrace: "+format+"\n", a...)
		fs.Usage()
		return exitUsage
	}
	switch {
	case *dir == "":
		return usage("export needs an output directory: -o DIR")
	case *jobs < 1:
		return usage("invalid -j %d: want 1 or more", *jobs)
	case *jobs > 1 && !*partition:
		return usage("-j needs --partition (without it the captures are merged into one analysis)")
	case *rowGroup < 1:
		return usage("invalid --row-group-rows %d", *rowGroup)
	case pf.active() && *partition:
		return usage("--point and --partition do not go together: the points are one analysis")
	}
	if _, err := export.Codec(*compression); err != nil {
		return usage("invalid --compression: %v", err)
	}
	// The export keeps about 20 MB of page buffers live next to the
	// analysis: a GC target of 1.5x the live heap (unless GOGC says
	// otherwise) keeps the peak RSS of a 10M-frame export under 150 MB for
	// a few more, short, collections.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(exportGCPercent))
	}
	x := &exporter{
		c: &c, disp: &disp, stdout: stdout, stderr: stderr, start: time.Now(), hooks: hooks,
		opts: export.Options{Compression: *compression, RowGroupRows: *rowGroup, Force: *force},
	}
	if pf.active() {
		return x.points(ctx, &pf, export.FilePaths(*dir).WithPoints(*dir))
	}
	if !*partition {
		return x.one(ctx, fs.Args(), export.FilePaths(*dir))
	}
	return x.partitions(ctx, fs.Args(), *dir, *jobs, *force, usage)
}

// partitions exports each capture of files on its own into its partition of
// dir (--partition), jobs at a time; usage reports a usage error.
func (x *exporter) partitions(ctx context.Context, files []string, dir string, jobs int, force bool, usage func(string, ...any) int) int {
	paths := make([]export.Paths, len(files))
	seen := make(map[string]string)
	for i, f := range files {
		base := filepath.Base(f)
		if prev, ok := seen[base]; ok {
			return usage("--partition: %s and %s would share the partition capture=%s", prev, f, export.PartitionValue(base))
		}
		seen[base] = f
		paths[i] = export.PartitionPaths(dir, f)
	}
	// Refuse before any work rather than after some captures.
	for _, p := range paths {
		if err := export.CheckFree(p, force); err != nil {
			fmt.Fprintf(x.stderr, "rocetrace: %v\n", err)
			return exitFailed
		}
	}
	codes := make([]int, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				codes[i] = x.one(ctx, files[i:i+1], paths[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	code := exitOK
	for _, c := range codes {
		code = max(code, c)
	}
	return code
}

// exporter runs exports and prints what they wrote; its output is safe for
// concurrent exports.
type exporter struct {
	c      *common
	disp   *displayFlag // -Y: the rows of packets.parquet
	opts   export.Options
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	start  time.Time  // when the export started (see export.RemoveStale)
	hooks  *exitHooks // the watchdog's cleanups: each export's RemoveTemps while it runs
}

// one exports the captures in files (merged into one analysis) to paths and
// returns the exit status. It prints the files it wrote to stdout and every
// problem to stderr.
func (x *exporter) one(ctx context.Context, files []string, paths export.Paths) int {
	var msgs strings.Builder
	code := x.export(ctx, files, paths, &msgs)
	x.mu.Lock()
	defer x.mu.Unlock()
	_, err := io.WriteString(x.stdout, msgs.String())
	if err != nil {
		writeFailed(x.stderr, "output", err)
		code = max(code, exitFailed)
	}
	return code
}

func (x *exporter) export(ctx context.Context, files []string, paths export.Paths, out io.Writer) int {
	in := engine.OpenContext(ctx, files)
	defer in.Close()
	if in.Interrupted() {
		return x.interrupted(ctx, in, 0, paths)
	}
	if in.Opened() == 0 {
		return x.report(in, "", nil)
	}
	x.removeStale(paths)
	ex, err := export.Create(paths, in.Names(), x.opts)
	if err != nil {
		return x.report(in, fmt.Sprintf("export: %v", err), nil)
	}
	defer x.hooks.add(ex.RemoveTemps)() // taken back after Abort
	defer ex.Abort()

	// On the engine's two-core pipeline: records are read and decoded on a
	// helper goroutine; here, in capture order, the packets are counted, fed
	// to the flow table and added to packets.parquet, whose pages are
	// encoded on the export's own worker goroutine. An export error stops
	// the reading. A batch at a time (RunBatches): the flow table observes
	// the whole batch, then its rows are added, so that the table's lines
	// and the page sets' do not evict each other frame by frame.
	cfg := x.c.engine(in.Names())
	cfg.Flows.LatencySink = ex.Latency // latency.parquet, streamed as samples are taken
	cfg.Flows.RateSink = ex.Rate       // rates.parquet's rows, as the windows close
	e := engine.New(cfg)
	names := in.Names()
	var exErr error
	err = e.RunBatches(ctx, in, func(b *engine.Batch) error {
		exErr = x.addBatch(ex, b, names)
		return exErr
	})
	if err != nil {
		ex.Abort()
		if exErr == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return x.interrupted(ctx, in, e.Frames()+e.Filtered(), paths)
		}
		msg := fmt.Sprintf("export failed after %d frames of %s; nothing written to %s: %v", e.Frames(),
			strings.Join(files, ", "), strings.Join(paths.List(), ", "), err)
		return x.report(in, msg, nil)
	}
	// packets.parquet is complete before the report is built: its writer's
	// memory is freed for the analysis.
	summary := e.Summary(in.Names())
	var written []export.Written
	if err = ex.FinishPackets(&summary); err == nil {
		// Lean: flows.parquet and events.parquet are written from the
		// table a chunk at a time.
		rep := e.Report(summary, analysis.Options{Lean: true})
		written, err = ex.Finish(ctx, &rep)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return x.interrupted(ctx, in, e.Frames()+e.Filtered(), paths)
	}
	for _, w := range written {
		fmt.Fprintf(out, "wrote %s: %s rows, %s\n", w.Path, strconv.FormatInt(w.Rows, 10), exportSize(w.Bytes))
	}
	if err != nil {
		msg := fmt.Sprintf("export: %v", err)
		if len(written) < len(export.Tables) {
			msg += "; not written: " + strings.Join(paths.List()[len(written):], ", ")
		}
		return x.report(in, msg, written)
	}
	return x.report(in, "", written)
}

// addBatch adds the rows of the frames of b that pass the display filter
// to ex, and returns the first error.
func (x *exporter) addBatch(ex *export.Export, b *engine.Batch, names []string) error {
	for i := range b.Packets {
		p, f, ev := &b.Packets[i], b.Flows[i], b.Events[i]
		if !x.disp.match(p, f, ev, names) {
			continue
		}
		if err := ex.PacketEvents(p, f, ev); err != nil {
			return err
		}
	}
	return nil
}

// interrupted prints the input errors and the interruption of an export
// that wrote nothing, and returns the exit status: the signal's (130, 143)
// when a signal interrupted it, else 1.
func (x *exporter) interrupted(ctx context.Context, in *engine.Inputs, frames int64, paths export.Paths) int {
	msg := fmt.Sprintf("export %s; nothing written to %s", in.Interruption(frames), strings.Join(paths.List(), ", "))
	x.report(in, msg, nil)
	return interruptStatus(ctx)
}

// removeStale removes the temporary files that killed exports left where
// this one writes, and says so on stderr.
func (x *exporter) removeStale(paths export.Paths) {
	removed, err := export.RemoveStale(paths, x.start)
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, f := range removed {
		fmt.Fprintf(x.stderr, "rocetrace: removed stale temporary file %s\n", f)
	}
	if err != nil {
		fmt.Fprintf(x.stderr, "rocetrace: warning: %v\n", err)
	}
}

// report prints the input errors and msg (if any) to stderr and returns the
// exit status. When the input was damaged but files were written, it says
// that they hold everything before the damage.
func (x *exporter) report(in *engine.Inputs, msg string, written []export.Written) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	code := inputStatus(in, x.stderr)
	var de *pcapio.DamageError
	for _, err := range in.Errors() {
		if errors.As(err, &de) && msg == "" && len(written) > 0 {
			fmt.Fprintf(x.stderr, "rocetrace: the files written hold every frame before the damage\n")
			break
		}
	}
	if msg != "" {
		fmt.Fprintf(x.stderr, "rocetrace: %s\n", msg)
		code = exitFailed
	}
	return code
}

// exportSize formats a byte count: "812 B", "4.1 KiB", "23.0 MiB".
func exportSize(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + [...]string{"KiB", "MiB", "GiB", "TiB"}[i]
}
