package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// runCapture implements `rocetrace capture -i IFACE [-w FILE] [-c COUNT]
// [--duration D] [--json]`: live capture, analysed as it arrives, with the
// report printed when the capture ends (Ctrl-C/SIGTERM, count or
// duration). Progress and totals go to stderr, the report to stdout.
func runCapture(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c common
	fs := newFlagSet("capture", "capture -i IFACE [-w FILE] [-c COUNT] [--duration D] [--json] [flags]", stderr)
	var live liveFlags
	live.register(fs, "", "network interface to capture on (e.g. the port a switch mirrors to)",
		"also write the frames to FILE: pcapng, or pcap (ns) if FILE ends in .pcap")
	iface, write, snaplen := &live.iface, &live.write, &live.snaplen
	count := fs.Int64P("count", "c", 0, "stop after COUNT frames")
	duration := fs.Duration("duration", 0, "stop after this long (e.g. 30s, 5m)")
	jsonOut := fs.Bool("json", false, "print the final report as one JSON document")
	rotSize := fs.String("rotate-size", "", "with -w: start a new file FILE-NNNNNN.EXT before one passes SIZE bytes (K, M, G suffixes)")
	rotCount := fs.Int("rotate-count", 0, "with --rotate-size: keep only the newest N files (a ring)")
	pauseStorm := fs.Duration("pause-storm", 0, "pause episode length reported as a pause storm (default 100ms)")
	allFlows := fs.Bool("all-flows", false, "list every flow in the human report (default: problems first, at most 50)")
	c.register(fs.FlagSet)

	if code := fs.parseArgs(args, &c, stdout, stderr); code >= 0 {
		return code
	}
	usage := fs.usageError
	switch {
	case *iface == "":
		return usage("capture needs an interface: -i IFACE")
	case fs.NArg() > 0:
		return usage("capture takes no file arguments (got %q); write a capture with -w FILE", fs.Arg(0))
	case *count < 0:
		return usage("invalid -c %d", *count)
	case *duration < 0:
		return usage("invalid --duration %v", *duration)
	case *write == "-":
		return usage("-w - (standard output) is not supported: stdout carries the report")
	case *rotSize != "" && *write == "":
		return usage("--rotate-size needs -w FILE")
	case *rotCount < 0:
		return usage("invalid --rotate-count %d", *rotCount)
	case *rotCount > 0 && *rotSize == "":
		return usage("--rotate-count needs --rotate-size")
	}
	var rotBytes int64
	if *rotSize != "" {
		n, err := parseSize(*rotSize)
		if err != nil || n == 0 {
			return usage("invalid --rotate-size %q: want bytes, e.g. 500M", *rotSize)
		}
		rotBytes = n
	}
	opts, err := live.options(c.rocePort)
	if err != nil {
		return usage("%v", err)
	}

	src, err := capture.Open(*iface, opts)
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		return exitFailed
	}
	defer src.Close()

	var w *capture.Writer
	if *write != "" {
		w, err = capture.NewWriter(capture.WriterOptions{
			Path: *write, RotateSize: rotBytes, RotateCount: *rotCount, Snaplen: *snaplen, Interface: *iface,
			Stats: func() (uint64, uint64) { st := src.Stats(); return st.KernelPackets, st.KernelDrops },
		})
		if err != nil {
			fmt.Fprintf(stderr, "rocetrace: -w: %v\n", err)
			return exitFailed
		}
		defer w.Close()
	}

	stamps := "kernel (software)"
	if src.HardwareTimestamping() {
		stamps = "NIC (hardware)"
	}
	fmt.Fprintf(stderr, "rocetrace: capturing on %s (filter: %s; timestamps: %s)", *iface, src.Filter(), stamps)
	if w != nil {
		fmt.Fprintf(stderr, ", writing %s", *write)
	}
	fmt.Fprintln(stderr, "; Ctrl-C to stop")

	// Ctrl-C/SIGTERM (ctx) or the duration stops the capture; Next then
	// returns what the kernel already holds, and io.EOF.
	stopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *duration > 0 {
		var cancelT context.CancelFunc
		stopCtx, cancelT = context.WithTimeout(stopCtx, *duration)
		defer cancelT()
	}
	go func() {
		<-stopCtx.Done()
		src.Stop()
	}()

	dec := decode.NewDecoder(decode.Config{RoCEPort: c.rocePort})
	table := flows.NewTable(flows.Config{PMTU: c.pmtuVal, LinkSpeedBps: c.linkBps})
	var (
		counter    analysis.Counter
		p          decode.Packet
		rec        pcapio.Record
		n          int64
		captureErr error
		writeErr   error
	)
	for *count == 0 || n < *count {
		err := src.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			captureErr = err
			break
		}
		dec.DecodeRecord(&rec, &p)
		counter.Observe(&p)
		table.Observe(&p)
		n++
		if w != nil {
			if err := w.WriteRecord(&rec); err != nil {
				writeErr = err
				break
			}
		}
	}
	st := src.Stats()
	_ = src.Close() // restores the NIC's timestamping before we report
	if w != nil {
		if err := w.Close(); err != nil && writeErr == nil {
			writeErr = err
		}
	}

	summary := counter.Summary([]string{"live:" + *iface})
	summary.KernelDrops = int64(st.KernelDrops)
	rep := analysis.Build(table, summary, analysis.Options{PauseStormNs: pauseStorm.Nanoseconds()})
	out := bufio.NewWriter(stdout)
	if *jsonOut {
		err = analysis.WriteJSON(out, rep, true)
	} else {
		opts := analysis.TextOptions{Color: colorWanted(stdout)}
		if *allFlows {
			opts.MaxFlows = -1
		}
		err = analysis.WriteText(out, rep, opts)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}

	fmt.Fprintf(stderr, "rocetrace: %s captured on %s, %s dropped by the kernel", countOf(n, "frame"), *iface, countOf(int64(st.KernelDrops), "frame"))
	if st.HardwareTimestamps > 0 {
		fmt.Fprintf(stderr, ", %d with hardware timestamps", st.HardwareTimestamps)
	}
	fmt.Fprintln(stderr)
	if w != nil {
		fmt.Fprintf(stderr, "rocetrace: wrote %s to %s\n", countOf(int64(w.Frames()), "frame"), strings.Join(w.Files(), ", "))
	}
	code := exitOK
	if captureErr != nil {
		fmt.Fprintf(stderr, "rocetrace: capture ended early: %v\n", captureErr)
		code = exitFailed
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "rocetrace: -w %s: %v\n", *write, writeErr)
		code = exitFailed
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocetrace: writing report: %v\n", err)
		code = exitFailed
	}
	return code
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
