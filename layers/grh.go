package layers

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// GRH is the InfiniBand global route header as RoCEv1 carries it, right
// after an Ethernet header of EtherType 0x8915 (EthernetTypeRoCEv1), and
// before the BTH (IBA Vol. 1 §5.2.3, Annex A16):
//
//	IPVer(4)=6 TClass(8) FlowLabel(20) | PayLen(16) NxtHdr(8)=0x1B HopLmt(8) | SGID(128) | DGID(128)
//
// PayLen counts the bytes after the GRH up to and including the ICRC; the
// BTH layer after it gets exactly those (bytes past them, Ethernet padding,
// are left out), as it gets the UDP payload in RoCEv2.
type GRH struct {
	gplayers.BaseLayer
	IPVer     uint8  // 4 bits: 6
	TClass    uint8  // traffic class
	FlowLabel uint32 // 20 bits
	PayLen    uint16
	NxtHdr    uint8 // 0x1B: an IBA transport header (the BTH) follows
	HopLmt    uint8
	SGID      netip.Addr // source GID, IPv6
	DGID      netip.Addr // destination GID, IPv6
}

var (
	_ gopacket.DecodingLayer     = (*GRH)(nil)
	_ gopacket.SerializableLayer = (*GRH)(nil)
)

// LayerType returns LayerTypeGRH.
func (g *GRH) LayerType() gopacket.LayerType { return LayerTypeGRH }

// CanDecode returns LayerTypeGRH.
func (g *GRH) CanDecode() gopacket.LayerClass { return LayerTypeGRH }

// NextLayerType returns LayerTypeBTH when NxtHdr is 0x1B, else
// gopacket.LayerTypePayload.
func (g *GRH) NextLayerType() gopacket.LayerType {
	if g.NxtHdr == grhNextBTH {
		return LayerTypeBTH
	}
	return gopacket.LayerTypePayload
}

// grhNextBTH is the GRH NxtHdr of an IBA transport header.
const grhNextBTH = 0x1B

// DecodeFromBytes decodes the 40-byte header. A PayLen beyond data is an
// error unless the capture is truncated (the payload is then what there is).
func (g *GRH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.GRHLen {
		return errShort(df, "GRH", decode.GRHLen, len(data))
	}
	w0 := binary.BigEndian.Uint32(data[0:4])
	g.IPVer = uint8(w0 >> 28)
	g.TClass = uint8(w0 >> 20)
	g.FlowLabel = w0 & 0xFFFFF
	g.PayLen = binary.BigEndian.Uint16(data[4:6])
	g.NxtHdr, g.HopLmt = data[6], data[7]
	g.SGID = netip.AddrFrom16([16]byte(data[8:24]))
	g.DGID = netip.AddrFrom16([16]byte(data[24:40]))
	if g.IPVer != 6 {
		return fmt.Errorf("GRH: IPVer %d, want 6", g.IPVer)
	}
	end := decode.GRHLen + int(g.PayLen)
	if end > len(data) {
		if !feedbackTruncated(df) {
			df.SetTruncated()
		}
		end = len(data)
	}
	g.BaseLayer = gplayers.BaseLayer{Contents: data[:decode.GRHLen], Payload: data[decode.GRHLen:end]}
	return nil
}

// SerializeTo prepends the header; with opts.FixLengths PayLen is set to
// the length of what follows.
func (g *GRH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if g.IPVer > 0xF || g.FlowLabel > 0xFFFFF || !g.SGID.Is6() || !g.DGID.Is6() {
		return fmt.Errorf("GRH: a field does not fit: %+v", g)
	}
	if opts.FixLengths {
		n := len(b.Bytes())
		if n > 0xFFFF {
			return fmt.Errorf("GRH: payload of %d bytes", n)
		}
		g.PayLen = uint16(n)
	}
	h, err := b.PrependBytes(decode.GRHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h[0:4], uint32(g.IPVer)<<28|uint32(g.TClass)<<20|g.FlowLabel)
	binary.BigEndian.PutUint16(h[4:6], g.PayLen)
	h[6], h[7] = g.NxtHdr, g.HopLmt
	s, d := g.SGID.As16(), g.DGID.As16()
	copy(h[8:24], s[:])
	copy(h[24:40], d[:])
	return nil
}

func decodeGRH(data []byte, p gopacket.PacketBuilder) error {
	g := &GRH{}
	if err := g.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(g)
	return p.NextDecoder(g.NextLayerType())
}
