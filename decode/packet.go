package decode

import (
	"net/netip"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Kind classifies a frame for counting and analysis.
type Kind uint8

// Frame kinds, as in docs/interface.md ("roce", "cnp", "pfc", "pause", "other").
const (
	KindOther Kind = iota // anything else, including RoCE cut inside its BTH
	KindRoCE              // a whole BTH on the RoCE UDP port (not a CNP)
	KindCNP               // BTH opcode 0x81
	KindPFC               // MAC Control opcode 0x0101
	KindPause             // MAC Control opcode 0x0001 (802.3x)
)

// String returns the contract name of the kind.
func (k Kind) String() string {
	switch k {
	case KindRoCE:
		return "roce"
	case KindCNP:
		return "cnp"
	case KindPFC:
		return "pfc"
	case KindPause:
		return "pause"
	case KindOther:
		return "other"
	}
	return "other"
}

// ICRCStatus is the outcome of checking a RoCE frame's invariant CRC.
type ICRCStatus uint8

// ICRC outcomes.
const (
	ICRCUnchecked ICRCStatus = iota // frame cut too short by the capture (or not RoCE)
	ICRCOK
	ICRCBad
	ICRCMalformed // the frame is malformed (Packet.Malformed): its ICRC is not checked
)

// String returns "ok", "bad", "unchecked" or "malformed".
func (s ICRCStatus) String() string {
	switch s {
	case ICRCOK:
		return "ok"
	case ICRCBad:
		return "bad"
	case ICRCMalformed:
		return "malformed"
	case ICRCUnchecked:
		return "unchecked"
	}
	return "unchecked"
}

// Checked reports whether the ICRC was checked (ok or bad): Packet.ICRC is
// then the stored ICRC.
func (s ICRCStatus) Checked() bool { return s == ICRCOK || s == ICRCBad }

// Encap records the mirror encapsulation a frame arrived in.
type Encap uint8

// Encapsulations.
const (
	EncapNone      Encap = iota
	EncapERSPAN1         // GRE 0x88BE without sequence number: no ERSPAN header
	EncapERSPAN2         // GRE 0x88BE with sequence number, 8-byte ERSPAN II header
	EncapERSPAN3         // GRE 0x22EB, 12-byte ERSPAN III header (+8 with O bit)
	EncapGREBridge       // GRE 0x6558, transparent Ethernet bridging
	EncapVXLAN           // UDP to the VXLAN port (4789): 8-byte VXLAN header, Ethernet inside
	EncapGeneve          // UDP 6081: Geneve header and options, Ethernet or IP inside
	EncapGREIP           // GRE 0x0800 or 0x86DD: an IP packet directly inside
	EncapMPLS            // an MPLS label stack (EtherType 0x8847 or 0x8848) before the IP header
)

// String names the encapsulation.
func (e Encap) String() string {
	switch e {
	case EncapERSPAN1:
		return "ERSPAN-I"
	case EncapERSPAN2:
		return "ERSPAN-II"
	case EncapERSPAN3:
		return "ERSPAN-III"
	case EncapGREBridge:
		return "GRE-TEB"
	case EncapVXLAN:
		return "VXLAN"
	case EncapGeneve:
		return "Geneve"
	case EncapGREIP:
		return "GRE-IP"
	case EncapMPLS:
		return "MPLS"
	case EncapNone:
		return ""
	}
	return ""
}

// BTHFields is the decoded base transport header (its reserved bits
// left out).
type BTHFields struct {
	Opcode Opcode // transport (bits 7-5) and operation (bits 4-0)
	SE     bool   // solicited event
	MigReq bool   // migration state (M)
	Pad    uint8  // PadCnt, 0-3: zero bytes between the payload and the ICRC
	TVer   uint8  // transport header version (0)
	PKey   uint16 // partition key
	FECN   bool   // forward explicit congestion notification
	BECN   bool   // backward explicit congestion notification (set on CNPs)
	DestQP uint32 // 24 bits: destination queue pair
	AckReq bool   // asks the responder to acknowledge this packet
	PSN    uint32 // 24 bits: packet sequence number
}

// RETHFields is the RDMA extended transport header.
type RETHFields struct {
	VA     uint64 // remote virtual address
	RKey   uint32 // remote key of the memory region
	DMALen uint32 // length of the whole transfer in bytes
}

// AETHFields is the ACK extended transport header.
type AETHFields struct {
	Syndrome Syndrome
	MSN      uint32 // 24 bits
}

// DETHFields is the datagram extended transport header.
type DETHFields struct {
	QKey  uint32 // queue key
	SrcQP uint32 // 24 bits: source queue pair
}

// CM attribute IDs (IBA Vol. 1 §12.6): the messages that name QPNs.
const (
	CMAttrREQ uint16 = 0x0010 // ConnectRequest
	CMAttrREP uint16 = 0x0013 // ConnectReply
)

// CMFields is what rocetrace reads of a CM REQ or REP: enough to pair the
// two QPs of a connection.
type CMFields struct {
	Attr         uint16 // CMAttrREQ, CMAttrREP, or 0 (none)
	LocalCommID  uint32
	RemoteCommID uint32 // REP only
	LocalQPN     uint32 // 24 bits: the sender's QP
}

// AtomicETHFields is the atomic extended transport header.
type AtomicETHFields struct {
	VA      uint64 // remote virtual address of the 8-byte operand
	RKey    uint32 // remote key of the memory region
	SwapAdd uint64 // swap value (CmpSwap) or addend (FetchAdd)
	Compare uint64 // compare value (CmpSwap)
}

// AtomicAckETHFields is the atomic acknowledge extended transport header.
type AtomicAckETHFields struct {
	AtomicAckOrig uint64 // OrigRemoteData: the value the target held before the operation
}

// ImmDtFields is the immediate data extended transport header.
type ImmDtFields struct {
	Imm uint32 // the immediate value, as the big-endian number on the wire
}

// IETHFields is the invalidate extended transport header.
type IETHFields struct {
	IETHRKey uint32 // the remote key to invalidate
}

// XRCETHFields is the XRC extended transport header.
type XRCETHFields struct {
	XRCSRQ uint32 // 24 bits: the XRC shared receive queue
}

// MACControlFields is what rocetrace reads of an 802.3 MAC Control frame:
// the parameters of 802.1Qbb PFC and of 802.3x PAUSE.
type MACControlFields struct {
	PFCEnable   uint16    // PFC class-enable vector (wire width: bit n of the low byte enables priority n)
	PFCQuanta   [8]uint16 // PFC time[0]..time[7], in quanta of 512 bit times
	PauseQuanta uint16    // 802.3x pause time, in quanta
}

// Packet is one captured frame, decoded into plain values. It owns all its
// data: nothing in it points into the buffer it was decoded from, so a
// caller may keep it after the next frame is read.
//
// Fields that do not apply are zero; Has* flags and the Ext set say which
// optional parts are present.
type Packet struct {
	// The fields are ordered so that those the analysis reads for every
	// frame (flows and the capture counters), and those a pipeline's
	// consumer writes (the ICRC check's), share the first four cache
	// lines; the rest follows. A pipeline hands packets from one core to
	// another, and every line read there is a line moved between caches.

	File   int    // index of the capture file in the input list
	Frame  uint64 // 1-based record number within its file
	TsNs   int64  // capture timestamp, nanoseconds since the Unix epoch
	Len    int    // wire length of the captured record
	CapLen int    // captured length of the record

	Kind       Kind
	Truncated  bool // CapLen < Len
	Malformed  bool // bytes contradict themselves (see docs/interface.md)
	ICRCStatus ICRCStatus
	VLANCount  uint8 // tags seen on the analysed frame
	VLANPCP    uint8 // outermost tag's PCP
	DSCP       uint8
	ECN        uint8

	FrameLen int // wire length of the analysed (inner, for mirrors) Ethernet frame
	SrcMAC   [6]byte
	SrcPort  uint16
	SrcIP    netip.Addr
	DstIP    netip.Addr

	HasBTH bool
	Ext    Ext // extended headers decoded whole
	BTH    BTHFields
	RETH   RETHFields
	AETH   AETHFields
	DETH   DETHFields

	// PayloadLen is the RDMA payload length implied by the UDP length
	// (headers, pad and ICRC excluded), valid when HasPayloadLen.
	PayloadLen    int
	HasPayloadLen bool
	// VLAN2TCI is the second tag's TCI (PCP, DEI, VID) when VLANCount >= 2
	// (in a hole of the layout: the display filter's vlan.id matches any tag).
	VLAN2TCI uint16

	// CM is the connection-manager message a UD SEND to QP1 carries (a
	// MAD of management class 0x07), when its fixed fields were captured.
	CM CMFields

	ICRC uint32 // as stored on the wire (little-endian), valid when ICRCStatus.Checked()

	Offset  int64  // byte offset of the record in its file
	Problem string // why Malformed, or "" (a constant string: no allocation)
	Encap   Encap

	DstMAC    [6]byte
	HasMAC    bool
	VLANID    uint16 // outermost tag's VID
	EtherType uint16 // after VLAN tags

	IPVersion uint8 // 0 (none), 4 or 6
	TTL       uint8 // TTL or hop limit
	IPProto   uint8

	HasUDP  bool
	DstPort uint16
	UDPLen  uint16

	BTHCut   bool            // on the RoCE port, but the capture cut the frame inside the BTH
	LinkType pcapio.LinkType // link type the frame was decoded from (in a hole of the layout)

	// The headers of one field each, and MAC Control's parameters, are
	// embedded: their fields (AtomicAckOrig, Imm, IETHRKey, XRCSRQ,
	// PFCEnable, PFCQuanta, PauseQuanta) read as Packet's own.
	AtomicETH AtomicETHFields
	AtomicAckETHFields
	ImmDtFields
	IETHFields
	XRCETHFields

	MACControlFields

	// Overlays (decode/overlay.go), appended: TunnelID is the VXLAN or
	// Geneve VNI, the ERSPAN II/III session ID, or the bottom MPLS label
	// (Encap says which); MPLSLabels the depth of the label stack; Stop
	// why the decoder stopped short of a frame inside (StopNone: it did
	// not), StopArg its detail (the ERSPAN III frame type, say).
	TunnelID   uint32
	MPLSLabels uint8
	Stop       Stop
	StopArg    uint8
}

// IsRoCE reports whether the frame carries a whole BTH (a RoCE data/ACK frame
// or a CNP).
func (p *Packet) IsRoCE() bool { return p.Kind == KindRoCE || p.Kind == KindCNP }
