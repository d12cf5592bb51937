// Package capture is rocetrace's live capture: frames from a network
// interface (a switch's mirror port) as pcapio.Records, so that the same
// decode -> flows -> analysis loop runs on them as on a file, and a writer
// that records them as pcap or pcapng.
//
// On Linux, Open uses an AF_PACKET socket with a TPACKET_V3 memory-mapped
// ring: pure Go through golang.org/x/sys/unix, no cgo and no libpcap. The
// interface is put in promiscuous mode for the socket's lifetime. A
// classic BPF program (FilterProgram, assembled with golang.org/x/net/bpf)
// runs in the kernel so that only RoCEv2 (UDP to the RoCE port), MAC
// Control (PFC, PAUSE) and GRE/ERSPAN mirror frames are copied to the
// ring; Options.All keeps everything. Timestamps are nanoseconds: from the
// NIC when it stamps received frames (Open turns hardware receive
// timestamping on when the NIC offers it and it is off, and restores it on
// Close; such timestamps come from the NIC's clock, which PTP may or may
// not have disciplined), otherwise from the kernel. VLAN tags that the
// kernel or the NIC took out of a frame (VLAN acceleration) are put back,
// so records hold the frame as it was on the wire. The kernel's drop count
// (PACKET_STATISTICS) is in Stats.
//
// On other systems Open returns ErrNotSupported.
//
// Typical use:
//
//	src, err := capture.Open("eth1", capture.Options{RoCEPort: 4791})
//	if err != nil { ... }         // errors.Is: ErrNoInterface, ErrPermission, ErrNotSupported
//	defer src.Close()
//	go func() { <-ctx.Done(); src.Stop() }()
//	var rec pcapio.Record
//	for src.Next(&rec) == nil {   // io.EOF once stopped and drained
//		dec.DecodeRecord(&rec, &p) ...
//	}
//	drops := src.Stats().KernelDrops
package capture

import (
	"errors"
	"time"
)

// Options configures a live capture. The zero value captures what rocetrace
// analyses on UDP port 4791, whole frames, in promiscuous mode.
type Options struct {
	// RoCEPort is the UDP destination port the kernel filter keeps (0:
	// 4791).
	RoCEPort uint16
	// All disables the kernel filter: every frame reaches user space.
	All bool
	// Snaplen is the number of bytes kept of each frame (0:
	// DefaultSnaplen).
	Snaplen int
	// NoPromisc leaves the interface's promiscuous mode alone.
	NoPromisc bool
	// BufferSize is the size of the kernel ring in bytes (0:
	// DefaultBufferSize). A bigger ring rides out longer stalls of the
	// reader before the kernel drops frames.
	BufferSize int
	// BlockTimeout is how long the kernel holds a partly filled ring block
	// before handing it over (0: DefaultBlockTimeout). It bounds the delay
	// between a frame's arrival and Next returning it on a quiet link.
	BlockTimeout time.Duration
	// NoHardwareTimestamps keeps Open from turning on the NIC's receive
	// timestamping. Hardware timestamps are still used if something else
	// has turned it on.
	NoHardwareTimestamps bool
}

// Defaults.
const (
	DefaultBufferSize   = 256 << 20
	DefaultBlockTimeout = 10 * time.Millisecond
)

// Stats are a live capture's counters, cumulative since Open.
type Stats struct {
	// Received is the number of records Next has returned.
	Received uint64
	// KernelPackets is the number of frames the kernel filter accepted,
	// the dropped ones included (PACKET_STATISTICS tp_packets).
	KernelPackets uint64
	// KernelDrops is the number of accepted frames the kernel dropped
	// because the ring was full (PACKET_STATISTICS tp_drops). These frames
	// crossed the wire but are missing from the capture.
	KernelDrops uint64
	// FreezeQueue counts the times the ring was full (tp_freeze_q_cnt).
	FreezeQueue uint64
	// HardwareTimestamps is the number of received records stamped by the
	// NIC rather than by the kernel.
	HardwareTimestamps uint64
}

// Errors returned by Open (test with errors.Is).
var (
	// ErrNotSupported: this build has no live capture (not Linux).
	ErrNotSupported = errors.New("live capture is Linux-only")
	// ErrPermission: opening a packet socket was refused.
	ErrPermission = errors.New("permission denied: live capture needs CAP_NET_RAW (run as root, or: setcap cap_net_raw,cap_net_admin+ep rocetrace)")
	// ErrNoInterface: the interface does not exist.
	ErrNoInterface = errors.New("no such interface")
	// ErrInterfaceDown: the interface is not up.
	ErrInterfaceDown = errors.New("interface is down")
	// ErrLinkType: the interface is not Ethernet.
	ErrLinkType = errors.New("unsupported link type: live capture needs an Ethernet interface")
)
