package decode

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// IETH is the invalidate extended transport header (4 bytes) of SEND
// Last/Only with Invalidate.
type IETH struct {
	layers.BaseLayer
	// RKey is the remote key to invalidate.
	RKey uint32

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next Ext
}

var (
	_ gopacket.DecodingLayer     = (*IETH)(nil)
	_ gopacket.SerializableLayer = (*IETH)(nil)
)

// LayerType returns LayerTypeIETH.
func (i *IETH) LayerType() gopacket.LayerType { return LayerTypeIETH }

// CanDecode returns LayerTypeIETH.
func (i *IETH) CanDecode() gopacket.LayerClass { return LayerTypeIETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (i *IETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(i.Next) }

func (i *IETH) setNext(e Ext) { i.Next = e }

// DecodeFromBytes decodes an IETH from the start of data.
func (i *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < IETHLen {
		return errShort(df, "IETH", IETHLen, len(data))
	}
	i.RKey = binary.BigEndian.Uint32(data[0:4])
	i.BaseLayer = layers.BaseLayer{Contents: data[:IETHLen], Payload: data[IETHLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (i *IETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(IETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h, i.RKey)
	return nil
}

// String renders the header for a packet tree.
func (i *IETH) String() string { return "RKey=" + hexDigits(uint64(i.RKey), 8) }

func decodeIETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&IETH{}, data, p)
}
