//go:build linux

// Package captest helps live-capture tests: it creates two network
// namespaces joined by a veth pair, runs code inside a namespace, and
// injects raw Ethernet frames from one end so that a capture on the other
// end sees them. Frames only ever travel over the veth pair between the
// two namespaces the test created: nothing reaches any other network.
//
// Everything here needs root (CAP_SYS_ADMIN for namespaces, CAP_NET_RAW
// for packet sockets) and the ip command from iproute2; NewPair skips the
// test with a message when either is missing.
package captest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Pair is two network namespaces joined by a veth pair: Veth[i] lives in
// NS[i].
type Pair struct {
	NS   [2]string
	Veth [2]string
}

// Available reports why namespace tests cannot run here ("" when they
// can).
func Available() string {
	if os.Geteuid() != 0 {
		return "live capture tests need root (network namespaces, CAP_NET_RAW)"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "live capture tests need the ip command (apt-get install -y iproute2)"
	}
	return ""
}

// NewPair creates two namespaces and a veth pair between them with the
// given MTU (0: 1500), both ends up, IPv6 off (so the kernel sends no
// neighbour discovery of its own). Names are unique to this run. Cleanup
// removes everything. It skips t when Available says so, unless the
// environment sets ROCETRACE_REQUIRE_LIVE (as CI does): then it fails.
func NewPair(t testing.TB, mtu int) *Pair {
	t.Helper()
	if why := Available(); why != "" {
		if os.Getenv("ROCETRACE_REQUIRE_LIVE") != "" {
			t.Fatalf("ROCETRACE_REQUIRE_LIVE is set but %s", why)
		}
		t.Skip(why)
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	id := hex.EncodeToString(b[:])
	p := &Pair{
		NS:   [2]string{"rocetrace-" + id + "-a", "rocetrace-" + id + "-b"},
		Veth: [2]string{"rta" + id, "rtb" + id}, // 11 characters: within IFNAMSIZ
	}
	t.Cleanup(func() {
		for _, ns := range p.NS {
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	ipCmd(t, "netns", "add", p.NS[0])
	ipCmd(t, "netns", "add", p.NS[1])
	ipCmd(t, "link", "add", p.Veth[0], "netns", p.NS[0], "type", "veth", "peer", "name", p.Veth[1], "netns", p.NS[1])
	if mtu == 0 {
		mtu = 1500
	}
	for i := range 2 {
		if err := Do(p.NS[i], func() error {
			// Best effort: the file is missing when the kernel has no IPv6.
			_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+p.Veth[i]+"/disable_ipv6", []byte("1"), 0o644)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ipCmd(t, "-n", p.NS[i], "link", "set", p.Veth[i], "mtu", fmt.Sprint(mtu), "up")
	}
	// Wait for both ends to report carrier (veth is up once both are).
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 2; {
		out, _ := exec.Command("ip", "-n", p.NS[i], "-o", "link", "show", p.Veth[i]).CombinedOutput()
		if strings.Contains(string(out), "LOWER_UP") {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come up: %s", p.Veth[i], out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

func ipCmd(t testing.TB, args ...string) {
	t.Helper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// Do runs fn on a locked OS thread that has entered network namespace ns
// (a name under /run/netns, as ip netns add makes). Sockets fn opens
// belong to ns and may be used from any goroutine afterwards. Goroutines
// fn starts run in the process's own namespace. The thread is discarded
// when fn returns.
func Do(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the goroutine's exit ends the thread, so no other
		// goroutine ever runs in ns.
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			errc <- err
			return
		}
		err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
		f.Close()
		if err != nil {
			errc <- fmt.Errorf("entering netns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Injector sends raw Ethernet frames out of one interface through an
// AF_PACKET socket. After Close every send fails with os.ErrClosed: a
// sender goroutine that outlives its test (one that failed) must not write
// to a descriptor number the process has since given to another file.
type Injector struct {
	mu   sync.RWMutex // held for reading while the descriptor is used
	fd   int          // -1 once closed
	msgs []unix.Mmsghdr
	iovs []unix.Iovec
}

// OpenInjector opens an injector on iface inside namespace ns.
func OpenInjector(ns, iface string) (*Injector, error) {
	in := &Injector{fd: -1}
	err := Do(ns, func() error {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0) // protocol 0: receives nothing
		if err != nil {
			return err
		}
		in.fd = fd
		if err := unix.Bind(fd, &unix.SockaddrLinklayer{Ifindex: ifi.Index}); err != nil {
			return err
		}
		// Straight to the driver: no qdisc drops, the way tcpreplay sends.
		_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_QDISC_BYPASS, 1)
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<20)
		return nil
	})
	if err != nil {
		if in.fd >= 0 {
			unix.Close(in.fd)
		}
		return nil, fmt.Errorf("injector on %s in %s: %w", iface, ns, err)
	}
	return in, nil
}

// Send sends one frame, retrying while the device is busy.
func (in *Injector) Send(frame []byte) error {
	in.mu.RLock()
	defer in.mu.RUnlock()
	if in.fd < 0 {
		return os.ErrClosed
	}
	for {
		_, err := unix.Write(in.fd, frame)
		if errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			time.Sleep(50 * time.Microsecond)
			continue
		}
		return err
	}
}

// SendBatch sends frames with as few system calls as it can (sendmmsg);
// it returns when all are sent or on the first hard error.
func (in *Injector) SendBatch(frames [][]byte) error {
	in.mu.Lock() // the message buffers are the injector's
	defer in.mu.Unlock()
	if in.fd < 0 {
		return os.ErrClosed
	}
	if cap(in.msgs) < len(frames) {
		in.msgs = make([]unix.Mmsghdr, len(frames))
		in.iovs = make([]unix.Iovec, len(frames))
	}
	msgs, iovs := in.msgs[:len(frames)], in.iovs[:len(frames)]
	for i, f := range frames {
		iovs[i] = unix.Iovec{Base: &f[0]}
		iovs[i].SetLen(len(f))
		msgs[i] = unix.Mmsghdr{Hdr: unix.Msghdr{Iov: &iovs[i], Iovlen: 1}}
	}
	for len(msgs) > 0 {
		n, _, e := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(in.fd), uintptr(unsafe.Pointer(&msgs[0])), uintptr(len(msgs)), 0, 0, 0)
		runtime.KeepAlive(frames)
		if e != 0 {
			if e == unix.ENOBUFS || e == unix.EAGAIN || e == unix.EINTR {
				time.Sleep(50 * time.Microsecond)
				continue
			}
			return e
		}
		msgs = msgs[n:]
	}
	return nil
}

// Replay sends frames keeping the gaps between their timestamps (tsNs):
// it sleeps through long gaps and spins through short ones, so that
// gaps of a few microseconds survive.
func (in *Injector) Replay(frames [][]byte, tsNs []int64) error {
	if len(frames) == 0 {
		return nil
	}
	start := time.Now()
	for i, f := range frames {
		due := start.Add(time.Duration(tsNs[i] - tsNs[0]))
		if d := time.Until(due); d > 2*time.Millisecond {
			time.Sleep(d - time.Millisecond)
		}
		for time.Now().Before(due) {
		}
		if err := in.Send(f); err != nil {
			return fmt.Errorf("sending frame %d: %w", i+1, err)
		}
	}
	return nil
}

// Close closes the socket; a second Close does nothing.
func (in *Injector) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.fd < 0 {
		return nil
	}
	err := unix.Close(in.fd)
	in.fd = -1
	return err
}

// DropNetRaw removes CAP_NET_RAW from the calling thread's effective
// capabilities. Call it inside Do: the thread is discarded afterwards, and
// no other thread is affected.
func DropNetRaw() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Effective &^= 1 << unix.CAP_NET_RAW
	return unix.Capset(&hdr, &data[0])
}
