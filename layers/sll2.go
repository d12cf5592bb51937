package layers

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"
)

// SLL2Len is the length of a Linux cooked v2 header.
const SLL2Len = 20

// SLL2 is the Linux "cooked" capture header, version 2 (LINKTYPE_LINUX_SLL2,
// 276), 20 bytes: protocol type 2, reserved 2, interface index 4, ARPHRD
// type 2, packet type 1, address length 1, address 8. The next layer is
// chosen by ProtocolType as an EtherType.
type SLL2 struct {
	gplayers.BaseLayer
	// ProtocolType is the EtherType of the packet that follows.
	ProtocolType gplayers.EthernetType
	// Reserved is the reserved field (zero), kept for exact re-serialization.
	Reserved uint16
	// InterfaceIndex is the capturing interface's ifindex.
	InterfaceIndex uint32
	// ARPHRDType is the link's ARPHRD_ type (1 for Ethernet).
	ARPHRDType uint16
	// PacketType says to whom the packet went (host, broadcast, multicast,
	// other host, outgoing); one byte on the wire.
	PacketType gplayers.LinuxSLLPacketType
	// AddrLen is the link-layer address length from the header.
	AddrLen uint8
	// Addr is the link-layer source address: the first min(AddrLen, 8)
	// bytes of the 8-byte address field (a slice of the decoded data).
	Addr net.HardwareAddr
}

var (
	_ gopacket.DecodingLayer     = (*SLL2)(nil)
	_ gopacket.SerializableLayer = (*SLL2)(nil)
	_ gopacket.LinkLayer         = (*SLL2)(nil)
)

// LayerType returns LayerTypeSLL2.
func (s *SLL2) LayerType() gopacket.LayerType { return LayerTypeSLL2 }

// CanDecode returns LayerTypeSLL2.
func (s *SLL2) CanDecode() gopacket.LayerClass { return LayerTypeSLL2 }

// NextLayerType returns the layer type registered for ProtocolType.
func (s *SLL2) NextLayerType() gopacket.LayerType { return s.ProtocolType.LayerType() }

// LinkFlow returns a flow from Addr (the header names only one address).
func (s *SLL2) LinkFlow() gopacket.Flow { return gopacket.NewFlow(gplayers.EndpointMAC, s.Addr, nil) }

// DecodeFromBytes decodes the 20-byte header.
func (s *SLL2) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < SLL2Len {
		return errShort(df, "Linux SLL2", SLL2Len, len(data))
	}
	s.ProtocolType = gplayers.EthernetType(binary.BigEndian.Uint16(data[0:2]))
	s.Reserved = binary.BigEndian.Uint16(data[2:4])
	s.InterfaceIndex = binary.BigEndian.Uint32(data[4:8])
	s.ARPHRDType = binary.BigEndian.Uint16(data[8:10])
	s.PacketType = gplayers.LinuxSLLPacketType(data[10])
	s.AddrLen = data[11]
	s.Addr = net.HardwareAddr(data[12 : 12+min(int(s.AddrLen), 8)])
	s.BaseLayer = gplayers.BaseLayer{Contents: data[:SLL2Len], Payload: data[SLL2Len:]}
	return nil
}

// SerializeTo prepends the 20-byte header; the address field is Addr padded
// with zeros. With opts.FixLengths, AddrLen is set to len(Addr).
func (s *SLL2) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if len(s.Addr) > 8 {
		return fmt.Errorf("linux SLL2: address of %d bytes does not fit in 8", len(s.Addr))
	}
	if s.PacketType > 0xFF {
		return fmt.Errorf("linux SLL2: packet type %d does not fit in a byte", s.PacketType)
	}
	if opts.FixLengths {
		s.AddrLen = uint8(len(s.Addr))
	}
	h, err := b.PrependBytes(SLL2Len)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(h[0:2], uint16(s.ProtocolType))
	binary.BigEndian.PutUint16(h[2:4], s.Reserved)
	binary.BigEndian.PutUint32(h[4:8], s.InterfaceIndex)
	binary.BigEndian.PutUint16(h[8:10], s.ARPHRDType)
	h[10] = byte(s.PacketType)
	h[11] = s.AddrLen
	clear(h[12:20])
	copy(h[12:20], s.Addr)
	return nil
}

// String renders the header for a packet tree.
func (s *SLL2) String() string {
	return "ProtocolType=" + s.ProtocolType.String() + "(" + hexDigits(uint64(s.ProtocolType), 4) + ")" +
		" InterfaceIndex=" + strconv.FormatUint(uint64(s.InterfaceIndex), 10) +
		" ARPHRDType=" + strconv.Itoa(int(s.ARPHRDType)) +
		" PacketType=" + s.PacketType.String() +
		" AddrLen=" + strconv.Itoa(int(s.AddrLen)) +
		" Addr=" + s.Addr.String()
}

func decodeSLL2(data []byte, p gopacket.PacketBuilder) error {
	s := &SLL2{}
	if err := s.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(s)
	p.SetLinkLayer(s)
	return p.NextDecoder(s.ProtocolType)
}
