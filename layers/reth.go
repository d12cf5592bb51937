package layers

import (
	"encoding/binary"
	"strconv"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// RETH is the RDMA extended transport header (16 bytes): the remote buffer
// of an RDMA WRITE First/Only or RDMA READ Request (also FLUSH and ATOMIC
// WRITE).
type RETH struct {
	gplayers.BaseLayer
	// RETHFields are the header's fields, as in decode.Packet.
	decode.RETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	// NextLayerType returns the first of them, or gopacket.LayerTypePayload.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*RETH)(nil)
	_ gopacket.SerializableLayer = (*RETH)(nil)
)

// LayerType returns LayerTypeRETH.
func (r *RETH) LayerType() gopacket.LayerType { return LayerTypeRETH }

// CanDecode returns LayerTypeRETH.
func (r *RETH) CanDecode() gopacket.LayerClass { return LayerTypeRETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (r *RETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(r.Next) }

func (r *RETH) setNext(e decode.Ext) { r.Next = e }

// DecodeFromBytes decodes a RETH from the start of data.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.RETHLen {
		return errShort(df, "RETH", decode.RETHLen, len(data))
	}
	r.VA = binary.BigEndian.Uint64(data[0:8])
	r.RKey = binary.BigEndian.Uint32(data[8:12])
	r.DMALen = binary.BigEndian.Uint32(data[12:16])
	r.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.RETHLen], Payload: data[decode.RETHLen:]}
	return nil
}

// SerializeTo prepends the 16-byte header.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.RETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(h[0:8], r.VA)
	binary.BigEndian.PutUint32(h[8:12], r.RKey)
	binary.BigEndian.PutUint32(h[12:16], r.DMALen)
	return nil
}

// String renders the header for a packet tree.
func (r *RETH) String() string {
	return "VA=" + hexDigits(r.VA, 16) + " RKey=" + hexDigits(uint64(r.RKey), 8) +
		" DMALen=" + strconv.FormatUint(uint64(r.DMALen), 10)
}

func decodeRETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&RETH{}, data, p)
}

// decodeExt is the registry decoder shared by the extended headers when they
// are decoded on their own (their Next is empty: the payload follows).
func decodeExt(l extLayer, data []byte, p gopacket.PacketBuilder) error {
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	return p.NextDecoder(l.NextLayerType())
}
