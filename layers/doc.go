// Package layers holds rocetrace's gopacket layers: the RoCEv2 headers (BTH
// and its extended headers XRCETH, DETH, RETH, AETH, AtomicETH,
// AtomicAckETH, ImmDt, IETH, and the CNP body), 802.3 MAC Control (PFC,
// PAUSE), ERSPAN type III and the Linux cooked v2 header (SLL2), with the
// layer types, EtherTypes, UDP port and link type they are registered under
// in gopacket's tables (layertypes.go; importing the package registers
// them).
//
// The layers decode and serialize frames for gopacket users, for building
// test and demo captures (internal/synth) and for checking rocetrace's own
// decoder: each header layer embeds the field struct of package decode that
// decode.Packet holds (BTH embeds decode.BTHFields, AETH decode.AETHFields,
// MACControl decode.MACControlFields, ...), adding only what the fast path
// does not keep (reserved bits, for exact re-serialization, and the links of
// the header chain). FuzzLayersMatchDecoder checks that both read every
// field alike.
//
// See BTH for how the header chain that follows a BTH is decoded with
// gopacket.NewPacket, a gopacket.DecodingLayerParser (ExtLayers) or by hand.
package layers
