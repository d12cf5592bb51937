// Command gencap writes a large synthesized RoCE capture for benchmarks:
//
//	go run ./bench/cmd/gencap -frames 1000000 -snaplen 128 -o /tmp/bench-1m-128.pcap
//
// 1000 QPs by default, with a mix of WRITE/SEND/READ, ACKs, ~2% CE marks
// answered by CNPs, ~1% NAKs with go-back-N replays, periodic PFC, VLAN
// and IPv6 connections. It prints what it wrote (the counts a report of
// the file must show).
//
// -hostile flows or -hostile gaps writes a memory test instead (see
// synth.WriteHostile): -n flows of one packet each, or one flow with -n PSN
// gaps:
//
//	go run ./bench/cmd/gencap -hostile flows -n 1000000 -o /tmp/flows-1m.pcap
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rocetrace/rocetrace/internal/synth"
)

func main() {
	var cfg synth.BulkConfig
	out := flag.String("o", "", "output pcap file")
	flag.IntVar(&cfg.Frames, "frames", 1_000_000, "frames to write")
	flag.IntVar(&cfg.QPs, "qps", 1000, "connections")
	flag.IntVar(&cfg.Snaplen, "snaplen", 0, "cut frames to this many bytes (0: whole)")
	flag.IntVar(&cfg.PMTU, "pmtu", 1024, "payload bytes per packet")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	hostile := flag.String("hostile", "", "flows (n one-packet flows) or gaps (one flow with n PSN gaps) instead of the mix")
	n := flag.Int("n", 1_000_000, "with -hostile: flows or gaps")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencap: -o FILE is required")
		os.Exit(2)
	}
	if *hostile != "" {
		writeHostile(*out, *hostile, *n)
		return
	}
	f, err := os.Create(*out)
	if err == nil {
		var st synth.BulkStats
		st, err = synth.WriteBulk(f, cfg)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		fmt.Printf("%s: %d frames, %d RoCE (%d CNPs), %d PFC, %d NAKs, %d replayed, %d connections\n",
			*out, st.Frames, st.RoCE, st.CNPs, st.PFC, st.NAKs, st.Replayed, st.Connections)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencap:", err)
		os.Exit(1)
	}
}

// writeHostile writes a memory-test capture (synth.WriteHostile).
func writeHostile(out, shape string, n int) {
	h := map[string]synth.Hostile{"flows": synth.HostileFlows, "gaps": synth.HostileGaps}[shape]
	if h == 0 {
		fmt.Fprintf(os.Stderr, "gencap: -hostile %q: want flows or gaps\n", shape)
		os.Exit(2)
	}
	f, err := os.Create(out)
	if err == nil {
		var frames int64
		frames, err = synth.WriteHostile(f, h, n)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		fmt.Printf("%s: %d frames (%s, n = %d)\n", out, frames, shape, n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencap:", err)
		os.Exit(1)
	}
}
