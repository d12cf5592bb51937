package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// The command-line habits tshark users bring (docs/interface.md,
// "Invocation"): -r FILE, --version, help CMD, and a typo of a command
// named as such rather than opened as a capture.

// commands are the command names, in the order `help` lists them.
var commands = []string{"report", "packets", "export", "tui", "capture", "help", "version"}

// registerReadFile adds -r/--read-file FILE (repeatable), tshark's way of
// naming a capture: its files come before the FILE arguments in Args.
func (fs *flagSet) registerReadFile() {
	fs.StringArrayVarP(&fs.readFiles, "read-file", "r", nil, "read this capture file, as tshark -r does (repeatable; the same as a FILE argument, before them)")
}

// Args returns the capture files: the -r ones, then the FILE arguments.
func (fs *flagSet) Args() []string {
	if len(fs.readFiles) == 0 {
		return fs.FlagSet.Args()
	}
	return append(append([]string(nil), fs.readFiles...), fs.FlagSet.Args()...)
}

// NArg returns the number of capture files (Args).
func (fs *flagSet) NArg() int { return len(fs.readFiles) + fs.FlagSet.NArg() }

// Arg returns capture file i of Args, "" when there is none.
func (fs *flagSet) Arg(i int) string {
	if a := fs.Args(); i >= 0 && i < len(a) {
		return a[i]
	}
	return ""
}

// runHelp implements `rocetrace help [COMMAND]`: COMMAND's usage, as
// `rocetrace COMMAND -h` prints it, or the general one.
func runHelp(ctx context.Context, rest []string, stdout, stderr io.Writer) int {
	if len(rest) == 0 || rest[0] == "help" || strings.HasPrefix(rest[0], "-") {
		fmt.Fprint(stdout, usageText)
		return exitOK
	}
	switch name := rest[0]; name {
	case "version":
		fmt.Fprint(stdout, "Usage: rocetrace version (or rocetrace --version)\n\nPrints the version, the commit and the Go version of the build.\n")
		return exitOK
	case "report", "packets", "export", "tui", "capture":
		return run(ctx, []string{"rocetrace", name, "-h"}, nil, stdout, stderr)
	default:
		return unknownCommand(name, stderr)
	}
}

// runVersion implements `rocetrace version` and `rocetrace --version`.
func runVersion(stdout io.Writer) int {
	fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
	return exitOK
}

// versionLine is the line of `rocetrace --version` for a build's info:
// "rocetrace VERSION, commit REV[, modified], GOVERSION". A binary built
// without module or VCS information says "(devel)" and "unknown".
func versionLine(bi *debug.BuildInfo, ok bool) string {
	version, commit, goVersion, modified := "(devel)", "unknown", "unknown", false
	if ok && bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += ", modified"
	}
	return fmt.Sprintf("rocetrace %s, commit %s, %s", version, commit, goVersion)
}

// isUnknownCommand reports whether the first argument arg, not a flag,
// names no command and no existing file, and looks like a command rather
// than a file name (no path separator, no dot): a missing "x.pcap" stays
// a capture that cannot be opened (exit 1), as before.
func isUnknownCommand(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, `./\`) {
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}

// unknownCommand prints that name is no command, with the closest one when
// a command is within two edits of it, and returns exitUsage.
func unknownCommand(name string, stderr io.Writer) int {
	if s := suggestCommand(name); s != "" {
		fmt.Fprintf(stderr, "rocetrace: unknown command %q (did you mean %s?)\n", name, s)
	} else {
		fmt.Fprintf(stderr, "rocetrace: unknown command %q (run 'rocetrace help' for the commands)\n", name)
	}
	return exitUsage
}

// suggestCommand returns the command nearest to name by edit distance
// (the first of commands on a tie) when it is at most 2 edits away, or a
// command name starts with name; else "".
func suggestCommand(name string) string {
	lower := strings.ToLower(name)
	best, bestD := "", 3
	for _, c := range commands {
		d := editDistance(lower, c)
		if len(lower) >= 2 && strings.HasPrefix(c, lower) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
