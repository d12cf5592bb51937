package layers

import (
	"encoding/binary"
	"net"
	"strconv"
	"strings"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// MACControlOpcode is the 2-byte opcode of an 802.3 MAC Control frame.
type MACControlOpcode uint16

// MAC Control opcodes rocetrace decodes.
const (
	// MACControlOpcodePause is 802.3x PAUSE: one pause time for the whole link.
	MACControlOpcodePause MACControlOpcode = 0x0001
	// MACControlOpcodePFC is 802.1Qbb priority flow control: one pause time
	// per priority.
	MACControlOpcodePFC MACControlOpcode = 0x0101
)

// String returns "PAUSE", "PFC", or the opcode in hex.
func (o MACControlOpcode) String() string {
	switch o {
	case MACControlOpcodePause:
		return "PAUSE"
	case MACControlOpcodePFC:
		return "PFC"
	}
	return hexDigits(uint64(o), 4)
}

// Lengths of the MAC Control parts rocetrace reads.
const (
	macControlPFCLen   = 2 + 2 + 2*8 // opcode, class-enable vector, time[0..7]
	macControlPauseLen = 2 + 2       // opcode, pause time
	// MACControlMinLen is the MAC Control payload (opcode onwards) of a
	// minimum-size Ethernet frame: 60 bytes without FCS less the 14-byte
	// header. SerializeTo pads to it with opts.FixLengths.
	MACControlMinLen = 46
)

// MACControlDstMAC returns 01:80:C2:00:00:01, the reserved multicast address
// PAUSE and PFC frames are sent to.
func MACControlDstMAC() net.HardwareAddr { return net.HardwareAddr{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01} }

// MACControl is an 802.3 MAC Control frame body (EtherType 0x8808): an
// 802.1Qbb PFC frame, an 802.3x PAUSE frame, or another opcode kept raw.
//
// Contents are the opcode and its parameters; Payload is whatever follows
// (frame padding, normally), which is not decoded further.
type MACControl struct {
	gplayers.BaseLayer
	// Opcode selects PFC, PAUSE or something else.
	Opcode MACControlOpcode
	// MACControlFields are the parameters, as in decode.Packet: PFCEnable
	// (the PFC class-enable vector at wire width: bit n of the low byte
	// enables priority n's time) and PFCQuanta (time[0]..time[7], in quanta
	// of 512 bit times), zero unless Opcode is PFC; PauseQuanta (the 802.3x
	// pause time in quanta), zero unless Opcode is PAUSE.
	decode.MACControlFields
	// Raw holds the bytes after the opcode for other opcodes (a slice of
	// the decoded data); nil for PFC and PAUSE.
	Raw []byte
}

var (
	_ gopacket.DecodingLayer     = (*MACControl)(nil)
	_ gopacket.SerializableLayer = (*MACControl)(nil)
)

// LayerType returns LayerTypeMACControl.
func (m *MACControl) LayerType() gopacket.LayerType { return LayerTypeMACControl }

// CanDecode returns LayerTypeMACControl.
func (m *MACControl) CanDecode() gopacket.LayerClass { return LayerTypeMACControl }

// NextLayerType returns gopacket.LayerTypeZero: nothing follows MAC Control
// but padding.
func (m *MACControl) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// Enabled reports whether the PFC class-enable vector enables priority
// prio (0-7).
func (m *MACControl) Enabled(prio int) bool {
	return m.Opcode == MACControlOpcodePFC && prio >= 0 && prio < 8 && m.PFCEnable>>uint(prio)&1 != 0
}

// DecodeFromBytes decodes a MAC Control body, data starting at the opcode.
func (m *MACControl) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 2 {
		return errShort(df, "MACControl", 2, len(data))
	}
	m.Opcode = MACControlOpcode(binary.BigEndian.Uint16(data[0:2]))
	m.PFCEnable, m.PFCQuanta, m.PauseQuanta, m.Raw = 0, [8]uint16{}, 0, nil
	n := len(data)
	switch m.Opcode {
	case MACControlOpcodePFC:
		if len(data) < macControlPFCLen {
			return errShort(df, "MACControl PFC", macControlPFCLen, len(data))
		}
		m.PFCEnable = binary.BigEndian.Uint16(data[2:4])
		for i := range m.PFCQuanta {
			m.PFCQuanta[i] = binary.BigEndian.Uint16(data[4+2*i : 6+2*i])
		}
		n = macControlPFCLen
	case MACControlOpcodePause:
		if len(data) < macControlPauseLen {
			return errShort(df, "MACControl PAUSE", macControlPauseLen, len(data))
		}
		m.PauseQuanta = binary.BigEndian.Uint16(data[2:4])
		n = macControlPauseLen
	default:
		m.Raw = data[2:]
	}
	m.BaseLayer = gplayers.BaseLayer{Contents: data[:n], Payload: data[n:]}
	return nil
}

// SerializeTo prepends the opcode and its parameters (for other opcodes,
// Raw). With opts.FixLengths it then pads the MAC Control payload with zeros
// to MACControlMinLen bytes, the minimum Ethernet frame.
func (m *MACControl) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	var n int
	switch m.Opcode {
	case MACControlOpcodePFC:
		n = macControlPFCLen
	case MACControlOpcodePause:
		n = macControlPauseLen
	default:
		n = 2 + len(m.Raw)
	}
	h, err := b.PrependBytes(n)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(h[0:2], uint16(m.Opcode))
	switch m.Opcode {
	case MACControlOpcodePFC:
		binary.BigEndian.PutUint16(h[2:4], m.PFCEnable)
		for i, q := range m.PFCQuanta {
			binary.BigEndian.PutUint16(h[4+2*i:6+2*i], q)
		}
	case MACControlOpcodePause:
		binary.BigEndian.PutUint16(h[2:4], m.PauseQuanta)
	default:
		copy(h[2:], m.Raw)
	}
	if l := len(b.Bytes()); opts.FixLengths && l < MACControlMinLen {
		pad, err := b.AppendBytes(MACControlMinLen - l)
		if err != nil {
			return err
		}
		clear(pad)
	}
	return nil
}

// String renders the frame for a packet tree, e.g.
// "Opcode=PFC(0x0101) ClassEnable=0x0008 Quanta=[0 0 0 65535 0 0 0 0]".
func (m *MACControl) String() string {
	s := "Opcode=" + m.Opcode.String()
	switch m.Opcode {
	case MACControlOpcodePFC:
		var q strings.Builder
		for i, v := range m.PFCQuanta {
			if i > 0 {
				q.WriteByte(' ')
			}
			q.WriteString(strconv.Itoa(int(v)))
		}
		return s + "(" + hexDigits(uint64(m.Opcode), 4) + ") ClassEnable=" + hexDigits(uint64(m.PFCEnable), 4) +
			" Quanta=[" + q.String() + "]"
	case MACControlOpcodePause:
		return s + "(" + hexDigits(uint64(m.Opcode), 4) + ") PauseQuanta=" + strconv.Itoa(int(m.PauseQuanta))
	}
	return s + " Raw=" + strconv.Itoa(len(m.Raw)) + " bytes"
}

func decodeMACControl(data []byte, p gopacket.PacketBuilder) error {
	m := &MACControl{}
	if err := m.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(m)
	return nil
}
