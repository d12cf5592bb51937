package layers

import (
	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// XRCETH is the XRC extended transport header (4 bytes) that follows the
// BTH of every XRC packet.
type XRCETH struct {
	gplayers.BaseLayer
	// Resv8 is the reserved byte, kept for exact re-serialization.
	Resv8 uint8
	// XRCETHFields is the header's field, as in decode.Packet: XRCSRQ, the
	// XRC shared receive queue number (24 bits).
	decode.XRCETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*XRCETH)(nil)
	_ gopacket.SerializableLayer = (*XRCETH)(nil)
)

// LayerType returns LayerTypeXRCETH.
func (x *XRCETH) LayerType() gopacket.LayerType { return LayerTypeXRCETH }

// CanDecode returns LayerTypeXRCETH.
func (x *XRCETH) CanDecode() gopacket.LayerClass { return LayerTypeXRCETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (x *XRCETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(x.Next) }

func (x *XRCETH) setNext(e decode.Ext) { x.Next = e }

// DecodeFromBytes decodes an XRCETH from the start of data.
func (x *XRCETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.XRCETHLen {
		return errShort(df, "XRCETH", decode.XRCETHLen, len(data))
	}
	x.Resv8 = data[0]
	x.XRCSRQ = wireGet24(data[1:4])
	x.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.XRCETHLen], Payload: data[decode.XRCETHLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (x *XRCETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.XRCETHLen)
	if err != nil {
		return err
	}
	h[0] = x.Resv8
	wirePut24(h[1:4], x.XRCSRQ)
	return nil
}

// String renders the header for a packet tree.
func (x *XRCETH) String() string { return "XRCSRQ=" + hexDigits(uint64(x.XRCSRQ), 6) }

func decodeXRCETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&XRCETH{}, data, p)
}
