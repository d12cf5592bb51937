package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/engine"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/spf13/pflag"
)

// Exit statuses (docs/interface.md).
const (
	exitOK     = 0
	exitFailed = 1 // missing, unreadable, not a capture, or damaged input
	exitUsage  = 2
)

const usageText = `rocetrace analyses RoCEv2 captures (pcap/pcapng).

Usage:
  rocetrace [report] [flags] FILE...        human report (default command)
  rocetrace report --json [flags] FILE...   the report as one JSON document
  rocetrace packets [--json] [-V] FILE...   one line per frame
  rocetrace export -o DIR [flags] FILE...   Parquet dataset (packets, flows, events, pfc, rates)
  rocetrace tui [flags] FILE...             interactive terminal UI
  rocetrace tui -i IFACE [flags]            the terminal UI over a live capture
  rocetrace capture -i IFACE [-w FILE] ...  live capture; prints the report when it ends
  rocetrace help [COMMAND]                  this text, or a command's flags
  rocetrace version                         version, commit and Go version (also --version)

Flags shared by all commands:
  --link-speed SPEED   25G, 50G, 100G, 200G, 400G, 800G or bits/s (default 100G)
  --pmtu PMTU          256, 512, 1024, 2048, 4096 or auto (default auto)
  --roce-port PORT     UDP destination port of RoCEv2 (default 4791)
  --vxlan-port PORT    UDP destination port of VXLAN (default 4789)

A FILE may also be given as -r FILE (report, packets, export, tui), as tshark takes it.

Run 'rocetrace COMMAND -h' (or 'rocetrace help COMMAND') for a command's flags.
`

// run is the whole program: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWithHooks(ctx, nil, args, stdin, stdout, stderr)
}

// runWithHooks is run with the watchdog's cleanups (main's): a command
// registers there what must be undone should the process end before it
// returns (export's temporary files).
func runWithHooks(ctx context.Context, hooks *exitHooks, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	if len(args) < 2 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	cmd, rest := args[1], args[2:]
	switch cmd {
	case "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "help":
		return runHelp(ctx, rest, stdout, stderr)
	case "version", "--version":
		return runVersion(stdout)
	case "report":
		return runReport(ctx, "report", rest, stdout, stderr)
	case "packets":
		return runPackets(ctx, rest, stdout, stderr)
	case "export":
		return runExport(ctx, hooks, rest, stdout, stderr)
	case "tui":
		return runTUI(ctx, rest, stdout, stderr)
	case "capture":
		return runCapture(ctx, rest, stdout, stderr)
	}
	if isUnknownCommand(cmd) {
		return unknownCommand(cmd, stderr)
	}
	// Anything else is a flag or a file of the default command, report.
	return runReport(ctx, "report", args[1:], stdout, stderr)
}

// common holds the flags every command shares.
type common struct {
	linkSpeed string
	pmtu      string
	rocePort  uint16
	maxFlows  int    // --max-flows, on the commands that analyse (registerMaxFlows)
	vxlanPort uint16 // --vxlan-port

	hasMaxFlows bool          // registerMaxFlows was called
	bin         time.Duration // --bin, on report, export and tui (registerBin); 0 = flows.DefaultBinNs
	hasBin      bool          // registerBin was called
	linkBps     int64
	pmtuVal     int // 0 = auto

	readExpr string         // -R/--read-filter (filters.go)
	readF    *filter.Filter // compiled by resolve
}

func (c *common) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.linkSpeed, "link-speed", "100G", "link speed for PFC quanta: 25G, 50G, 100G, 200G, 400G, 800G or bits/s")
	fs.StringVar(&c.pmtu, "pmtu", "auto", "path MTU: 256, 512, 1024, 2048, 4096 or auto")
	fs.Uint16Var(&c.rocePort, "roce-port", 4791, "UDP destination port that carries RoCEv2")
	fs.Uint16Var(&c.vxlanPort, "vxlan-port", decode.DefaultVXLANPort, "UDP destination port that carries VXLAN")
	c.registerReadFilter(fs)
}

// registerMaxFlows adds --max-flows, the flow table's bound, for the
// commands that analyse (report, packets, export, tui, capture).
func (c *common) registerMaxFlows(fs *pflag.FlagSet) {
	fs.IntVar(&c.maxFlows, "max-flows", flows.DefaultMaxFlows, "flows tracked at most: frames of further flows are counted in capture.flows_dropped")
	c.hasMaxFlows = true
}

// registerBin adds --bin, the rate window of peak_bps and rates.parquet,
// for report, export and tui.
func (c *common) registerBin(fs *pflag.FlagSet) {
	fs.DurationVar(&c.bin, "bin", time.Duration(flows.DefaultBinNs), "rate window for peak_bps and rates.parquet (a Go duration: 100us, 1ms, 1s)")
	c.hasBin = true
}

// engine returns the engine configuration of the shared flags, with the
// read filter over the inputs names.
func (c *common) engine(names []string) engine.Config {
	return engine.Config{
		Decode: decode.Config{RoCEPort: c.rocePort, VXLANPort: c.vxlanPort},
		Flows:  flows.Config{PMTU: c.pmtuVal, LinkSpeedBps: c.linkBps, MaxFlows: c.maxFlows, Bin: int64(c.bin)},
		Keep:   c.keep(names),
	}
}

// resolve checks and converts the shared flags.
func (c *common) resolve() error {
	bps, err := parseLinkSpeed(c.linkSpeed)
	if err != nil {
		return err
	}
	c.linkBps = bps
	switch c.pmtu {
	case "auto", "":
		c.pmtuVal = 0
	case "256", "512", "1024", "2048", "4096":
		c.pmtuVal, _ = strconv.Atoi(c.pmtu)
	default:
		return fmt.Errorf("invalid --pmtu %q: want 256, 512, 1024, 2048, 4096 or auto", c.pmtu)
	}
	if c.rocePort == 0 {
		return errors.New("invalid --roce-port 0")
	}
	if c.vxlanPort == 0 {
		return errors.New("invalid --vxlan-port 0")
	}
	if c.hasBin && c.bin <= 0 {
		return fmt.Errorf("invalid --bin %s: want a duration above 0 (e.g. 1ms)", c.bin)
	}
	if c.hasMaxFlows && c.maxFlows < 1 {
		return fmt.Errorf("invalid --max-flows %d: want 1 or more", c.maxFlows)
	}
	if c.readExpr != "" {
		f, err := filter.CompileRead(c.readExpr)
		if err != nil {
			return &filterError{kind: "read filter", err: err}
		}
		c.readF = f
	}
	return nil
}

// parseLinkSpeed parses "100G" style speeds or a plain number of bits/s.
func parseLinkSpeed(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(u, "G"):
		mult, u = 1_000_000_000, strings.TrimSuffix(u, "G")
	case strings.HasSuffix(u, "M"):
		mult, u = 1_000_000, strings.TrimSuffix(u, "M")
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 || n > 10_000_000_000_000/mult {
		return 0, fmt.Errorf("invalid --link-speed %q: want 25G, 50G, 100G, 200G, 400G, 800G or bits/s", s)
	}
	return n * mult, nil
}

// flagSet is a command's flags with its synopsis for the usage text.
type flagSet struct {
	*pflag.FlagSet
	synopsis string
	stderr   io.Writer

	readFiles []string // -r/--read-file, on the commands that read files (habits.go)
}

// newFlagSet returns a flag set for a command that reports errors instead
// of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flagSet {
	fs := &flagSet{FlagSet: pflag.NewFlagSet(name, pflag.ContinueOnError), synopsis: synopsis, stderr: stderr}
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() { fs.printUsage(stderr) }
	return fs
}

func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: rocetrace %s\n\nFlags:\n%s", fs.synopsis, fs.FlagUsages())
}

// parse parses args and requires at least one capture file; it returns
// the exit status to use when the command must stop (help or usage error),
// or -1 to go on.
func (fs *flagSet) parse(args []string, c *common, stdout, stderr io.Writer) int {
	if code := fs.parseArgs(args, c, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "rocetrace: no capture file given\n")
		fs.Usage()
		return exitUsage
	}
	return -1
}

// parseArgs parses args (printing the usage to stdout for -h) and checks
// the shared flags; it returns the exit status to use when the command
// must stop, or -1 to go on.
func (fs *flagSet) parseArgs(args []string, c *common, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			fs.printUsage(stdout)
			return exitOK
		}
	}
	if err := fs.Parse(args); err != nil {
		return fs.usageError("%v", err)
	}
	if err := c.resolve(); err != nil {
		var fe *filterError
		if errors.As(err, &fe) {
			fe.write(stderr)
		} else {
			fmt.Fprintf(stderr, "rocetrace: %v\n", err)
		}
		return exitUsage
	}
	return -1
}

// usageError prints a usage error and the usage, and returns exitUsage.
func (fs *flagSet) usageError(format string, a ...any) int {
	fmt.Fprintf(fs.stderr, "rocetrace: "+format+"\n", a...)
	fs.Usage()
	return exitUsage
}
