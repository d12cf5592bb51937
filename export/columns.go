package export

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/export/internal/colenc"
)

// pageRows is the number of rows of a page set (a data page of every
// column).
const pageRows = colenc.PageRows

// Slots of the page set's typed planes (pageSet): every column's values
// are stored by row number in a plane of its type (a string column's
// dictionary indexes in an int32 plane), and the definition levels of
// optional columns in a plane shared by the columns that are null together
// (the fields of one header). packetColumns says which column is where.
const (
	i32File = iota
	i32Len
	i32CapLen
	i32Kind
	i32SrcMAC
	i32DstMAC
	i32VLANID
	i32VLANPCP
	i32SrcIP
	i32DstIP
	i32DSCP
	i32ECN
	i32TTL
	i32UDPSport
	i32UDPDport
	i32Opcode
	i32OpcodeName
	i32Transport
	i32Pad
	i32TVer
	i32PKey
	i32DstQPN
	i32PSN
	i32RETHRKey
	i32RETHLen
	i32AETHSyndrome
	i32AETHMSN
	i32DETHQKey
	i32DETHSrcQPN
	i32Imm
	i32IETHRKey
	i32XRCSRQ
	i32AtomicRKey
	i32PayloadLen
	i32ICRC
	i32ICRCStatus
	i32PFCEnable
	i32PauseQuanta
	i32Flow
	i32Encap
	i32CMAttr
	i32CMLocalCommID
	i32CMRemoteCommID
	i32CMLocalQPN
	i32Point  // capture point (--point)
	i32Events // the events mask (a set column)
	numI32
)

const (
	i64Frame = iota
	i64TsNs  // ts too: the same values
	i64RETHVA
	i64AtomicVA
	i64AtomicSwapAdd
	i64AtomicCompare
	i64AtomicAckOrig
	numI64
)

const (
	bSE = iota
	bMigReq
	bFECN
	bBECN
	bAckReq
	bTruncated
	bMalformed
	numBool
)

// Definition level planes (0 null, 1 present), one per group of optional
// columns that are null together.
const (
	dSrcMAC = iota
	dDstMAC
	dVLAN // vlan_id, vlan_pcp
	dSrcIP
	dDstIP
	dIP  // dscp, ecn, ttl
	dUDP // udp_sport, udp_dport
	dBTH // the BTH columns and icrc_status
	dRETH
	dAETH
	dDETH
	dImm
	dIETH
	dXRC
	dAtomic
	dAtomicAck
	dPayloadLen
	dICRC
	dPFC // pfc_enable, pfc_quanta
	dPause
	dFlow
	dEncap
	dCM
	dPoint // point
	dEvents
	numDef
)

// req is Column.Def of a required column.
const req = colenc.Required

// packetColumns returns the declarations of the leaf columns of
// packets.parquet, in schema order (PacketRow's fields; pfc_quanta is one leaf, its list element):
// the plane of each column's values (its slot, in the planes of its type),
// the plane of its definition levels, and how it is encoded. Adding a
// column is adding its PacketRow field, its slot above, a line here and
// its store in addRow (a string column's dictionary is also handed over
// in send).
//
// IntDict columns (few values: lengths, ports, header fields of a few
// values, for which bit-packed indexes are a fraction of the PLAIN or
// delta page, and leave the codec less to do) are dictionary-encoded while
// their chunk's dictionary holds at most colenc.IntDictMax (4096) values
// below 65536: udp_sport and dst_qpn, one value per connection and
// direction, stay dictionaries up to about 2000 connections a row group.
// Not tried: PSNs, ICRCs, keys, MSNs, CM ids (mostly distinct or wide
// values).
func packetColumns() []colenc.Column {
	return []colenc.Column{
		{Name: "frame", Slot: i64Frame, Def: req, Delta: true},
		{Name: "file", Slot: i32File, Def: req},
		{Name: "ts_ns", Slot: i64TsNs, Def: req, Delta: true},
		{Name: "ts", Alias: "ts_ns", Def: req},
		{Name: "len", Slot: i32Len, Def: req, IntDict: true},
		{Name: "caplen", Slot: i32CapLen, Def: req, IntDict: true},
		{Name: "kind", Slot: i32Kind, Def: req},
		{Name: "src_mac", Slot: i32SrcMAC, Def: dSrcMAC},
		{Name: "dst_mac", Slot: i32DstMAC, Def: dDstMAC},
		{Name: "vlan_id", Slot: i32VLANID, Def: dVLAN, IntDict: true},
		{Name: "vlan_pcp", Slot: i32VLANPCP, Def: dVLAN, IntDict: true},
		{Name: "src_ip", Slot: i32SrcIP, Def: dSrcIP},
		{Name: "dst_ip", Slot: i32DstIP, Def: dDstIP},
		{Name: "dscp", Slot: i32DSCP, Def: dIP, IntDict: true},
		{Name: "ecn", Slot: i32ECN, Def: dIP, IntDict: true},
		{Name: "ttl", Slot: i32TTL, Def: dIP, IntDict: true},
		{Name: "udp_sport", Slot: i32UDPSport, Def: dUDP, IntDict: true},
		{Name: "udp_dport", Slot: i32UDPDport, Def: dUDP, IntDict: true},
		{Name: "opcode", Slot: i32Opcode, Def: dBTH, IntDict: true},
		{Name: "opcode_name", Slot: i32OpcodeName, Def: dBTH},
		{Name: "transport", Slot: i32Transport, Def: dBTH},
		{Name: "se", Slot: bSE, Def: dBTH},
		{Name: "migreq", Slot: bMigReq, Def: dBTH},
		{Name: "pad", Slot: i32Pad, Def: dBTH, IntDict: true},
		{Name: "tver", Slot: i32TVer, Def: dBTH, IntDict: true},
		{Name: "pkey", Slot: i32PKey, Def: dBTH, IntDict: true},
		{Name: "fecn", Slot: bFECN, Def: dBTH},
		{Name: "becn", Slot: bBECN, Def: dBTH},
		{Name: "dst_qpn", Slot: i32DstQPN, Def: dBTH, IntDict: true},
		{Name: "ackreq", Slot: bAckReq, Def: dBTH},
		{Name: "psn", Slot: i32PSN, Def: dBTH, RawDelta: true},
		{Name: "reth_va", Slot: i64RETHVA, Def: dRETH},
		{Name: "reth_rkey", Slot: i32RETHRKey, Def: dRETH},
		{Name: "reth_len", Slot: i32RETHLen, Def: dRETH, IntDict: true},
		{Name: "aeth_syndrome", Slot: i32AETHSyndrome, Def: dAETH, IntDict: true},
		{Name: "aeth_msn", Slot: i32AETHMSN, Def: dAETH},
		{Name: "deth_qkey", Slot: i32DETHQKey, Def: dDETH},
		{Name: "deth_src_qpn", Slot: i32DETHSrcQPN, Def: dDETH},
		{Name: "imm", Slot: i32Imm, Def: dImm},
		{Name: "ieth_rkey", Slot: i32IETHRKey, Def: dIETH},
		{Name: "xrc_srq", Slot: i32XRCSRQ, Def: dXRC},
		{Name: "atomic_va", Slot: i64AtomicVA, Def: dAtomic},
		{Name: "atomic_rkey", Slot: i32AtomicRKey, Def: dAtomic},
		{Name: "atomic_swap_add", Slot: i64AtomicSwapAdd, Def: dAtomic},
		{Name: "atomic_compare", Slot: i64AtomicCompare, Def: dAtomic},
		{Name: "atomic_ack_orig", Slot: i64AtomicAckOrig, Def: dAtomicAck},
		{Name: "payload_len", Slot: i32PayloadLen, Def: dPayloadLen, IntDict: true},
		{Name: "icrc", Slot: i32ICRC, Def: dICRC},
		{Name: "icrc_status", Slot: i32ICRCStatus, Def: dBTH},
		{Name: "pfc_enable", Slot: i32PFCEnable, Def: dPFC},
		{Name: "pfc_quanta", Def: dPFC, List: 8}, // in pageSet's List
		{Name: "pause_quanta", Slot: i32PauseQuanta, Def: dPause},
		{Name: "flow", Slot: i32Flow, Def: dFlow},
		{Name: "truncated", Slot: bTruncated, Def: req},
		{Name: "malformed", Slot: bMalformed, Def: req},
		{Name: "encap", Slot: i32Encap, Def: dEncap},
		{Name: "cm_attr", Slot: i32CMAttr, Def: dCM},
		{Name: "cm_local_comm_id", Slot: i32CMLocalCommID, Def: dCM},
		{Name: "cm_remote_comm_id", Slot: i32CMRemoteCommID, Def: dCM},
		{Name: "cm_local_qpn", Slot: i32CMLocalQPN, Def: dCM},
		{Name: "point", Slot: i32Point, Def: dPoint},
		{Name: "events", Slot: i32Events, Def: dEvents, Set: true}, // a mask per row, names flows.EventMaskNames
	}
}

// packetLayout returns the layout of packets.parquet: the schema as
// parquet-go writes it for PacketRow (schema elements, column orders,
// created_by) with packetColumns. It is computed once, from the footer of
// an empty file written by parquet-go itself, so the schema cannot drift
// from PacketRow's tags.
var packetLayout = sync.OnceValues(func() (*colenc.Layout, error) {
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[PacketRow](&buf, parquet.CreatedBy("rocetrace", "", ""))
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("packets.parquet schema: %w", err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("packets.parquet schema: %w", err)
	}
	return colenc.NewLayout("packets.parquet", f.Metadata(), packetColumns(),
		colenc.Planes{Int32: numI32, Int64: numI64, Bool: numBool, Levels: numDef})
})

// pageSet is one page's worth of rows of every column (colenc.Pages), in
// planes of fixed size at fixed offsets: addRow's stores need no bounds
// or capacity checks.
type pageSet struct {
	i32   [numI32]colenc.Int32Plane // int32 values; string columns' dictionary indexes
	i64   [numI64]colenc.Int64Plane
	b     [numBool]colenc.BoolPlane // 0 or 1
	def   [numDef]colenc.LevelPlane
	pages colenc.Pages // rows, pfc_quanta's values (List: 8 per PFC row) and dictionaries
}

func newPageSet() *pageSet {
	s := new(pageSet)
	s.pages = colenc.NewPages(s.i32[:], s.i64[:], s.b[:], s.def[:])
	return s
}

// Pages returns the set's colenc.Pages.
func (s *pageSet) Pages() *colenc.Pages { return &s.pages }
