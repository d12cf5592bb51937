package layers

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"
)

// ERSPAN type III header sizes and constants.
const (
	// ERSPAN3Len is the fixed ERSPAN type III header.
	ERSPAN3Len = 12
	// ERSPAN3PlatformLen is the platform-specific sub-header present when O is set.
	ERSPAN3PlatformLen = 8
	// ERSPAN3Version is the Ver field of a type III header.
	ERSPAN3Version = 2

	erspan3FTEthernet = 0 // frame type: Ethernet frame
	erspan3FTIP       = 2 // frame type: IP packet
)

// ERSPAN3 is an ERSPAN type III header (GRE protocol 0x22EB,
// draft-foschiano-erspan): 12 bytes, plus an 8-byte platform-specific
// sub-header when O is set, then the mirrored frame.
//
//	Ver(4)=2 VLAN(12) | COS(3) BSO(2) T(1) SessionID(10) | Timestamp(32) |
//	SGT(16) P(1) FT(5) HWID(6) D(1) Gra(2) O(1) | [PlatformID(6) PlatformInfo(58)]
type ERSPAN3 struct {
	gplayers.BaseLayer
	// Version is the ERSPAN version field (2 for type III).
	Version uint8
	// VLAN is the VLAN of the mirrored frame (12 bits).
	VLAN uint16
	// COS is the class of service of the mirrored frame (3 bits).
	COS uint8
	// BSO is the bad/short/oversized indication (2 bits).
	BSO uint8
	// Truncated is the T bit: the mirroring device cut the frame.
	Truncated bool
	// SessionID is the ERSPAN session (10 bits).
	SessionID uint16
	// Timestamp is the mirroring device's timestamp, in units set by Gra.
	Timestamp uint32
	// SGT is the security group tag.
	SGT uint16
	// P is the P bit (with FT 0: the payload is an Ethernet PDU frame).
	P bool
	// FT is the frame type (5 bits): 0 Ethernet frame, 2 IP packet.
	FT uint8
	// HWID is the mirroring engine's hardware ID (6 bits).
	HWID uint8
	// Direction is the D bit: false ingress, true egress.
	Direction bool
	// Gra is the timestamp granularity (2 bits): 0 100 µs, 1 100 ns,
	// 2 IEEE 1588, 3 user-defined.
	Gra uint8
	// O says the 8-byte platform-specific sub-header follows.
	O bool
	// PlatformID is the sub-header's Platf ID (6 bits); valid when O.
	PlatformID uint8
	// PlatformInfo is the sub-header's platform-specific info (58 bits);
	// valid when O.
	PlatformInfo uint64
}

var (
	_ gopacket.DecodingLayer     = (*ERSPAN3)(nil)
	_ gopacket.SerializableLayer = (*ERSPAN3)(nil)
)

// LayerType returns LayerTypeERSPAN3.
func (e *ERSPAN3) LayerType() gopacket.LayerType { return LayerTypeERSPAN3 }

// CanDecode returns LayerTypeERSPAN3.
func (e *ERSPAN3) CanDecode() gopacket.LayerClass { return LayerTypeERSPAN3 }

// NextLayerType returns Ethernet for frame type 0, IPv4 or IPv6 (by the
// version nibble) for frame type 2, and gopacket.LayerTypePayload otherwise.
func (e *ERSPAN3) NextLayerType() gopacket.LayerType {
	switch e.FT {
	case erspan3FTEthernet:
		return gplayers.LayerTypeEthernet
	case erspan3FTIP:
		if len(e.Payload) > 0 {
			switch e.Payload[0] >> 4 {
			case 4:
				return gplayers.LayerTypeIPv4
			case 6:
				return gplayers.LayerTypeIPv6
			}
		}
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes the header and, when O is set, the platform
// sub-header. A Version other than 2 is an error.
func (e *ERSPAN3) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < ERSPAN3Len {
		return errShort(df, "ERSPAN III", ERSPAN3Len, len(data))
	}
	w0 := binary.BigEndian.Uint16(data[0:2])
	w1 := binary.BigEndian.Uint16(data[2:4])
	w3 := binary.BigEndian.Uint16(data[10:12])
	e.Version = uint8(w0 >> 12)
	e.VLAN = w0 & 0x0FFF
	e.COS = uint8(w1 >> 13)
	e.BSO = uint8(w1 >> 11 & 3)
	e.Truncated = w1&0x0400 != 0
	e.SessionID = w1 & 0x03FF
	e.Timestamp = binary.BigEndian.Uint32(data[4:8])
	e.SGT = binary.BigEndian.Uint16(data[8:10])
	e.P = w3&0x8000 != 0
	e.FT = uint8(w3 >> 10 & 0x1F)
	e.HWID = uint8(w3 >> 4 & 0x3F)
	e.Direction = w3&0x0008 != 0
	e.Gra = uint8(w3 >> 1 & 3)
	e.O = w3&1 != 0
	e.PlatformID, e.PlatformInfo = 0, 0
	if e.Version != ERSPAN3Version {
		return fmt.Errorf("ERSPAN III: version %d, want %d", e.Version, ERSPAN3Version)
	}
	n := ERSPAN3Len
	if e.O {
		n += ERSPAN3PlatformLen
		if len(data) < n {
			return errShort(df, "ERSPAN III platform sub-header", n, len(data))
		}
		v := binary.BigEndian.Uint64(data[ERSPAN3Len:n])
		e.PlatformID = uint8(v >> 58)
		e.PlatformInfo = v & (1<<58 - 1)
	}
	e.BaseLayer = gplayers.BaseLayer{Contents: data[:n], Payload: data[n:]}
	return nil
}

// SerializeTo prepends the header and, when O is set, the platform
// sub-header. Fields wider than their bit fields are an error.
func (e *ERSPAN3) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if e.Version > 0xF || e.VLAN > 0xFFF || e.COS > 7 || e.BSO > 3 || e.SessionID > 0x3FF ||
		e.FT > 0x1F || e.HWID > 0x3F || e.Gra > 3 || e.PlatformID > 0x3F || e.PlatformInfo >= 1<<58 {
		return fmt.Errorf("ERSPAN III: a field does not fit its bits: %v", e)
	}
	n := ERSPAN3Len
	if e.O {
		n += ERSPAN3PlatformLen
	}
	h, err := b.PrependBytes(n)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(h[0:2], uint16(e.Version)<<12|e.VLAN)
	w1 := uint16(e.COS)<<13 | uint16(e.BSO)<<11 | e.SessionID
	if e.Truncated {
		w1 |= 0x0400
	}
	binary.BigEndian.PutUint16(h[2:4], w1)
	binary.BigEndian.PutUint32(h[4:8], e.Timestamp)
	binary.BigEndian.PutUint16(h[8:10], e.SGT)
	w3 := uint16(e.FT)<<10 | uint16(e.HWID)<<4 | uint16(e.Gra)<<1
	if e.P {
		w3 |= 0x8000
	}
	if e.Direction {
		w3 |= 0x0008
	}
	if e.O {
		w3 |= 1
	}
	binary.BigEndian.PutUint16(h[10:12], w3)
	if e.O {
		binary.BigEndian.PutUint64(h[12:20], uint64(e.PlatformID)<<58|e.PlatformInfo)
	}
	return nil
}

// String renders the header for a packet tree.
func (e *ERSPAN3) String() string {
	s := "Version=" + strconv.Itoa(int(e.Version)) +
		" VLAN=" + strconv.Itoa(int(e.VLAN)) +
		" COS=" + strconv.Itoa(int(e.COS)) +
		" BSO=" + strconv.Itoa(int(e.BSO)) +
		" Truncated=" + strconv.FormatBool(e.Truncated) +
		" SessionID=" + strconv.Itoa(int(e.SessionID)) +
		" Timestamp=" + strconv.FormatUint(uint64(e.Timestamp), 10) +
		" SGT=" + strconv.Itoa(int(e.SGT)) +
		" P=" + strconv.FormatBool(e.P) +
		" FT=" + strconv.Itoa(int(e.FT)) +
		" HWID=" + strconv.Itoa(int(e.HWID)) +
		" Direction=" + strconv.FormatBool(e.Direction) +
		" Gra=" + strconv.Itoa(int(e.Gra)) +
		" O=" + strconv.FormatBool(e.O)
	if e.O {
		s += " PlatformID=" + strconv.Itoa(int(e.PlatformID)) + " PlatformInfo=" + hexDigits(e.PlatformInfo, 15)
	}
	return s
}

func decodeERSPAN3(data []byte, p gopacket.PacketBuilder) error {
	e := &ERSPAN3{}
	if err := e.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(e)
	return p.NextDecoder(e.NextLayerType())
}
