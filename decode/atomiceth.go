package decode

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// AtomicETH is the atomic extended transport header (28 bytes) of
// CmpSwap and FetchAdd requests.
type AtomicETH struct {
	layers.BaseLayer
	// VA is the remote virtual address of the 8-byte operand.
	VA uint64
	// RKey is the remote key of the memory region.
	RKey uint32
	// SwapAdd is the swap value (CmpSwap) or the addend (FetchAdd).
	SwapAdd uint64
	// Compare is the compare value (CmpSwap).
	Compare uint64

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next Ext
}

// AtomicAckETH is the atomic acknowledge extended transport header (8
// bytes) of an ATOMIC Acknowledge.
type AtomicAckETH struct {
	layers.BaseLayer
	// OrigRemoteData is the value the target held before the operation.
	OrigRemoteData uint64

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next Ext
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

func (a *AtomicETH) setNext(e Ext) { a.Next = e }

// DecodeFromBytes decodes an AtomicETH from the start of data.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicETHLen {
		return errShort(df, "AtomicETH", AtomicETHLen, len(data))
	}
	a.VA = binary.BigEndian.Uint64(data[0:8])
	a.RKey = binary.BigEndian.Uint32(data[8:12])
	a.SwapAdd = binary.BigEndian.Uint64(data[12:20])
	a.Compare = binary.BigEndian.Uint64(data[20:28])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicETHLen], Payload: data[AtomicETHLen:]}
	return nil
}

// SerializeTo prepends the 28-byte header.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(AtomicETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(h[0:8], a.VA)
	binary.BigEndian.PutUint32(h[8:12], a.RKey)
	binary.BigEndian.PutUint64(h[12:20], a.SwapAdd)
	binary.BigEndian.PutUint64(h[20:28], a.Compare)
	return nil
}

// Fields returns the header as the plain value stored in Packet.
func (a *AtomicETH) Fields() AtomicETHFields {
	return AtomicETHFields{VA: a.VA, RKey: a.RKey, SwapAdd: a.SwapAdd, Compare: a.Compare}
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

func (a *AtomicAckETH) setNext(e Ext) { a.Next = e }

// DecodeFromBytes decodes an AtomicAckETH from the start of data.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicAckETHLen {
		return errShort(df, "AtomicAckETH", AtomicAckETHLen, len(data))
	}
	a.OrigRemoteData = binary.BigEndian.Uint64(data[0:8])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicAckETHLen], Payload: data[AtomicAckETHLen:]}
	return nil
}

// SerializeTo prepends the 8-byte header.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(AtomicAckETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(h, a.OrigRemoteData)
	return nil
}

// String renders the header for a packet tree.
func (a *AtomicAckETH) String() string {
	return "OrigRemoteData=" + hexDigits(a.OrigRemoteData, 16)
}

func decodeAtomicAckETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AtomicAckETH{}, data, p)
}
