//go:build linux

package capture_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/capture/captest"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// openIn opens a live capture on iface inside namespace ns.
func openIn(t *testing.T, ns, iface string, opts capture.Options) *capture.Source {
	t.Helper()
	var src *capture.Source
	if err := captest.Do(ns, func() (err error) {
		src, err = capture.Open(iface, opts)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func injector(t *testing.T, p *captest.Pair) *captest.Injector {
	t.Helper()
	in, err := captest.OpenInjector(p.NS[1], p.Veth[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

type frame struct {
	data []byte
	len  int
	ts   int64
}

// drain reads src until io.EOF (after Stop) and returns the frames.
func drain(t *testing.T, src *capture.Source) []frame {
	t.Helper()
	var out []frame
	var rec pcapio.Record
	for {
		err := src.Next(&rec)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.CapLen != len(rec.Data) || rec.LinkType != pcapio.LinkTypeEthernet || rec.Frame != uint64(len(out)+1) {
			t.Fatalf("record %d: caplen %d len(data) %d link %v frame %d", len(out)+1, rec.CapLen, len(rec.Data), rec.LinkType, rec.Frame)
		}
		out = append(out, frame{append([]byte(nil), rec.Data...), rec.Len, rec.TsNs})
	}
}

// fullMirror is synth.MirrorERSPAN without the snaplen: whole frames, so
// that they can be sent again.
func fullMirror() *synth.Capture {
	c := &synth.Capture{Wrap: synth.Wrap{ERSPAN: 3, VLANs: []synth.VLAN{{PCP: 3, VID: 100}}}}
	conn := synth.NewConn(c, synth.Host6(1), synth.Host6(2), 0x41, 0x42, 100, 200)
	conn.PMTU = 4096
	ts := int64(1767323045_000000000)
	for range 2 {
		end, psns := conn.Write(synth.A, ts, 2_000, 16384)
		conn.Ack(synth.B, end+2_000, psns[len(psns)-1])
		psn := conn.ReadRequest(synth.A, end+10_000, 10000)
		ts = conn.ReadResponse(synth.B, end+15_000, 2_000, psn, 10000)
		ts += 20_000
	}
	return c
}

// noise returns frames the kernel filter must drop.
func noise() [][]byte {
	arp := make([]byte, 60)
	copy(arp, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 9, 0x08, 0x06})
	udp := synth.PFC([6]byte{2, 0, 0, 0, 0, 9}, 0, [8]uint16{})
	udp[12], udp[13] = 0x08, 0x00 // an IPv4 "packet" of zeros: protocol 0
	return [][]byte{arp, udp}
}

func TestLiveCaptureFiltered(t *testing.T) {
	p := captest.NewPair(t, 9000)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{})
	in := injector(t, p)

	var want [][]byte
	for _, c := range []*synth.Capture{synth.LossNAKReplay(), synth.CongestionCNP(), synth.PFCPauseStorm(), fullMirror()} {
		for _, f := range c.Frames {
			want = append(want, f.Data)
		}
	}
	for i, f := range want {
		if i%50 == 0 {
			for _, n := range noise() {
				if err := in.Send(n); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := in.Send(f); err != nil {
			t.Fatalf("frame %d (%d bytes): %v", i+1, len(f), err)
		}
	}
	before := time.Now()
	src.Stop()
	got := drain(t, src)
	t.Logf("drained %d frames in %v after Stop", len(got), time.Since(before))
	if len(got) != len(want) {
		t.Fatalf("captured %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].data, want[i]) || got[i].len != len(want[i]) {
			t.Fatalf("frame %d differs: got %d bytes (len %d) % x\nwant %d bytes % x", i+1,
				len(got[i].data), got[i].len, got[i].data[:min(len(got[i].data), 40)], len(want[i]), want[i][:min(len(want[i]), 40)])
		}
		if i > 0 && got[i].ts < got[i-1].ts {
			t.Errorf("frame %d: timestamp goes back", i+1)
		}
	}
	if d := time.Since(time.Unix(0, got[0].ts)); d < 0 || d > time.Minute {
		t.Errorf("first timestamp is %v from now", d)
	}
	st := src.Stats()
	if st.Received != uint64(len(want)) || st.KernelDrops != 0 || st.KernelPackets != uint64(len(want)) {
		t.Errorf("stats %+v, want %d received and accepted, no drops", st, len(want))
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Next(&pcapio.Record{}); !errors.Is(err, io.EOF) {
		t.Errorf("Next after Close: %v", err)
	}
	if st2 := src.Stats(); st2 != st {
		t.Errorf("stats after Close %+v, want %+v", st2, st)
	}
}

func TestLiveCaptureAll(t *testing.T) {
	p := captest.NewPair(t, 0)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{All: true, Snaplen: 48})
	in := injector(t, p)
	frames := append(noise(), synth.LossNAKReplay().Frames[0].Data)
	for _, f := range frames {
		if err := in.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	src.Stop()
	got := drain(t, src)
	if len(got) != len(frames) {
		t.Fatalf("captured %d frames, want %d (--all keeps everything)", len(got), len(frames))
	}
	for i, f := range frames {
		n := min(48, len(f))
		if !bytes.Equal(got[i].data, f[:n]) || got[i].len != len(f) {
			t.Errorf("frame %d: %d bytes of %d, want %d of %d", i+1, len(got[i].data), got[i].len, n, len(f))
		}
	}
}

// TestLiveCaptureStopDrains: frames sent just before Stop, still in a
// partly filled ring block, are delivered before io.EOF.
func TestLiveCaptureStopDrains(t *testing.T) {
	p := captest.NewPair(t, 0)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{BlockTimeout: 50 * time.Millisecond})
	in := injector(t, p)
	f := synth.LossNAKReplay().Frames[0].Data
	for range 3 {
		if err := in.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	src.Stop()
	src.Stop() // idempotent
	if got := drain(t, src); len(got) != 3 {
		t.Fatalf("%d frames after Stop, want 3", len(got))
	}
	// Once stopped, nothing more arrives.
	if err := in.Send(f); err != nil {
		t.Fatal(err)
	}
	time.Sleep(120 * time.Millisecond)
	if err := src.Next(&pcapio.Record{}); !errors.Is(err, io.EOF) {
		t.Errorf("Next after the drain: %v", err)
	}
}

// TestLiveCaptureCloseUnblocks: Close ends a Next that waits for frames.
func TestLiveCaptureCloseUnblocks(t *testing.T) {
	p := captest.NewPair(t, 0)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{})
	done := make(chan error, 1)
	go func() { done <- src.Next(&pcapio.Record{}) }()
	time.Sleep(50 * time.Millisecond)
	go func() { _ = src.Stats() }() // concurrent with Next and Close
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Next: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next still blocked after Close")
	}
}

// TestLiveCaptureKernelDrops overflows a small ring that nobody reads and
// requires the drops in Stats.
func TestLiveCaptureKernelDrops(t *testing.T) {
	p := captest.NewPair(t, 0)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{BufferSize: 1}) // the minimum: 4 blocks
	in := injector(t, p)
	f := synth.LossNAKReplay().Frames[0].Data // about 1.1 KB
	const n = 3000                            // ~3.3 MB: more than 4 blocks hold
	batch := make([][]byte, 100)
	for i := range batch {
		batch[i] = f
	}
	for range n / len(batch) {
		if err := in.SendBatch(batch); err != nil {
			t.Fatal(err)
		}
	}
	src.Stop()
	got := drain(t, src)
	st := src.Stats()
	t.Logf("sent %d, received %d, stats %+v", n, len(got), st)
	if st.KernelDrops == 0 {
		t.Fatalf("no kernel drops: %+v", st)
	}
	if st.Received != uint64(len(got)) || st.KernelPackets != st.Received+st.KernelDrops || st.KernelPackets != n {
		t.Errorf("stats %+v: want received+drops = accepted = %d", st, n)
	}
}

func TestOpenErrors(t *testing.T) {
	p := captest.NewPair(t, 0)
	err := captest.Do(p.NS[0], func() error {
		_, err := capture.Open("nosuch0", capture.Options{})
		return err
	})
	if !errors.Is(err, capture.ErrNoInterface) {
		t.Errorf("missing interface: %v", err)
	} else {
		t.Logf("missing interface: %v", err)
	}

	// Without CAP_NET_RAW (dropped on this thread only).
	err = captest.Do(p.NS[0], func() error {
		if err := captest.DropNetRaw(); err != nil {
			return err
		}
		_, err := capture.Open(p.Veth[0], capture.Options{})
		return err
	})
	if !errors.Is(err, capture.ErrPermission) {
		t.Errorf("without CAP_NET_RAW: %v", err)
	} else {
		t.Logf("without CAP_NET_RAW: %v", err)
	}

	if out, err := runIP("-n", p.NS[0], "link", "set", p.Veth[0], "down"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	err = captest.Do(p.NS[0], func() error {
		_, err := capture.Open(p.Veth[0], capture.Options{})
		return err
	})
	if !errors.Is(err, capture.ErrInterfaceDown) {
		t.Errorf("interface down: %v", err)
	}

	// A TUN device carries IP packets, not Ethernet frames.
	if out, err := runIP("-n", p.NS[0], "tuntap", "add", "dev", "rttun0", "mode", "tun"); err != nil {
		t.Logf("no tun device (%v: %s): link type check not tested", err, out)
		return
	}
	if out, err := runIP("-n", p.NS[0], "link", "set", "rttun0", "up"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	err = captest.Do(p.NS[0], func() error {
		_, err := capture.Open("rttun0", capture.Options{})
		return err
	})
	if !errors.Is(err, capture.ErrLinkType) {
		t.Errorf("tun: %v, want ErrLinkType", err)
	} else {
		t.Logf("tun: %v", err)
	}
}

// TestLiveCaptureInterfaceDown: the interface going down ends Next with
// ErrInterfaceDown.
func TestLiveCaptureInterfaceDown(t *testing.T) {
	p := captest.NewPair(t, 0)
	src := openIn(t, p.NS[0], p.Veth[0], capture.Options{})
	errc := make(chan error, 1)
	go func() { errc <- src.Next(&pcapio.Record{}) }()
	time.Sleep(50 * time.Millisecond)
	if out, err := runIP("-n", p.NS[0], "link", "set", p.Veth[0], "down"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, capture.ErrInterfaceDown) {
			t.Errorf("Next: %v, want ErrInterfaceDown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next still blocked after the interface went down")
	}
}

// TestLiveCaptureLoopback: on lo every frame passes twice (out and in);
// the capture keeps one copy, as libpcap does.
func TestLiveCaptureLoopback(t *testing.T) {
	p := captest.NewPair(t, 0)
	if out, err := runIP("-n", p.NS[0], "link", "set", "lo", "up"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	src := openIn(t, p.NS[0], "lo", capture.Options{})
	// A datagram to the RoCE port on the namespace's own loopback.
	if err := captest.Do(p.NS[0], func() error {
		c, err := net.Dial("udp", "127.0.0.1:4791")
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write(make([]byte, 40))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	src.Stop()
	got := drain(t, src)
	if len(got) != 1 {
		t.Fatalf("%d frames on lo, want 1", len(got))
	}
	if f := got[0].data; len(f) != 14+20+8+40 || f[12] != 0x08 || f[13] != 0x00 {
		t.Errorf("frame % x", f)
	}
}
