package layers

import (
	"encoding/binary"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// AtomicETH is the atomic extended transport header (28 bytes) of
// CmpSwap and FetchAdd requests.
type AtomicETH struct {
	gplayers.BaseLayer
	// AtomicETHFields are the header's fields, as in decode.Packet.
	decode.AtomicETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
}

// AtomicAckETH is the atomic acknowledge extended transport header (8
// bytes) of an ATOMIC Acknowledge.
type AtomicAckETH struct {
	gplayers.BaseLayer
	// AtomicAckETHFields is the header's field, as in decode.Packet:
	// AtomicAckOrig, the value the target held before the operation.
	decode.AtomicAckETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*AtomicETH)(nil)
	_ gopacket.SerializableLayer = (*AtomicETH)(nil)
	_ gopacket.DecodingLayer     = (*AtomicAckETH)(nil)
	_ gopacket.SerializableLayer = (*AtomicAckETH)(nil)
)

// LayerType returns LayerTypeAtomicETH.
func (a *AtomicETH) LayerType() gopacket.LayerType { return LayerTypeAtomicETH }

// CanDecode returns LayerTypeAtomicETH.
func (a *AtomicETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (a *AtomicETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(a.Next) }

func (a *AtomicETH) setNext(e decode.Ext) { a.Next = e }

// DecodeFromBytes decodes an AtomicETH from the start of data.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.AtomicETHLen {
		return errShort(df, "AtomicETH", decode.AtomicETHLen, len(data))
	}
	a.VA = binary.BigEndian.Uint64(data[0:8])
	a.RKey = binary.BigEndian.Uint32(data[8:12])
	a.SwapAdd = binary.BigEndian.Uint64(data[12:20])
	a.Compare = binary.BigEndian.Uint64(data[20:28])
	a.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.AtomicETHLen], Payload: data[decode.AtomicETHLen:]}
	return nil
}

// SerializeTo prepends the 28-byte header.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.AtomicETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(h[0:8], a.VA)
	binary.BigEndian.PutUint32(h[8:12], a.RKey)
	binary.BigEndian.PutUint64(h[12:20], a.SwapAdd)
	binary.BigEndian.PutUint64(h[20:28], a.Compare)
	return nil
}

// String renders the header for a packet tree.
func (a *AtomicETH) String() string {
	return "VA=" + hexDigits(a.VA, 16) + " RKey=" + hexDigits(uint64(a.RKey), 8) +
		" SwapAdd=" + hexDigits(a.SwapAdd, 16) + " Compare=" + hexDigits(a.Compare, 16)
}

func decodeAtomicETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AtomicETH{}, data, p)
}

// LayerType returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) LayerType() gopacket.LayerType { return LayerTypeAtomicAckETH }

// CanDecode returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicAckETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(a.Next) }

func (a *AtomicAckETH) setNext(e decode.Ext) { a.Next = e }

// DecodeFromBytes decodes an AtomicAckETH from the start of data.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.AtomicAckETHLen {
		return errShort(df, "AtomicAckETH", decode.AtomicAckETHLen, len(data))
	}
	a.AtomicAckOrig = binary.BigEndian.Uint64(data[0:8])
	a.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.AtomicAckETHLen], Payload: data[decode.AtomicAckETHLen:]}
	return nil
}

// SerializeTo prepends the 8-byte header.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.AtomicAckETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(h, a.AtomicAckOrig)
	return nil
}

// String renders the header for a packet tree.
func (a *AtomicAckETH) String() string {
	return "OrigRemoteData=" + hexDigits(a.AtomicAckOrig, 16)
}

func decodeAtomicAckETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AtomicAckETH{}, data, p)
}
