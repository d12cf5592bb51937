package main

import (
	"fmt"

	"github.com/rocetrace/rocetrace/capture"
)

// liveFlags are the live-capture flags that `capture` and `tui -i` share.
type liveFlags struct {
	iface     string
	write     string
	all       bool
	snaplen   int
	bufSize   string
	noPromisc bool
}

// register adds the flags to fs; prefix ("" or "with -i: ") starts the
// help of the flags that only apply to a live capture.
func (l *liveFlags) register(fs *flagSet, prefix, ifaceHelp, writeHelp string) {
	fs.StringVarP(&l.iface, "interface", "i", "", ifaceHelp)
	fs.StringVarP(&l.write, "write", "w", "", writeHelp)
	fs.BoolVar(&l.all, "all", false, prefix+"no kernel filter: capture every frame, not only RoCE, PFC/PAUSE and GRE/ERSPAN")
	fs.IntVar(&l.snaplen, "snaplen", 0, prefix+"bytes kept of each frame (default 262144)")
	fs.StringVar(&l.bufSize, "buffer-size", "256M", prefix+"kernel capture ring size (K, M, G suffixes); more rides out longer stalls")
	fs.BoolVar(&l.noPromisc, "no-promisc", false, prefix+"do not put the interface in promiscuous mode")
}

// options checks the flags and returns the capture options they give.
func (l *liveFlags) options(rocePort uint16) (capture.Options, error) {
	if l.snaplen < 0 {
		return capture.Options{}, fmt.Errorf("invalid --snaplen %d", l.snaplen)
	}
	ring, err := parseSize(l.bufSize)
	if err != nil || ring == 0 || ring > 1<<40 {
		return capture.Options{}, fmt.Errorf("invalid --buffer-size %q: want bytes, e.g. 256M", l.bufSize)
	}
	return capture.Options{RoCEPort: rocePort, All: l.all, Snaplen: l.snaplen, NoPromisc: l.noPromisc, BufferSize: int(ring)}, nil
}
