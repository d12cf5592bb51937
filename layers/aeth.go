package layers

import (
	"strconv"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// AETH is the ACK extended transport header (4 bytes) of Acknowledge,
// ATOMIC Acknowledge and RDMA READ Response First/Last/Only packets.
type AETH struct {
	gplayers.BaseLayer
	// AETHFields are the header's fields, as in decode.Packet. The
	// Syndrome says ACK (with credits), RNR NAK (with a timer) or NAK (with
	// a code); Describe spells it out.
	decode.AETHFields

	// Next is the set of extended headers that follow this one (not a wire
	// field): decodeBTH, BTH.Link and ExtLayers set it from the opcode.
	Next decode.Ext
}

var (
	_ gopacket.DecodingLayer     = (*AETH)(nil)
	_ gopacket.SerializableLayer = (*AETH)(nil)
)

// LayerType returns LayerTypeAETH.
func (a *AETH) LayerType() gopacket.LayerType { return LayerTypeAETH }

// CanDecode returns LayerTypeAETH.
func (a *AETH) CanDecode() gopacket.LayerClass { return LayerTypeAETH }

// NextLayerType returns the layer type of the first header in Next, or
// gopacket.LayerTypePayload.
func (a *AETH) NextLayerType() gopacket.LayerType { return nextLayerAfter(a.Next) }

func (a *AETH) setNext(e decode.Ext) { a.Next = e }

// DecodeFromBytes decodes an AETH from the start of data.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.AETHLen {
		return errShort(df, "AETH", decode.AETHLen, len(data))
	}
	a.Syndrome = decode.Syndrome(data[0])
	a.MSN = wireGet24(data[1:4])
	a.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.AETHLen], Payload: data[decode.AETHLen:]}
	return nil
}

// SerializeTo prepends the 4-byte header.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(decode.AETHLen)
	if err != nil {
		return err
	}
	h[0] = byte(a.Syndrome)
	wirePut24(h[1:4], a.MSN)
	return nil
}

// Describe spells out the syndrome: "ACK credits=31",
// "RNR NAK timer=14 (1.28 ms)", "NAK PSN_SEQUENCE_ERROR", or
// "RESERVED 0x45" for the reserved kind.
func (a *AETH) Describe() string { return describeSyndrome(a.Syndrome) }

// String renders the header for a packet tree.
func (a *AETH) String() string {
	return "Syndrome=" + hexDigits(uint64(a.Syndrome), 2) + "(" + a.Describe() + ")" +
		" MSN=" + strconv.FormatUint(uint64(a.MSN), 10)
}

func describeSyndrome(s decode.Syndrome) string {
	v := s.Value()
	switch s.Kind() {
	case decode.SyndromeACK:
		return "ACK credits=" + strconv.Itoa(int(v))
	case decode.SyndromeRNRNAK:
		ms := strconv.FormatFloat(float64(decode.RNRTimerNs(v))/1e6, 'f', -1, 64)
		return "RNR NAK timer=" + strconv.Itoa(int(v)) + " (" + ms + " ms)"
	case decode.SyndromeNAK:
		return "NAK " + decode.NAKCodeName(v)
	case decode.SyndromeReserved:
	}
	return "RESERVED " + hexDigits(uint64(s), 2)
}

func decodeAETH(data []byte, p gopacket.PacketBuilder) error {
	return decodeExt(&AETH{}, data, p)
}
