//go:build linux

package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Source is a live capture on one interface. It implements
// pcapio.RecordSource. Next is meant for one reading goroutine; Stop,
// Stats and Close may be called from any goroutine.
type Source struct {
	iface   string
	ifindex int
	filter  string
	hwTs    bool
	lo      bool // loopback: skip the outgoing copy of each frame
	snaplen int

	mu        sync.Mutex // held by Next; Close takes it to unmap the ring
	ring      []byte
	blockSize int
	numBlocks int
	cur       int  // current block
	inBlock   bool // cur is ours (TP_STATUS_USER) and being read
	pkt, npkt uint32
	off       uint32 // offset in cur of the next packet header
	buf       []byte // frame with its VLAN tag put back
	frame     uint64
	unhooked  bool // after Stop: no longer receiving, draining the ring
	drainMs   int

	fd, efd  int
	stopReq  atomic.Bool
	closing  atomic.Bool
	received atomic.Uint64
	hwCount  atomic.Uint64

	statsMu sync.Mutex
	kstats  Stats // kernel counters accumulated (PACKET_STATISTICS resets them)
	closed  bool
	restore func()
}

var _ pcapio.RecordSource = (*Source)(nil)

// Offsets in the ring (linux/if_packet.h). A block starts with struct
// tpacket_block_desc (version, offset_to_priv, then tpacket_hdr_v1); each
// frame with struct tpacket3_hdr followed by a struct sockaddr_ll at
// TPACKET_ALIGN(sizeof(tpacket3_hdr)).
const (
	bdBlockStatus  = 8
	bdNumPkts      = 12
	bdFirstPkt     = 16
	sllOffset      = 48 // TPACKET_ALIGN(48)
	sllPktType     = 10
	packetOutgoing = 4 // PACKET_OUTGOING
)

// Open starts capturing on iface. See the package doc and Options.
func Open(iface string, opts Options) (*Source, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("capture on %s: %w (interfaces: %s)", iface, ErrNoInterface, interfaceNames())
	}
	if ifi.Flags&net.FlagUp == 0 {
		return nil, fmt.Errorf("capture on %s: %w", iface, ErrInterfaceDown)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0) // protocol 0: nothing arrives before bind
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("capture on %s: %w", iface, ErrPermission)
		}
		return nil, fmt.Errorf("capture on %s: packet socket: %w", iface, err)
	}
	s := &Source{iface: iface, ifindex: ifi.Index, fd: fd, efd: -1}
	if err := s.setup(ifi, opts); err != nil {
		s.release()
		return nil, fmt.Errorf("capture on %s: %w", iface, err)
	}
	return s, nil
}

// interfaceNames lists the interfaces for the "no such interface" error.
func interfaceNames() string {
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		return "none found"
	}
	names := make([]string, 0, len(ifs))
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (s *Source) setup(ifi *net.Interface, opts Options) error {
	fd := s.fd
	// Link type: Ethernet (and loopback, which carries Ethernet headers).
	ifr, err := unix.NewIfreq(ifi.Name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFHWADDR, ifr); err != nil {
		return fmt.Errorf("reading the link type: %w", err)
	}
	switch hw := ifr.Uint16(); hw {
	case unix.ARPHRD_ETHER:
	case unix.ARPHRD_LOOPBACK:
		s.lo = true
	default:
		return fmt.Errorf("%w (ARPHRD %d)", ErrLinkType, hw)
	}

	s.snaplen = opts.Snaplen
	if s.snaplen <= 0 {
		s.snaplen = DefaultSnaplen
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return fmt.Errorf("TPACKET_V3: %w", err)
	}
	// Ring geometry: power-of-two blocks that hold a whole snaplen frame.
	s.blockSize = 128 << 10
	for s.blockSize < s.snaplen+4096 && s.blockSize < 4<<20 {
		s.blockSize <<= 1
	}
	size := opts.BufferSize
	if size <= 0 {
		size = DefaultBufferSize
	}
	s.numBlocks = max(size/s.blockSize, 4)
	tov := opts.BlockTimeout
	if tov <= 0 {
		tov = DefaultBlockTimeout
	}
	tovMs := max(int(tov.Milliseconds()), 1)
	s.drainMs = 3*tovMs + 50
	const frameSize = 2048
	req := unix.TpacketReq3{
		Block_size:     uint32(s.blockSize),
		Block_nr:       uint32(s.numBlocks),
		Frame_size:     frameSize,
		Frame_nr:       uint32(s.blockSize / frameSize * s.numBlocks),
		Retire_blk_tov: uint32(tovMs),
	}
	if err := unix.SetsockoptTpacketReq3(fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return fmt.Errorf("ring of %d x %d bytes: %w", s.numBlocks, s.blockSize, err)
	}
	s.ring, err = unix.Mmap(fd, 0, s.blockSize*s.numBlocks, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mapping the ring: %w", err)
	}

	prog := FilterProgram(opts.RoCEPort, s.snaplen)
	s.filter = FilterDescription(opts.RoCEPort)
	if opts.All {
		prog = AcceptAllProgram(s.snaplen)
		s.filter = "none (--all)"
	}
	if err := attachFilter(fd, prog); err != nil {
		return fmt.Errorf("attaching the BPF filter: %w", err)
	}

	// Timestamps: the NIC's when the frame has one, else the kernel's.
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_TIMESTAMP, unix.SOF_TIMESTAMPING_RAW_HARDWARE); err != nil {
		return fmt.Errorf("PACKET_TIMESTAMP: %w", err)
	}
	if !opts.NoHardwareTimestamps {
		s.hwTs, s.restore = enableHardwareTimestamps(fd, ifi.Name)
	}

	if !opts.NoPromisc {
		mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}
		if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
			return fmt.Errorf("promiscuous mode: %w", err)
		}
	}
	s.efd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("eventfd: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		if errors.Is(err, unix.ENETDOWN) {
			return ErrInterfaceDown
		}
		return fmt.Errorf("bind: %w", err)
	}
	return nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// attachFilter assembles prog and attaches it to the socket.
func attachFilter(fd int, prog []bpf.Instruction) error {
	raw, err := assemble(prog)
	if err != nil {
		return err
	}
	filt := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filt[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filt)), Filter: &filt[0]}
	return unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fprog)
}

// enableHardwareTimestamps turns on the NIC's receive timestamping of all
// frames when the NIC offers it. It returns whether the NIC stamps
// received frames and how to undo the change (nil when nothing changed).
func enableHardwareTimestamps(fd int, name string) (bool, func()) {
	info, err := unix.IoctlGetEthtoolTsInfo(fd, name)
	if err != nil || info.So_timestamping&unix.SOF_TIMESTAMPING_RAW_HARDWARE == 0 ||
		info.Rx_filters&(1<<unix.HWTSTAMP_FILTER_ALL) == 0 {
		return false, nil
	}
	cur, err := unix.IoctlGetHwTstamp(fd, name)
	if err != nil {
		return false, nil
	}
	if cur.Rx_filter == unix.HWTSTAMP_FILTER_ALL {
		return true, nil
	}
	old := *cur
	want := *cur
	want.Rx_filter = unix.HWTSTAMP_FILTER_ALL
	if err := unix.IoctlSetHwTstamp(fd, name, &want); err != nil {
		return false, nil // needs CAP_NET_ADMIN; software timestamps then
	}
	return true, func() { _ = unix.IoctlSetHwTstamp(fd, name, &old) }
}

// Interface returns the interface name.
func (s *Source) Interface() string { return s.iface }

// Filter describes the kernel filter in words.
func (s *Source) Filter() string { return s.filter }

// HardwareTimestamping reports whether the NIC stamps received frames.
func (s *Source) HardwareTimestamping() bool { return s.hwTs }

// LinkType is the link type of every record (Ethernet).
func (s *Source) LinkType() pcapio.LinkType { return pcapio.LinkTypeEthernet }

func (s *Source) blockStatus(b int) *uint32 {
	return (*uint32)(unsafe.Pointer(&s.ring[b*s.blockSize+bdBlockStatus]))
}

// Next returns the next captured frame. It blocks until one arrives. After
// Stop it returns the frames the kernel had already accepted, then io.EOF;
// after Close, io.EOF at once. rec.Data is valid until the next call (it
// may point into the ring).
func (s *Source) Next(rec *pcapio.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.closing.Load() || s.ring == nil {
			return io.EOF
		}
		if s.inBlock {
			if s.pkt < s.npkt {
				if s.read(rec) {
					return nil
				}
				continue
			}
			atomic.StoreUint32(s.blockStatus(s.cur), unix.TP_STATUS_KERNEL)
			s.inBlock = false
			s.cur++
			if s.cur == s.numBlocks {
				s.cur = 0
			}
		}
		if atomic.LoadUint32(s.blockStatus(s.cur))&unix.TP_STATUS_USER != 0 {
			base := s.cur * s.blockSize
			s.npkt = ne.Uint32(s.ring[base+bdNumPkts:])
			s.off = ne.Uint32(s.ring[base+bdFirstPkt:])
			s.pkt = 0
			s.inBlock = true
			continue
		}
		if err := s.wait(); err != nil {
			return err
		}
	}
}

var (
	ne = binary.NativeEndian
	be = binary.BigEndian
)

// read fills rec from the current packet of the current block and moves
// on. It returns false for a frame it skips.
func (s *Source) read(rec *pcapio.Record) bool {
	base := s.cur * s.blockSize
	h := s.ring[base+int(s.off):]
	next := ne.Uint32(h[0:])
	sec := ne.Uint32(h[4:])
	nsec := ne.Uint32(h[8:])
	snap := int(ne.Uint32(h[12:]))
	wire := int(ne.Uint32(h[16:]))
	status := ne.Uint32(h[20:])
	mac := int(ne.Uint16(h[24:]))
	tci := uint16(ne.Uint32(h[32:]))
	tpid := ne.Uint16(h[36:])
	pktType := h[sllOffset+sllPktType]
	s.pkt++
	s.off += next
	if s.lo && pktType == packetOutgoing {
		return false // loopback frames show up twice: keep the incoming copy
	}
	data := h[mac : mac+snap : mac+snap]
	if status&unix.TP_STATUS_VLAN_VALID != 0 && snap >= 12 {
		if status&unix.TP_STATUS_VLAN_TPID_VALID == 0 || tpid == 0 {
			tpid = etherTypeVLAN
		}
		s.buf = append(s.buf[:0], data[:12]...)
		s.buf = be.AppendUint16(s.buf, tpid)
		s.buf = be.AppendUint16(s.buf, tci)
		s.buf = append(s.buf, data[12:]...)
		wire += 4
		n := min(len(s.buf), s.snaplen)
		data = s.buf[:n:n]
	}
	if status&unix.TP_STATUS_TS_RAW_HARDWARE != 0 {
		s.hwCount.Add(1)
	}
	s.frame++
	s.received.Add(1)
	*rec = pcapio.Record{
		Data:     data,
		TsNs:     int64(sec)*1_000_000_000 + int64(nsec),
		CapLen:   len(data),
		Len:      max(wire, len(data)),
		LinkType: pcapio.LinkTypeEthernet,
		Frame:    s.frame,
	}
	return true
}

// wait blocks until the ring may have a block for us, Stop or Close is
// called, or (after Stop) the ring stays empty for the drain time; then it
// returns io.EOF.
func (s *Source) wait() error {
	if s.stopReq.Load() && !s.unhooked {
		s.unhook()
	}
	timeout := -1
	if s.unhooked {
		timeout = s.drainMs
	}
	fds := []unix.PollFd{
		{Fd: int32(s.fd), Events: unix.POLLIN | unix.POLLERR},
		{Fd: int32(s.efd), Events: unix.POLLIN},
	}
	n, err := unix.Poll(fds, timeout)
	if errors.Is(err, unix.EINTR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("capture on %s: poll: %w", s.iface, err)
	}
	if n == 0 && s.unhooked && atomic.LoadUint32(s.blockStatus(s.cur))&unix.TP_STATUS_USER == 0 {
		return io.EOF
	}
	if fds[1].Revents&unix.POLLIN != 0 {
		var b [8]byte
		_, _ = unix.Read(s.efd, b[:])
	}
	if fds[0].Revents&unix.POLLERR != 0 {
		serr, gerr := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if gerr == nil && serr != 0 {
			e := unix.Errno(serr)
			if e == unix.ENETDOWN {
				return fmt.Errorf("capture on %s: %w", s.iface, ErrInterfaceDown)
			}
			return fmt.Errorf("capture on %s: %w", s.iface, e)
		}
	}
	return nil
}

// unhook stops the kernel from adding frames: with a filter that drops
// everything, the socket receives nothing more, while the frames already
// in the ring stay to be read (the kernel hands over the last partly
// filled block after the block timeout). Binding to protocol 0 would not
// do: bind keeps the socket's protocol when given 0.
func (s *Source) unhook() {
	s.unhooked = true
	_ = attachFilter(s.fd, []bpf.Instruction{bpf.RetConstant{Val: 0}})
}

// Stop ends the capture: the kernel accepts no more frames, and Next
// returns those it already accepted, then io.EOF. Stop returns at once and
// may be called from any goroutine, more than once.
func (s *Source) Stop() {
	if s.stopReq.Swap(true) {
		return
	}
	s.signal()
}

func (s *Source) signal() {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if !s.closed && s.efd >= 0 {
		var one [8]byte
		ne.PutUint64(one[:], 1)
		_, _ = unix.Write(s.efd, one[:])
	}
}

// Stats returns the counters so far. After Close it returns the final ones.
func (s *Source) Stats() Stats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if !s.closed {
		s.pollKernelStats()
	}
	st := s.kstats
	st.Received = s.received.Load()
	st.HardwareTimestamps = s.hwCount.Load()
	return st
}

// pollKernelStats adds the kernel's counters (reset by every read) to
// kstats. statsMu must be held.
func (s *Source) pollKernelStats() {
	ks, err := unix.GetsockoptTpacketStatsV3(s.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
	if err != nil {
		return
	}
	s.kstats.KernelPackets += uint64(ks.Packets)
	s.kstats.KernelDrops += uint64(ks.Drops)
	s.kstats.FreezeQueue += uint64(ks.Freeze_q_cnt)
}

// Close ends the capture at once (frames still in the ring are dropped;
// call Stop and read to io.EOF first to keep them), releases the ring and
// the socket, and restores the NIC's timestamping settings. A concurrent
// Next returns io.EOF. The last record's Data is invalid after Close.
func (s *Source) Close() error {
	if s.closing.Swap(true) {
		return nil
	}
	s.signal()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statsMu.Lock()
	s.pollKernelStats()
	s.closed = true
	s.statsMu.Unlock()
	return s.release()
}

// release frees everything Open set up.
func (s *Source) release() error {
	if s.restore != nil {
		s.restore()
		s.restore = nil
	}
	var err error
	if s.ring != nil {
		err = unix.Munmap(s.ring)
		s.ring = nil
	}
	if s.efd >= 0 {
		_ = unix.Close(s.efd)
		s.efd = -1
	}
	if s.fd >= 0 {
		if cerr := unix.Close(s.fd); err == nil {
			err = cerr
		}
		s.fd = -1
	}
	if err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}
