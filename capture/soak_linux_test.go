//go:build linux

package capture_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/capture/captest"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// soakFrames builds qps RC WRITE streams of n packets each with the given
// payload, interleaved round-robin as a busy port would carry them. Sent
// in a loop, each stream's PSNs go back at every lap, which the analysis
// sees as one replay per QP per lap: a bounded cost.
func soakFrames(qps, n, payload int) [][]byte {
	c := &synth.Capture{}
	per := make([][]synth.Frame, qps)
	for q := range qps {
		c.Frames = nil
		conn := synth.NewConn(c, synth.Host(1), synth.Host(2), uint32(0x100+q), uint32(0x8100+q), 0, 0)
		conn.SetSrcPort(synth.A, uint16(49152+q))
		conn.PMTU = max(payload, 256)
		conn.Write(synth.A, 0, 100, n*conn.PMTU)
		per[q] = c.Frames
	}
	var out [][]byte
	for i := range n {
		for q := range qps {
			if i < len(per[q]) {
				out = append(out, per[q][i].Data)
			}
		}
	}
	return out
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestSoak replays RoCE traffic into a veth pair as fast as it can (or at
// ROCETRACE_SOAK_RATE frames/s) for ROCETRACE_SOAK (a duration) while the
// rocetrace binary at ROCETRACE_BIN captures on the other end, then reports
// frames/s captured and kernel drops. It is not part of the normal test
// run: scripts/soak-capture.sh sets it up. ROCETRACE_SOAK_PAYLOAD sets the
// RDMA payload per frame (default 1024 bytes), ROCETRACE_SOAK_ARGS adds
// flags to rocetrace capture, ROCETRACE_SOAK_SENDERS sets the number of
// sending goroutines (each with its own socket; default 1).
func TestSoak(t *testing.T) {
	durS := os.Getenv("ROCETRACE_SOAK")
	if durS == "" {
		t.Skip("soak run: see scripts/soak-capture.sh (ROCETRACE_SOAK=60s ROCETRACE_BIN=...)")
	}
	dur, err := time.ParseDuration(durS)
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("ROCETRACE_BIN")
	if bin == "" {
		t.Fatal("ROCETRACE_BIN must name a rocetrace binary")
	}
	rate, _ := strconv.ParseFloat(os.Getenv("ROCETRACE_SOAK_RATE"), 64)
	payload := 1024
	if s := os.Getenv("ROCETRACE_SOAK_PAYLOAD"); s != "" {
		payload, _ = strconv.Atoi(s)
	}
	senders := 1
	if s := os.Getenv("ROCETRACE_SOAK_SENDERS"); s != "" {
		senders, _ = strconv.Atoi(s)
	}
	p := captest.NewPair(t, 9000)
	injectors := make([]*captest.Injector, max(senders, 1))
	for i := range injectors {
		in, err := captest.OpenInjector(p.NS[1], p.Veth[1])
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		injectors[i] = in
	}
	frames := soakFrames(64, 512, payload)

	args := []string{"netns", "exec", p.NS[0], bin, "capture", "-i", p.Veth[0], "--json"}
	args = append(args, strings.Fields(os.Getenv("ROCETRACE_SOAK_ARGS"))...)
	cmd := exec.Command("ip", args...)
	var stdout bytes.Buffer
	stderr := &syncBuf{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for !strings.Contains(stderr.String(), "capturing on") {
		if cmd.ProcessState != nil {
			t.Fatal(stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	const batch = 64
	var sent atomic.Int64
	start := time.Now()
	end := start.Add(dur)
	var wg sync.WaitGroup
	for k, in := range injectors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine int64
			each := rate / float64(len(injectors))
			for i := k * len(frames) / len(injectors); time.Now().Before(end); {
				j := min(i+batch, len(frames))
				if err := in.SendBatch(frames[i:j]); err != nil {
					t.Error(err)
					return
				}
				mine += int64(j - i)
				sent.Add(int64(j - i))
				i = j % len(frames)
				if each > 0 {
					if d := time.Until(start.Add(time.Duration(float64(mine) / each * 1e9))); d > 0 {
						time.Sleep(d)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	time.Sleep(300 * time.Millisecond)
	veth := vethRxDropped(p.NS[0], p.Veth[0])
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rocetrace: %v: %s", err, stderr.String())
	}
	var rep struct {
		Capture struct {
			Packets     int64 `json:"packets"`
			KernelDrops int64 `json:"kernel_drops"`
		} `json:"capture"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	sec := elapsed.Seconds()
	line := fmt.Sprintf("SOAK duration=%.1fs frame_bytes=%d sent=%d sent_per_s=%.0f captured=%d captured_per_s=%.0f kernel_drops=%d lost_before_socket=%d veth_rx_dropped=%s rocetrace_cpu=%.0f%%",
		sec, len(frames[0]), sent.Load(), float64(sent.Load())/sec, rep.Capture.Packets, float64(rep.Capture.Packets)/sec,
		rep.Capture.KernelDrops, sent.Load()-rep.Capture.Packets-rep.Capture.KernelDrops, veth, 100*cpu.Seconds()/sec)
	t.Log(line)
	fmt.Println(line)
	t.Log(strings.TrimSpace(stderr.String()))
}

// vethRxDropped returns the RX dropped counter of iface in ns.
func vethRxDropped(ns, iface string) string {
	out, err := exec.Command("ip", "-n", ns, "-s", "link", "show", iface).CombinedOutput()
	if err != nil {
		return "?"
	}
	// RX:  bytes packets errors dropped ...
	m := regexp.MustCompile(`RX:[^\n]*\n\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)`).FindSubmatch(out)
	if m == nil {
		return "?"
	}
	return string(m[4])
}
