package layers

import (
	"encoding/binary"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// ImmDt is the immediate data extended transport header (4 bytes) of the
// "with Immediate" SEND and RDMA WRITE operations.
type ImmDt struct {
	gplayers.BaseLayer
	// ImmDtFields is the header's field, as in decode.Packet: Imm, the
	// immediate value, as the big-endian number on the wire.
	decode.ImmDtFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
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

func (i *ImmDt) setNext(e decode.Ext) { i.Next = e }

// DecodeFromBytes decodes an ImmDt from the start of data.
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.ImmDtLen {
		return errShort(df, "ImmDt", decode.ImmDtLen, len(data))
	}
	i.Imm = binary.BigEndian.Uint32(data[0:4])
	i.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.ImmDtLen], Payload: data[decode.ImmDtLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.ImmDtLen)
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
