package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/tui"
)

// runTUI implements `rocetrace tui [flags] FILE...`, `rocetrace tui --point
// NAME=FILE[,FILE...]...` and `rocetrace tui -i IFACE [-w FILE] [flags]`:
// the terminal UI over captures, capture points or a live capture. Input errors are printed once the terminal is restored, with
// the exit status `rocetrace report` would give.
func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var a analysisFlags
	fs := newFlagSet("tui", "tui [flags] FILE...  |  tui [flags] --point NAME=FILE[,FILE...]...  |  tui -i IFACE [-w FILE] [flags]", stderr)
	fs.registerReadFile()
	var live liveFlags
	live.register(fs, "with -i: ", "live capture from this interface (e.g. the port a switch mirrors to)",
		"with -i: keep the frames in FILE, pcapng or pcap (ns) if FILE ends in .pcap (default: a temporary file removed on exit)")
	iface, write := &live.iface, &live.write
	var disp displayFlag
	disp.register(fs.FlagSet, "start the packets view filtered by EXPR (display-filter syntax; / there takes the same)")
	a.register(fs.FlagSet)
	var pf pointFlags
	pf.register(fs.FlagSet)
	a.registerBin(fs.FlagSet)

	if code := fs.parseArgs(args, &a.common, stdout, stderr); code >= 0 {
		return code
	}
	if code := disp.compile(stderr); code >= 0 {
		return code
	}
	usage := fs.usageError
	if pf.active() {
		if *iface != "" {
			return usage("--point and -i do not go together: the capture points are files")
		}
		if *write != "" || live.all || live.snaplen != 0 || live.noPromisc || fs.Changed("buffer-size") {
			return usage("-w, --all, --snaplen, --buffer-size and --no-promisc need -i IFACE")
		}
		if code := pf.parseSpecs(fs); code >= 0 {
			return code
		}
		ec := a.engine(pf.paths())
		cfg := tui.Config{Decode: ec.Decode, Flows: ec.Flows, Analysis: a.options(),
			Keep: ec.Keep, DisplayFilter: disp.expr}
		for i, name := range pf.names {
			cfg.Points = append(cfg.Points, tui.PointFiles{Name: name, Files: pf.files[i]})
		}
		return runTUIFiles(ctx, cfg, stdout, stderr)
	}
	names := fs.Args()
	if *iface != "" {
		names = []string{"live:" + *iface}
	}
	ec := a.engine(names)
	cfg := tui.Config{Paths: fs.Args(), Decode: ec.Decode, Flows: ec.Flows, Analysis: a.options(),
		Keep: ec.Keep, DisplayFilter: disp.expr}
	if *iface == "" {
		switch {
		case fs.NArg() == 0:
			return usage("no capture file given")
		case *write != "" || live.all || live.snaplen != 0 || live.noPromisc || fs.Changed("buffer-size"):
			return usage("-w, --all, --snaplen, --buffer-size and --no-promisc need -i IFACE")
		}
		return runTUIFiles(ctx, cfg, stdout, stderr)
	}
	switch {
	case fs.NArg() > 0:
		return usage("tui -i takes no file arguments (got %q); keep the capture with -w FILE", fs.Arg(0))
	case *write == "-":
		return usage("-w - (standard output) is not supported: the terminal UI uses it")
	}
	opts, err := live.options(a.rocePort)
	if err != nil {
		return usage("%v", err)
	}
	lt, err := openLiveTUI(*iface, *write, opts, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		return exitFailed
	}
	if !isTerminal(stdout) {
		lt.close()
		fmt.Fprintln(stderr, "rocetrace tui: the terminal UI needs a terminal; for a report on a pipe use 'rocetrace capture'")
		return exitUsage
	}
	errs, err := tui.Run(ctx, lt.model, nil)
	st, werr := lt.close()
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace tui: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "rocetrace: %s captured on %s, %s dropped by the kernel\n",
		countOf(int64(st.Received), "frame"), *iface, countOf(int64(st.KernelDrops), "frame"))
	if *write != "" {
		fmt.Fprintf(stderr, "rocetrace: wrote %s to %s\n", countOf(int64(lt.w.Frames()), "frame"), *write)
	}
	for _, err := range errs {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
	}
	if werr != nil {
		fmt.Fprintf(stderr, "rocetrace: -w %s: %v\n", lt.path, werr)
	}
	if len(errs) > 0 || werr != nil {
		return exitFailed
	}
	return exitOK
}

// runTUIFiles runs the terminal UI over capture files. A signal while a
// file is being opened (a FIFO with no writer), before the UI is up, ends it
// as it ends report: "interrupted after 0 frames (FILE, byte offset 0)",
// status 130 or 143.
func runTUIFiles(ctx context.Context, cfg tui.Config, stdout, stderr io.Writer) int {
	m, err := tui.OpenContext(ctx, cfg)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "rocetrace: %s\n", line)
		}
		if errors.Is(err, context.Canceled) {
			return interruptStatus(ctx)
		}
		return exitFailed
	}
	if !isTerminal(stdout) {
		m.Close()
		fmt.Fprintln(stderr, "rocetrace tui: the terminal UI needs a terminal; for a report on a pipe use 'rocetrace report'")
		return exitUsage
	}
	errs, err := tui.Run(ctx, m, nil)
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace tui: %v\n", err)
		return exitFailed
	}
	for _, err := range errs {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
	}
	if len(errs) > 0 {
		return exitFailed
	}
	return exitOK
}

// liveTUI is a live capture set up for the terminal UI: the source, the
// recording every frame goes to (so that the packets pane can read frames
// again) and the model over both.
type liveTUI struct {
	src   *capture.Source
	w     *capture.Writer
	path  string // the recording
	temp  bool   // the recording is a temporary file, removed by close
	model *tui.Model
}

// openLiveTUI starts capturing on iface, recording to write (or, when
// write is "", to a temporary pcapng file), and opens the model. The
// model is not started: tui.Run (or Model.Start) does that.
func openLiveTUI(iface, write string, opts capture.Options, cfg tui.Config) (*liveTUI, error) {
	src, err := capture.Open(iface, opts)
	if err != nil {
		return nil, err
	}
	lt := &liveTUI{src: src, path: write}
	if write == "" {
		f, err := os.CreateTemp("", "rocetrace-live-*.pcapng")
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("temporary capture file: %w", err)
		}
		f.Close()
		lt.path, lt.temp = f.Name(), true
	}
	lt.w, err = capture.NewWriter(capture.WriterOptions{
		Path: lt.path, Snaplen: opts.Snaplen, Interface: iface,
		Stats: func() (uint64, uint64) { st := src.Stats(); return st.KernelPackets, st.KernelDrops },
	})
	if err != nil {
		src.Close()
		if lt.temp {
			os.Remove(lt.path)
		}
		return nil, fmt.Errorf("-w: %w", err)
	}
	cfg.Paths = nil
	cfg.Live = &tui.Live{
		Name: "live:" + iface, Source: src, Stop: src.Stop,
		Recorder: lt.w, RecordingPath: lt.path,
		KernelDrops: func() uint64 { return src.Stats().KernelDrops },
	}
	lt.model, err = tui.Open(cfg)
	if err != nil {
		lt.close()
		return nil, err
	}
	return lt, nil
}

// close stops the capture and releases everything: the source (restoring
// the NIC), the recording (removed when temporary) and the model's files.
// It returns the capture's final counters and the recording's error.
func (lt *liveTUI) close() (capture.Stats, error) {
	lt.src.Stop()
	st := lt.src.Stats()
	_ = lt.src.Close()
	werr := lt.w.Close()
	if lt.model != nil {
		lt.model.Close() // tui.Run closed it already; closing again is harmless
	}
	if lt.temp {
		// Nothing was to be kept: a write error has already shown in the
		// UI (the model reports its recording's errors).
		_ = os.Remove(lt.path)
		werr = nil
	}
	return st, werr
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
