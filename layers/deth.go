package layers

import (
	"encoding/binary"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// DETH is the datagram extended transport header (8 bytes) of UD packets.
type DETH struct {
	gplayers.BaseLayer
	// DETHFields are the header's fields, as in decode.Packet.
	decode.DETHFields
	// Resv8 is the reserved byte, kept for exact re-serialization.
	Resv8 uint8

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*DETH)(nil)
	_ gopacket.SerializableLayer = (*DETH)(nil)
)

// LayerType returns LayerTypeDETH.
func (d *DETH) LayerType() gopacket.LayerType { return LayerTypeDETH }

// CanDecode returns LayerTypeDETH.
func (d *DETH) CanDecode() gopacket.LayerClass { return LayerTypeDETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (d *DETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(d.Next) }

func (d *DETH) setNext(e decode.Ext) { d.Next = e }

// DecodeFromBytes decodes a DETH from the start of data.
func (d *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.DETHLen {
		return errShort(df, "DETH", decode.DETHLen, len(data))
	}
	d.QKey = binary.BigEndian.Uint32(data[0:4])
	d.Resv8 = data[4]
	d.SrcQP = wireGet24(data[5:8])
	d.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.DETHLen], Payload: data[decode.DETHLen:]}
	return nil
}

// SerializeTo prepends the 8-byte header.
func (d *DETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.DETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h[0:4], d.QKey)
	h[4] = d.Resv8
	wirePut24(h[5:8], d.SrcQP)
	return nil
}

// String renders the header for a packet tree.
func (d *DETH) String() string {
	return "QKey=" + hexDigits(uint64(d.QKey), 8) + " SrcQP=" + hexDigits(uint64(d.SrcQP), 6)
}

func decodeDETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&DETH{}, data, p)
}
