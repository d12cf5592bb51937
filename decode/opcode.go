package decode

import "strconv"

// Opcode is the 8-bit BTH OpCode: bits 7-5 select the transport, bits 4-0
// the operation.
type Opcode uint8

// Transport is the transport service selected by the top three bits of an
// Opcode.
type Transport uint8

// Transports, numbered as the top three opcode bits.
const (
	TransportRC  Transport = 0 // reliable connection
	TransportUC  Transport = 1 // unreliable connection
	TransportRD  Transport = 2 // reliable datagram
	TransportUD  Transport = 3 // unreliable datagram
	TransportCNP Transport = 4 // congestion notification (RoCEv2)
	TransportXRC Transport = 5 // extended reliable connection
)

// String returns the contract's transport name ("RC", "UC", ...).
func (t Transport) String() string {
	switch t {
	case TransportRC:
		return "RC"
	case TransportUC:
		return "UC"
	case TransportRD:
		return "RD"
	case TransportUD:
		return "UD"
	case TransportCNP:
		return "CNP"
	case TransportXRC:
		return "XRC"
	}
	return "RESERVED_" + strconv.Itoa(int(t))
}

// Operation codes (bits 4-0 of the OpCode), shared by every transport.
const (
	OpSendFirst              uint8  = 0x00
	OpSendMiddle             uint8  = 0x01
	OpSendLast               uint8  = 0x02
	OpSendLastImm            uint8  = 0x03
	OpSendOnly               uint8  = 0x04
	OpSendOnlyImm            uint8  = 0x05
	OpWriteFirst             uint8  = 0x06
	OpWriteMiddle            uint8  = 0x07
	OpWriteLast              uint8  = 0x08
	OpWriteLastImm           uint8  = 0x09
	OpWriteOnly              uint8  = 0x0A
	OpWriteOnlyImm           uint8  = 0x0B
	OpReadRequest            uint8  = 0x0C
	OpReadResponseFirst      uint8  = 0x0D
	OpReadResponseMiddle     uint8  = 0x0E
	OpReadResponseLast       uint8  = 0x0F
	OpReadResponseOnly       uint8  = 0x10
	OpAcknowledge            uint8  = 0x11
	OpAtomicAcknowledge      uint8  = 0x12
	OpCompareSwap            uint8  = 0x13
	OpFetchAdd               uint8  = 0x14
	OpResync                 uint8  = 0x15
	OpSendLastInvalidate     uint8  = 0x16
	OpSendOnlyInvalidate     uint8  = 0x17
	OpFlush                  uint8  = 0x1C
	OpAtomicWrite            uint8  = 0x1D
	opCount                         = 0x20
	OpcodeCNP                Opcode = 0x81
	OpcodeUDSendOnly         Opcode = 0x64
	OpcodeUDSendOnlyImm      Opcode = 0x65
	transportShift                  = 5
	operationMask            uint8  = 0x1F
	transportBaseRC                 = 0x00
	transportBaseUC                 = 0x20
	transportBaseRD                 = 0x40
	transportBaseUD                 = 0x60
	transportBaseXRC                = 0xA0
	opcodeNamePrefixReserved        = "RESERVED_0x"
)

// Transport returns the transport encoded in the top three bits.
func (o Opcode) Transport() Transport { return Transport(uint8(o) >> transportShift) }

// Operation returns the low five bits (the operation within the transport).
func (o Opcode) Operation() uint8 { return uint8(o) & operationMask }

// Ext is a bit set of extended transport headers.
type Ext uint16

// Extended headers, as bits of an Ext set.
const (
	ExtRETH Ext = 1 << iota
	ExtAETH
	ExtAtomicETH
	ExtAtomicAckETH
	ExtDETH
	ExtImmDt
	ExtIETH
	ExtXRCETH
	ExtCNP // the 16 reserved bytes that follow a CNP's BTH
)

// Extended header sizes in bytes.
const (
	BTHLen          = 12
	RETHLen         = 16
	AETHLen         = 4
	AtomicETHLen    = 28
	AtomicAckETHLen = 8
	DETHLen         = 8
	ImmDtLen        = 4
	IETHLen         = 4
	XRCETHLen       = 4
	CNPPadLen       = 16
	ICRCLen         = 4
)

// opInfo describes one operation: its name and the headers that follow BTH
// (besides XRCETH/DETH, which the transport adds).
type opInfo struct {
	name string
	ext  Ext
}

// operations lists the operations defined for RC/UC/RD/XRC, by low five bits.
var operations = [opCount]opInfo{
	OpSendFirst:          {"SEND_FIRST", 0},
	OpSendMiddle:         {"SEND_MIDDLE", 0},
	OpSendLast:           {"SEND_LAST", 0},
	OpSendLastImm:        {"SEND_LAST_WITH_IMMEDIATE", ExtImmDt},
	OpSendOnly:           {"SEND_ONLY", 0},
	OpSendOnlyImm:        {"SEND_ONLY_WITH_IMMEDIATE", ExtImmDt},
	OpWriteFirst:         {"RDMA_WRITE_FIRST", ExtRETH},
	OpWriteMiddle:        {"RDMA_WRITE_MIDDLE", 0},
	OpWriteLast:          {"RDMA_WRITE_LAST", 0},
	OpWriteLastImm:       {"RDMA_WRITE_LAST_WITH_IMMEDIATE", ExtImmDt},
	OpWriteOnly:          {"RDMA_WRITE_ONLY", ExtRETH},
	OpWriteOnlyImm:       {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", ExtRETH | ExtImmDt},
	OpReadRequest:        {"RDMA_READ_REQUEST", ExtRETH},
	OpReadResponseFirst:  {"RDMA_READ_RESPONSE_FIRST", ExtAETH},
	OpReadResponseMiddle: {"RDMA_READ_RESPONSE_MIDDLE", 0},
	OpReadResponseLast:   {"RDMA_READ_RESPONSE_LAST", ExtAETH},
	OpReadResponseOnly:   {"RDMA_READ_RESPONSE_ONLY", ExtAETH},
	OpAcknowledge:        {"ACKNOWLEDGE", ExtAETH},
	OpAtomicAcknowledge:  {"ATOMIC_ACKNOWLEDGE", ExtAETH | ExtAtomicAckETH},
	OpCompareSwap:        {"COMPARE_SWAP", ExtAtomicETH},
	OpFetchAdd:           {"FETCH_ADD", ExtAtomicETH},
	OpResync:             {"RESYNC", 0},
	OpSendLastInvalidate: {"SEND_LAST_WITH_INVALIDATE", ExtIETH},
	OpSendOnlyInvalidate: {"SEND_ONLY_WITH_INVALIDATE", ExtIETH},
	OpFlush:              {"FLUSH", ExtRETH},
	OpAtomicWrite:        {"ATOMIC_WRITE", ExtRETH},
}

// opcodeNames holds the full name of every defined opcode ("RC_SEND_FIRST",
// "CNP", ...), and "" for reserved ones. Built once; read-only afterwards.
var opcodeNames = func() (n [256]string) {
	for op := range opCount {
		info := operations[op]
		if info.name == "" {
			continue
		}
		for _, t := range []Transport{TransportRC, TransportUC, TransportRD, TransportXRC} {
			o := Opcode(uint8(t)<<transportShift | uint8(op))
			if o.Defined() {
				n[o] = t.String() + "_" + info.name
			}
		}
	}
	n[OpcodeUDSendOnly] = "UD_SEND_ONLY"
	n[OpcodeUDSendOnlyImm] = "UD_SEND_ONLY_WITH_IMMEDIATE"
	n[OpcodeCNP] = "CNP"
	return n
}()

// Defined reports whether the opcode is assigned by the specification (IBA
// Vol. 1 table 38 and Annex A17 for CNP).
func (o Opcode) Defined() bool {
	op := o.Operation()
	switch o.Transport() {
	case TransportRC:
		return operations[op].name != ""
	case TransportUC:
		// UC has SEND and RDMA WRITE only, plus SEND with Invalidate is RC/XRC only.
		return op <= OpWriteOnlyImm
	case TransportRD:
		// RD has every RC operation except invalidate/flush/atomic write, plus RESYNC.
		return op <= OpResync
	case TransportUD:
		return o == OpcodeUDSendOnly || o == OpcodeUDSendOnlyImm
	case TransportCNP:
		return o == OpcodeCNP
	case TransportXRC:
		return operations[op].name != "" && op != OpResync
	}
	return false
}

// String returns the opcode's contract name, e.g. "RC_RDMA_WRITE_FIRST",
// "UD_SEND_ONLY" or "CNP"; reserved opcodes are "RESERVED_0xNN".
func (o Opcode) String() string {
	if n := opcodeNames[o]; n != "" {
		return n
	}
	return opcodeNamePrefixReserved + strconv.FormatUint(uint64(o)|0x100, 16)[1:]
}

// ExtHeaders returns the extended headers that follow the BTH for this
// opcode, in wire order: XRCETH (XRC) or RDETH/DETH (RD/UD) first, then the
// operation's headers. Reserved opcodes have none.
func (o Opcode) ExtHeaders() Ext {
	if !o.Defined() {
		return 0
	}
	switch o.Transport() {
	case TransportUD:
		e := ExtDETH
		if o == OpcodeUDSendOnlyImm {
			e |= ExtImmDt
		}
		return e
	case TransportCNP:
		return ExtCNP
	case TransportXRC:
		return ExtXRCETH | operations[o.Operation()].ext
	case TransportRD:
		// RD carries RDETH (4 B) and DETH; rocetrace decodes RD as far as BTH only.
		return 0
	}
	return operations[o.Operation()].ext
}

// IsRequest reports whether the opcode is sent by a requester (consumes
// request PSNs), as opposed to a responder's ACK or READ response.
func (o Opcode) IsRequest() bool {
	switch o.Transport() {
	case TransportRC, TransportUC, TransportXRC, TransportUD:
	default:
		return false
	}
	op := o.Operation()
	return !(op >= OpReadResponseFirst && op <= OpAtomicAcknowledge)
}

// IsReadResponse reports whether the opcode is an RDMA READ Response.
func (o Opcode) IsReadResponse() bool {
	t := o.Transport()
	op := o.Operation()
	return (t == TransportRC || t == TransportXRC) && op >= OpReadResponseFirst && op <= OpReadResponseOnly
}

// IsAck reports whether the opcode is an Acknowledge or ATOMIC Acknowledge.
func (o Opcode) IsAck() bool {
	t := o.Transport()
	op := o.Operation()
	return (t == TransportRC || t == TransportXRC) && (op == OpAcknowledge || op == OpAtomicAcknowledge)
}

// ExtLen returns the total length in bytes of the extended headers in e.
func (e Ext) ExtLen() int {
	n := 0
	if e&ExtXRCETH != 0 {
		n += XRCETHLen
	}
	if e&ExtDETH != 0 {
		n += DETHLen
	}
	if e&ExtRETH != 0 {
		n += RETHLen
	}
	if e&ExtAETH != 0 {
		n += AETHLen
	}
	if e&ExtAtomicETH != 0 {
		n += AtomicETHLen
	}
	if e&ExtAtomicAckETH != 0 {
		n += AtomicAckETHLen
	}
	if e&ExtImmDt != 0 {
		n += ImmDtLen
	}
	if e&ExtIETH != 0 {
		n += IETHLen
	}
	if e&ExtCNP != 0 {
		n += CNPPadLen
	}
	return n
}
