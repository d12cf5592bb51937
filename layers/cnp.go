package layers

import (
	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// CNP is the body of a RoCEv2 congestion notification packet (BTH opcode
// 0x81): 16 reserved bytes between the BTH and the ICRC (Annex A17.9). The
// reaction point's QP is the BTH's DestQP, and the BTH has BECN set.
type CNP struct {
	gplayers.BaseLayer
	// Reserved holds the 16 reserved bytes (zero on the wire).
	Reserved [decode.CNPPadLen]byte

	// Next is the set of extended headers that follow this one (not a wire
	// field; always empty for a CNP): NextLayerType returns
	// gopacket.LayerTypePayload, which finds no bytes in a well-formed CNP.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*CNP)(nil)
	_ gopacket.SerializableLayer = (*CNP)(nil)
)

// LayerType returns LayerTypeCNP.
func (c *CNP) LayerType() gopacket.LayerType { return LayerTypeCNP }

// CanDecode returns LayerTypeCNP.
func (c *CNP) CanDecode() gopacket.LayerClass { return LayerTypeCNP }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (c *CNP) NextLayerType() gopacket.LayerType { return nextLayerAfter(c.Next) }

func (c *CNP) setNext(e decode.Ext) { c.Next = e }

// DecodeFromBytes decodes the 16 reserved bytes from the start of data.
func (c *CNP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.CNPPadLen {
		return errShort(df, "CNP", decode.CNPPadLen, len(data))
	}
	copy(c.Reserved[:], data[:decode.CNPPadLen])
	c.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.CNPPadLen], Payload: data[decode.CNPPadLen:]}
	return nil
}

// SerializeTo prepends the 16 reserved bytes.
func (c *CNP) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.CNPPadLen)
	if err != nil {
		return err
	}
	copy(h, c.Reserved[:])
	return nil
}

// String renders the layer for a packet tree.
func (c *CNP) String() string {
	for _, v := range c.Reserved {
		if v != 0 {
			return "Reserved=" + hexBytes(c.Reserved[:])
		}
	}
	return "Reserved=0"
}

func decodeCNP(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&CNP{}, data, p)
}

// hexBytes formats b as lower-case hex digits.
func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 0, 2*len(b))
	for _, v := range b {
		s = append(s, digits[v>>4], digits[v&15])
	}
	return string(s)
}
