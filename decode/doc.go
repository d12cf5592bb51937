// Package decode is rocetrace's fast path: it turns capture records
// (pcapio.Record) into Packets, plain values holding every header field the
// analysis reads, and prints them (AppendSummary, AppendTree, AppendJSON;
// Decoder.TreeLines gives AppendTree's lines with the bytes each describes,
// for one frame shown: treelines.go).
// It also holds what describes RoCE traffic everywhere else: the opcode
// tables (Opcode, Ext), the AETH syndrome, the ICRC (ComputeICRC) and the
// header field structs (BTHFields, RETHFields, AETHFields, ...). Package
// layers wraps those same field structs in gopacket layers; decode itself
// does not use gopacket.
//
// # Link types
//
// Decoder.Decode understands these link types (pcapio.LinkType):
//
//   - LinkTypeEthernet: an Ethernet II frame.
//   - LinkTypeLinuxSLL: the 16-byte Linux cooked header (v1); its protocol
//     field is the EtherType, and its address, when 6 bytes long, is the
//     source MAC.
//   - LinkTypeLinuxSLL2: the 20-byte Linux cooked header (v2), likewise.
//   - LinkTypeRaw (101), and DLT_RAW as pcap files of some systems carry
//     it (LinkTypeRawDLT12, LinkTypeRawDLT14: tshark reads both as raw IP):
//     an IP packet, IPv4 or IPv6 by its version nibble.
//   - LinkTypeIPv4 (228) and LinkTypeIPv6 (229): an IPv4 or IPv6 packet (a
//     version that contradicts the link type is malformed).
//
// For the cooked headers and raw IP Packet.FrameLen is the length the frame
// would have with an (untagged) Ethernet header instead. A record of any other link type (ERF,
// for instance) decodes to KindOther with only its lengths set.
//
// After the link header come up to 8 VLAN tags (TPID 0x8100, 0x88A8 or
// 0x9100; the outermost one's PCP and VID are kept), then IPv4, IPv6 (its
// hop-by-hop, routing and destination options headers skipped) or MAC
// Control (EtherType 0x8808: PFC and PAUSE). An IPv4 fragment keeps its IP
// fields but not its transport header, and bytes past the IP packet's length
// (Ethernet padding, FCS) are ignored. A UDP datagram to the RoCE port
// (Config.RoCEPort, 4791 by default) is RoCEv2: the BTH, the extended
// headers its opcode calls for, the CM REQ or REP a UD SEND to QP1 carries,
// and the ICRC, checked when the datagram was captured whole.
//
// Nearly every frame of a RoCEv2 capture has one shape: Ethernet with at
// most one 802.1Q tag, IPv4 without options or IPv6 without extension
// headers, UDP to the RoCE port, a whole BTH and none, RETH, AETH or ImmDt
// of the extended headers. Decode takes such an Ethernet frame in one
// function (fastEthernet, fast.go) and sets the Packet exactly as the
// general path does; any other frame, and one malformed or cut inside those
// headers, takes the general path (TestFastPath, FuzzDecode compare them).
//
// # Encapsulations
//
// (The overlays are in overlay.go, RoCEv1 in roce1.go; see there for the
// exact rules.)
//
// Mirrored traffic arrives in GRE (version 0, with or without checksum, key
// and sequence number fields) as ERSPAN type I (protocol 0x88BE without a
// sequence number: no ERSPAN header), type II (0x88BE with a sequence
// number: an 8-byte header), type III (0x22EB: a 12-byte header, 8 more
// with the O bit) or transparent Ethernet bridging (0x6558). ERSPAN III's
// frame type is honoured: 0 an Ethernet frame, 2 an IP packet; any other
// stops (Packet.Stop, StopArg the type: the frame stays other, described by
// its outer headers). GRE protocol 0x0800 or 0x86DD carries an IP packet
// directly (EncapGREIP). UDP to the VXLAN port (Config.VXLANPort, 4789 by
// default; the RoCE port wins should they be equal) carries VXLAN and an
// Ethernet frame; UDP to 6081 Geneve (version 0, options skipped) and an
// Ethernet frame or an IP packet. An MPLS label stack (EtherType 0x8847 or
// 0x8848, up to 8 labels) is skipped to the IP packet after its bottom
// label (told by the version nibble; anything else stops); the frame itself
// stays the analysed frame and Encap is EncapMPLS unless a tunnel set it.
// The frame or packet inside is decoded through at most two levels of
// encapsulation. A Packet then describes the innermost frame: the outer
// headers' fields are cleared (a tunnel's UDP header too), Packet.Encap
// says how the frame was carried (the innermost encapsulation) and TunnelID
// its VNI, ERSPAN session or bottom MPLS label. An IP packet carried
// without Ethernet has the FrameLen of the same packet in an untagged
// Ethernet frame.
//
// RoCEv1 (EtherType 0x8915): the 40-byte GRH, then the BTH and the rest as
// in RoCEv2; the GIDs are SrcIP and DstIP (IPv6), IPVersion is 6, HasUDP is
// false and IsRoCEv1 true; the ICRC is checked by the RoCEv1 rule
// (ComputeICRCv1).
//
// Decoding never fails. What cannot be decoded leaves Packet.Kind ==
// KindOther; bytes that contradict themselves (a length beyond the frame, a
// wrong IP version, a MAC Control frame shorter on the wire than its
// opcode's parameters) set Packet.Malformed and Packet.Problem, and a
// malformed frame with a BTH has ICRCStatus ICRCMalformed (its ICRC is not
// checked); a capture cut short (snaplen) sets Packet.Truncated, and
// headers the cut left out are absent (Packet.Ext lists the extended
// headers decoded whole; the ICRC is ICRCUnchecked).
//
// # Who owns the bytes
//
// A record's Data belongs to the reader that produced it and is valid only
// until the reader's next Next. A Packet owns all its data: every field is a
// value (addresses are netip.Addr, MACs arrays, Problem a constant string),
// nothing in it points into the record, so a Packet may be kept, copied or
// handed to another goroutine after the record is gone. Decode and
// DecodeRecord replace all of the Packet and allocate nothing.
//
// The one exception is DecodeRecordDeferICRC: the IP packet it returns, for
// an ICRC check done later by FinishICRC, aliases rec.Data, so a caller that
// reads the next record first must check a copy. DecodeZeroedRecordDeferICRC
// is the same for a Packet that is already zero (a pipeline clears a batch
// of them at once): it writes only what is not zero.
//
// A Decoder keeps no state between frames, only scratch space, but it is not
// safe for concurrent use: give each goroutine its own. FinishICRC may run
// on any Decoder.
package decode
