package decode

import (
	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// XRCETH is the XRC extended transport header (4 bytes) that follows the
// BTH of every XRC packet.
type XRCETH struct {
	layers.BaseLayer
	// Resv8 is the reserved byte, kept for exact re-serialization.
	Resv8 uint8
	// XRCSRQ is the XRC shared receive queue number (24 bits).
	XRCSRQ uint32

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next Ext
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

func (x *XRCETH) setNext(e Ext) { x.Next = e }

// DecodeFromBytes decodes an XRCETH from the start of data.
func (x *XRCETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < XRCETHLen {
		return errShort(df, "XRCETH", XRCETHLen, len(data))
	}
	x.Resv8 = data[0]
	x.XRCSRQ = wireGet24(data[1:4])
	x.BaseLayer = layers.BaseLayer{Contents: data[:XRCETHLen], Payload: data[XRCETHLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (x *XRCETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(XRCETHLen)
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
