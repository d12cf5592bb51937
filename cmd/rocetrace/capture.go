package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/pcapio"
)

// runCapture implements `rocetrace capture -i IFACE [-w FILE] [-c COUNT]
// [--duration D] [--json]`: live capture, analysed as it arrives, with the
// report printed when the capture ends (Ctrl-C/SIGTERM, count or
// duration). Progress and totals go to stderr, the report to stdout.
func runCapture(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cf, code := parseCapture(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	src, w, err := openCapture(cf)
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		return exitFailed
	}
	defer src.Close()
	if w != nil {
		defer w.Close()
	}
	announceCapture(stderr, cf, src, w)
	stop := stopCaptureOn(ctx, cf.duration, src)
	defer stop()

	e := engine.New(cf.a.engine([]string{"live:" + cf.live.iface}))
	var res captureResult
	live := engine.Live{Limit: cf.count}
	if w != nil {
		live.Tap = func(rec *pcapio.Record) error {
			res.writeErr = w.WriteRecord(rec)
			return res.writeErr
		}
	}
	if res.captureErr = e.RunLive(src, live, nil); res.captureErr == res.writeErr {
		res.captureErr = nil
	}
	st := src.Stats()
	_ = src.Close() // restores the NIC's timestamping before we report
	if w != nil {
		if err := w.Close(); err != nil && res.writeErr == nil {
			res.writeErr = err
		}
	}
	summary := e.Summary([]string{"live:" + cf.live.iface})
	summary.KernelDrops = int64(st.KernelDrops)
	res.reportErr = cf.out.write(stdout, e.Report(summary, cf.a.options()))
	return res.print(stderr, cf, e.Frames(), st, w)
}

// openCapture opens the capture source and, with -w, its writer.
func openCapture(cf *captureFlags) (*capture.Source, *capture.Writer, error) {
	src, err := capture.Open(cf.live.iface, cf.opts)
	if err != nil || cf.live.write == "" {
		return src, nil, err
	}
	w, err := capture.NewWriter(capture.WriterOptions{
		Path: cf.live.write, RotateSize: cf.rotBytes, RotateCount: cf.rotCount, Snaplen: cf.live.snaplen, Interface: cf.live.iface,
		Stats: func() (uint64, uint64) { st := src.Stats(); return st.KernelPackets, st.KernelDrops },
	})
	if err != nil {
		src.Close()
		return nil, nil, fmt.Errorf("-w: %w", err)
	}
	return src, w, nil
}

// stopCaptureOn stops src when ctx ends (Ctrl-C/SIGTERM) or after d (when
// d > 0); src's Next then returns what the kernel already holds, and
// io.EOF. The returned function releases the timer.
func stopCaptureOn(ctx context.Context, d time.Duration, src *capture.Source) context.CancelFunc {
	stopCtx, cancel := context.WithCancel(ctx)
	if d > 0 {
		stopCtx, cancel = context.WithTimeout(ctx, d)
	}
	go func() {
		<-stopCtx.Done()
		src.Stop()
	}()
	return cancel
}

// captureResult holds what went wrong in a capture.
type captureResult struct {
	captureErr error // the source failed
	writeErr   error // -w failed
	reportErr  error // printing the report failed
}

// print writes the capture's totals and errors to stderr and returns the
// exit status.
func (r *captureResult) print(stderr io.Writer, cf *captureFlags, frames int64, st capture.Stats, w *capture.Writer) int {
	fmt.Fprintf(stderr, "rocetrace: %s captured on %s, %s dropped by the kernel", countOf(frames, "frame"), cf.live.iface, countOf(int64(st.KernelDrops), "frame"))
	if st.HardwareTimestamps > 0 {
		fmt.Fprintf(stderr, ", %d with hardware timestamps", st.HardwareTimestamps)
	}
	fmt.Fprintln(stderr)
	if w != nil {
		fmt.Fprintf(stderr, "rocetrace: wrote %s to %s\n", countOf(int64(w.Frames()), "frame"), strings.Join(w.Files(), ", "))
	}
	code := exitOK
	if r.captureErr != nil {
		fmt.Fprintf(stderr, "rocetrace: capture ended early: %v\n", r.captureErr)
		code = exitFailed
	}
	if r.writeErr != nil {
		fmt.Fprintf(stderr, "rocetrace: -w %s: %v\n", cf.live.write, r.writeErr)
		code = exitFailed
	}
	if r.reportErr != nil {
		fmt.Fprintf(stderr, "rocetrace: writing report: %v\n", r.reportErr)
		code = exitFailed
	}
	return code
}

// captureFlags are the checked flags of `rocetrace capture`.
type captureFlags struct {
	a        analysisFlags
	out      reportFlags
	live     liveFlags
	opts     capture.Options
	count    int64
	duration time.Duration
	rotBytes int64
	rotCount int
}

// parseCapture parses and checks capture's flags; it returns the exit
// status when the command must stop (help or usage error), or -1.
func parseCapture(args []string, stdout, stderr io.Writer) (*captureFlags, int) {
	cf := &captureFlags{}
	fs := newFlagSet("capture", "capture -i IFACE [-w FILE] [-c COUNT] [--duration D] [--json] [flags]", stderr)
	cf.live.register(fs, "", "network interface to capture on (e.g. the port a switch mirrors to)",
		"also write the frames to FILE: pcapng, or pcap (ns) if FILE ends in .pcap")
	fs.Int64VarP(&cf.count, "count", "c", 0, "stop after COUNT frames")
	fs.DurationVar(&cf.duration, "duration", 0, "stop after this long (e.g. 30s, 5m)")
	rotSize := fs.String("rotate-size", "", "with -w: start a new file FILE-NNNNNN.EXT before one passes SIZE bytes (K, M, G suffixes)")
	fs.IntVar(&cf.rotCount, "rotate-count", 0, "with --rotate-size: keep only the newest N files (a ring)")
	cf.out.register(fs.FlagSet, "print the final report as one JSON document")
	cf.a.register(fs.FlagSet)
	if code := fs.parseArgs(args, &cf.a.common, stdout, stderr); code >= 0 {
		return nil, code
	}
	usage := fs.usageError
	switch {
	case cf.live.iface == "":
		return nil, usage("capture needs an interface: -i IFACE")
	case fs.NArg() > 0:
		return nil, usage("capture takes no file arguments (got %q); write a capture with -w FILE", fs.Arg(0))
	case cf.count < 0:
		return nil, usage("invalid -c %d", cf.count)
	case cf.duration < 0:
		return nil, usage("invalid --duration %v", cf.duration)
	case cf.live.write == "-":
		return nil, usage("-w - (standard output) is not supported: stdout carries the report")
	case *rotSize != "" && cf.live.write == "":
		return nil, usage("--rotate-size needs -w FILE")
	case cf.rotCount < 0:
		return nil, usage("invalid --rotate-count %d", cf.rotCount)
	case cf.rotCount > 0 && *rotSize == "":
		return nil, usage("--rotate-count needs --rotate-size")
	}
	if *rotSize != "" {
		n, err := parseSize(*rotSize)
		if err != nil || n == 0 {
			return nil, usage("invalid --rotate-size %q: want bytes, e.g. 500M", *rotSize)
		}
		cf.rotBytes = n
	}
	opts, err := cf.live.options(cf.a.rocePort)
	if err != nil {
		return nil, usage("%v", err)
	}
	cf.opts = opts
	return cf, -1
}

// announceCapture says on stderr what is captured, how, and where to.
func announceCapture(stderr io.Writer, cf *captureFlags, src *capture.Source, w *capture.Writer) {
	stamps := "kernel (software)"
	if src.HardwareTimestamping() {
		stamps = "NIC (hardware)"
	}
	fmt.Fprintf(stderr, "rocetrace: capturing on %s (filter: %s; timestamps: %s)", cf.live.iface, src.Filter(), stamps)
	if w != nil {
		fmt.Fprintf(stderr, ", writing %s", cf.live.write)
	}
	fmt.Fprintln(stderr, "; Ctrl-C to stop")
}

func countOf(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
}

// parseSize parses a byte count with an optional K, M or G suffix (powers
// of 1024; "KiB"/"KB" style spellings too).
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	u = strings.TrimSuffix(strings.TrimSuffix(u, "B"), "I")
	mult := int64(1)
	switch {
	case strings.HasSuffix(u, "K"):
		mult, u = 1<<10, strings.TrimSuffix(u, "K")
	case strings.HasSuffix(u, "M"):
		mult, u = 1<<20, strings.TrimSuffix(u, "M")
	case strings.HasSuffix(u, "G"):
		mult, u = 1<<30, strings.TrimSuffix(u, "G")
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * mult, nil
}
