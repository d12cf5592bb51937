package layers

import (
	"fmt"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"
)

// gopacket layer types for the headers rocetrace decodes. Numbers 1790-1802
// are ours; gopacket's own layers use numbers below 1000, and
// RegisterLayerType panics on a clash, so a conflict shows at start-up.
//
// Every registration with gopacket's global tables happens in this file:
// the layer types here, and the EtherType, UDP port and link type entries
// in init below (design-notes §7.1). Nothing else in rocetrace touches
// those tables.
var (
	// LayerTypeBTH is the RoCEv2 base transport header (UDP port 4791).
	LayerTypeBTH = gopacket.RegisterLayerType(1790, gopacket.LayerTypeMetadata{Name: "BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})
	// LayerTypeRETH is the RDMA extended transport header.
	LayerTypeRETH = gopacket.RegisterLayerType(1791, gopacket.LayerTypeMetadata{Name: "RETH", Decoder: gopacket.DecodeFunc(decodeRETH)})
	// LayerTypeAETH is the ACK extended transport header.
	LayerTypeAETH = gopacket.RegisterLayerType(1792, gopacket.LayerTypeMetadata{Name: "AETH", Decoder: gopacket.DecodeFunc(decodeAETH)})
	// LayerTypeAtomicETH is the atomic extended transport header.
	LayerTypeAtomicETH = gopacket.RegisterLayerType(1793, gopacket.LayerTypeMetadata{Name: "AtomicETH", Decoder: gopacket.DecodeFunc(decodeAtomicETH)})
	// LayerTypeAtomicAckETH is the atomic acknowledge extended transport header.
	LayerTypeAtomicAckETH = gopacket.RegisterLayerType(1794, gopacket.LayerTypeMetadata{Name: "AtomicAckETH", Decoder: gopacket.DecodeFunc(decodeAtomicAckETH)})
	// LayerTypeDETH is the datagram extended transport header (UD).
	LayerTypeDETH = gopacket.RegisterLayerType(1795, gopacket.LayerTypeMetadata{Name: "DETH", Decoder: gopacket.DecodeFunc(decodeDETH)})
	// LayerTypeImmDt is the immediate data extended transport header.
	LayerTypeImmDt = gopacket.RegisterLayerType(1796, gopacket.LayerTypeMetadata{Name: "ImmDt", Decoder: gopacket.DecodeFunc(decodeImmDt)})
	// LayerTypeIETH is the invalidate extended transport header.
	LayerTypeIETH = gopacket.RegisterLayerType(1797, gopacket.LayerTypeMetadata{Name: "IETH", Decoder: gopacket.DecodeFunc(decodeIETH)})
	// LayerTypeXRCETH is the XRC extended transport header.
	LayerTypeXRCETH = gopacket.RegisterLayerType(1798, gopacket.LayerTypeMetadata{Name: "XRCETH", Decoder: gopacket.DecodeFunc(decodeXRCETH)})
	// LayerTypeCNP is the 16 reserved bytes after a CNP's BTH.
	LayerTypeCNP = gopacket.RegisterLayerType(1799, gopacket.LayerTypeMetadata{Name: "CNP", Decoder: gopacket.DecodeFunc(decodeCNP)})
	// LayerTypeMACControl is an 802.3 MAC Control frame (EtherType 0x8808):
	// 802.1Qbb PFC or 802.3x PAUSE.
	LayerTypeMACControl = gopacket.RegisterLayerType(1800, gopacket.LayerTypeMetadata{Name: "MACControl", Decoder: gopacket.DecodeFunc(decodeMACControl)})
	// LayerTypeSLL2 is the Linux "cooked" capture header, version 2
	// (LINKTYPE_LINUX_SLL2, 276).
	LayerTypeSLL2 = gopacket.RegisterLayerType(1801, gopacket.LayerTypeMetadata{Name: "LinuxSLL2", Decoder: gopacket.DecodeFunc(decodeSLL2)})
	// LayerTypeERSPAN3 is the ERSPAN type III header (GRE protocol 0x22EB).
	LayerTypeERSPAN3 = gopacket.RegisterLayerType(1802, gopacket.LayerTypeMetadata{Name: "ERSPANIII", Decoder: gopacket.DecodeFunc(decodeERSPAN3)})
	// LayerTypeGRH is the InfiniBand global route header of RoCEv1
	// (EtherType 0x8915).
	LayerTypeGRH = gopacket.RegisterLayerType(1803, gopacket.LayerTypeMetadata{Name: "GRH", Decoder: gopacket.DecodeFunc(decodeGRH)})
)

// Wire numbers the layers are registered under.
const (
	// EthernetTypeMACControl is the 802.3 MAC Control EtherType (PFC, PAUSE).
	EthernetTypeMACControl gplayers.EthernetType = 0x8808
	// EthernetTypeERSPAN3 is the GRE protocol type of ERSPAN type III.
	EthernetTypeERSPAN3 gplayers.EthernetType = 0x22EB
	// EthernetTypeRoCEv1 is the EtherType of RoCEv1 (GRH, then BTH).
	EthernetTypeRoCEv1 gplayers.EthernetType = 0x8915
	// UDPPortRoCEv2 is the IANA RoCEv2 UDP destination port.
	UDPPortRoCEv2 gplayers.UDPPort = 4791

	// linkTypeSLL2 is LINKTYPE_LINUX_SLL2. gopacket v1.1.19 declares
	// gplayers.LinkType as uint8 and sizes LinkTypeMetadata to 256 entries, so
	// 276 cannot be registered as such: pcapgo's Reader and NgReader convert
	// the file's 32/16-bit link type with gplayers.LinkType(v), which keeps the
	// low 8 bits, and a LINKTYPE_LINUX_SLL2 file reports LinkType 20 (276 &
	// 0xFF, unassigned by tcpdump.org). We register SLL2 under that value so
	// that gopacket.NewPacketSource(r, r.LinkType()) decodes such files.
	// Callers holding the real number should start decoding at
	// LayerTypeSLL2 instead.
	linkTypeSLL2 = 276
	// gopacketLinkTypeSLL2 is linkTypeSLL2 as pcapgo v1.1.19 reports it.
	gopacketLinkTypeSLL2 gplayers.LinkType = linkTypeSLL2 & 0xFF
)

func init() {
	gplayers.EthernetTypeMetadata[EthernetTypeMACControl] = gplayers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeMACControl), Name: "MACControl", LayerType: LayerTypeMACControl,
	}
	gplayers.EthernetTypeMetadata[EthernetTypeERSPAN3] = gplayers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeERSPAN3), Name: "ERSPAN Type III", LayerType: LayerTypeERSPAN3,
	}
	gplayers.EthernetTypeMetadata[EthernetTypeRoCEv1] = gplayers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeGRH), Name: "RoCEv1", LayerType: LayerTypeGRH,
	}
	gplayers.RegisterUDPPortLayerType(UDPPortRoCEv2, LayerTypeBTH)
	gplayers.LinkTypeMetadata[gopacketLinkTypeSLL2] = gplayers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeSLL2), Name: "Linux SLL2", LayerType: LayerTypeSLL2,
	}
}

// errShort reports a header cut short and tells df the packet is
// truncated. Every layer's DecodeFromBytes calls it before indexing past
// the bytes it has.
func errShort(df gopacket.DecodeFeedback, layer string, need, have int) error {
	df.SetTruncated()
	return fmt.Errorf("%s: need %d bytes, have %d", layer, need, have)
}

// feedbackTruncated reports whether an outer layer has already found the
// packet truncated (for instance UDP, when its length field runs past the
// captured bytes). It understands the two DecodeFeedback implementations
// gopacket hands to layers: a packet under construction (gopacket.NewPacket)
// and a *gopacket.DecodingLayerParser.
func feedbackTruncated(df gopacket.DecodeFeedback) bool {
	switch f := df.(type) {
	case *gopacket.DecodingLayerParser:
		return f.Truncated
	case interface {
		Metadata() *gopacket.PacketMetadata
	}:
		return f.Metadata().Truncated
	}
	return false
}
