package layers

import (
	"encoding/binary"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// IETH is the invalidate extended transport header (4 bytes) of SEND
// Last/Only with Invalidate.
type IETH struct {
	gplayers.BaseLayer
	// IETHFields is the header's field, as in decode.Packet: IETHRKey,
	// the remote key to invalidate.
	decode.IETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
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

func (i *IETH) setNext(e decode.Ext) { i.Next = e }

// DecodeFromBytes decodes an IETH from the start of data.
func (i *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.IETHLen {
		return errShort(df, "IETH", decode.IETHLen, len(data))
	}
	i.IETHRKey = binary.BigEndian.Uint32(data[0:4])
	i.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.IETHLen], Payload: data[decode.IETHLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (i *IETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.IETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h, i.IETHRKey)
	return nil
}

// String renders the header for a packet tree.
func (i *IETH) String() string { return "RKey=" + hexDigits(uint64(i.IETHRKey), 8) }

func decodeIETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&IETH{}, data, p)
}
