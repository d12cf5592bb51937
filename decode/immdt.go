package decode

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// ImmDt is the immediate data extended transport header (4 bytes) of the
// "with Immediate" SEND and RDMA WRITE operations.
type ImmDt struct {
	layers.BaseLayer
	// Imm is the immediate value, as the big-endian number on the wire.
	Imm uint32

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next Ext
}

var (
	_ gopacket.DecodingLayer     = (*ImmDt)(nil)
	_ gopacket.SerializableLayer = (*ImmDt)(nil)
)

// LayerType returns LayerTypeImmDt.
func (i *ImmDt) LayerType() gopacket.LayerType { return LayerTypeImmDt }

// CanDecode returns LayerTypeImmDt.
func (i *ImmDt) CanDecode() gopacket.LayerClass { return LayerTypeImmDt }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (i *ImmDt) NextLayerType() gopacket.LayerType { return nextLayerAfter(i.Next) }

func (i *ImmDt) setNext(e Ext) { i.Next = e }

// DecodeFromBytes decodes an ImmDt from the start of data.
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < ImmDtLen {
		return errShort(df, "ImmDt", ImmDtLen, len(data))
	}
	i.Imm = binary.BigEndian.Uint32(data[0:4])
	i.BaseLayer = layers.BaseLayer{Contents: data[:ImmDtLen], Payload: data[ImmDtLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(ImmDtLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h, i.Imm)
	return nil
}

// String renders the header for a packet tree.
func (i *ImmDt) String() string { return "Imm=" + hexDigits(uint64(i.Imm), 8) }

func decodeImmDt(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&ImmDt{}, data, p)
}
