package layers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/gopacket"
	gplayers "github.com/google/gopacket/layers"

	"github.com/rocetrace/rocetrace/decode"
)

// BTH is the InfiniBand base transport header that starts every RoCEv2 UDP
// payload (12 bytes), together with the trailer of the datagram: the pad
// count it announces and the 4-byte ICRC.
//
// # Header chain
//
// The extended headers that follow a BTH depend on its opcode
// (decode.Opcode.ExtHeaders): XRCETH, DETH, RETH, AETH, AtomicETH, AtomicAckETH,
// ImmDt, IETH in that order, or a CNP's 16 reserved bytes. Each of them is a
// layer of its own, and each carries in its Next field the set of headers
// still to come, so that its NextLayerType names the right successor and the
// last one hands over to gopacket.LayerTypePayload.
//
//   - With gopacket.NewPacket (the LayerTypeBTH decoder, reached through UDP
//     port 4791), decodeBTH decodes BTH, then every extended header in wire
//     order, adding each as its own layer, then the RDMA payload as a
//     gopacket.Payload layer.
//   - With a gopacket.DecodingLayerParser, Link the BTH to an ExtLayers
//     whose members are also given to the parser: each BTH decode then sets
//     their Next fields from the opcode.
//   - Hand-written decoders can call ExtLayers.Decode on BTH.Payload.
//
// # Payload, pad and ICRC
//
// Payload (LayerPayload) is the extended headers plus the RDMA payload: it
// stops before the Pad bytes and the ICRC, so the final payload layer holds
// exactly the application bytes. The ICRC is read little-endian into ICRC.
// When an outer layer has already reported the capture truncated (the UDP
// length runs past the captured bytes), the end of the datagram is not
// there: HasICRC is false and Payload is everything after the BTH.
//
// BTH does not check the ICRC, which also covers the IP and UDP headers: use
// decode.ComputeICRC on the IP packet.
type BTH struct {
	gplayers.BaseLayer
	// BTHFields are the header's fields, as the fast path decodes them
	// into decode.Packet.
	decode.BTHFields
	// Resv6 holds the 6 reserved bits of byte 4, kept for exact re-serialization.
	Resv6 uint8
	// Resv7 holds the 7 reserved bits of byte 8, kept for exact re-serialization.
	Resv7 uint8

	// Ext is the set of extended headers that follow, from the opcode.
	Ext decode.Ext
	// ICRC is the invariant CRC from the datagram's last 4 bytes, read
	// little-endian; valid when HasICRC. SerializeTo writes it as is.
	ICRC uint32
	// HasICRC reports that the datagram's end, and so the ICRC, was captured.
	HasICRC bool

	linked *ExtLayers // set by Link; not part of the header
}

var (
	_ gopacket.DecodingLayer     = (*BTH)(nil)
	_ gopacket.SerializableLayer = (*BTH)(nil)
)

// LayerType returns LayerTypeBTH.
func (b *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns the first extended header the opcode calls for, or
// gopacket.LayerTypePayload.
func (b *BTH) NextLayerType() gopacket.LayerType { return nextLayerAfter(b.Ext) }

// Link makes every later DecodeFromBytes of b set the Next fields of x's
// layers from the decoded opcode, so that a DecodingLayerParser holding b
// and x's members follows the opcode's header chain. Link(nil) undoes it.
func (b *BTH) Link(x *ExtLayers) { b.linked = x }

// DecodeFromBytes decodes a BTH and locates the pad and ICRC at the end of
// data, which must be the whole UDP payload.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < decode.BTHLen {
		return errShort(df, "BTH", decode.BTHLen, len(data))
	}
	b.Opcode = decode.Opcode(data[0])
	b.SE = data[1]&0x80 != 0
	b.MigReq = data[1]&0x40 != 0
	b.Pad = data[1] >> 4 & 3
	b.TVer = data[1] & 0x0F
	b.PKey = binary.BigEndian.Uint16(data[2:4])
	b.FECN = data[4]&0x80 != 0
	b.BECN = data[4]&0x40 != 0
	b.Resv6 = data[4] & 0x3F
	b.DestQP = uint32(data[5])<<16 | uint32(data[6])<<8 | uint32(data[7])
	b.AckReq = data[8]&0x80 != 0
	b.Resv7 = data[8] & 0x7F
	b.PSN = uint32(data[9])<<16 | uint32(data[10])<<8 | uint32(data[11])
	b.Ext = b.Opcode.ExtHeaders()
	b.Contents = data[:decode.BTHLen]
	if b.linked != nil {
		b.linked.SetNext(b.Ext)
	}
	if feedbackTruncated(df) {
		b.ICRC, b.HasICRC = 0, false
		b.Payload = data[decode.BTHLen:]
		return nil
	}
	b.ICRC, b.HasICRC = 0, false
	b.Payload = nil
	extLen := b.Ext.ExtLen()
	if need := decode.BTHLen + extLen + decode.ICRCLen; len(data) < need {
		return errShort(df, "BTH "+b.Opcode.String(), need, len(data))
	}
	end := len(data) - decode.ICRCLen
	if end-int(b.Pad) < decode.BTHLen+extLen {
		return fmt.Errorf("BTH %v: pad count %d exceeds the %d payload bytes", b.Opcode, b.Pad, end-decode.BTHLen-extLen)
	}
	b.ICRC = binary.LittleEndian.Uint32(data[end:])
	b.HasICRC = true
	b.Payload = data[decode.BTHLen : end-int(b.Pad)]
	return nil
}

// SerializeTo writes the BTH in front of the bytes already in the buffer
// (the extended headers and payload, serialized first by
// gopacket.SerializeLayers) and appends the datagram trailer: Pad zero bytes
// and the 4-byte ICRC field holding b.ICRC, little-endian. The trailer has
// to be written here, before UDP and IP serialize, so that their FixLengths
// count it. With opts.FixLengths, Pad is recomputed to bring the payload to
// a multiple of 4 bytes.
//
// The ICRC depends on the IP and UDP headers, which do not exist yet: build
// the whole frame, then call FinishRoCE to fill in the real value.
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		b.Pad = uint8(-len(buf.Bytes()) & 3)
	}
	if b.Pad > 3 {
		return fmt.Errorf("BTH: pad count %d does not fit in 2 bits", b.Pad)
	}
	trailer, err := buf.AppendBytes(int(b.Pad) + decode.ICRCLen)
	if err != nil {
		return err
	}
	clear(trailer[:b.Pad])
	binary.LittleEndian.PutUint32(trailer[b.Pad:], b.ICRC)
	h, err := buf.PrependBytes(decode.BTHLen)
	if err != nil {
		return err
	}
	h[0] = byte(b.Opcode)
	h[1] = wireFlag(b.SE, 0x80) | wireFlag(b.MigReq, 0x40) | b.Pad<<4 | b.TVer&0x0F
	binary.BigEndian.PutUint16(h[2:4], b.PKey)
	h[4] = wireFlag(b.FECN, 0x80) | wireFlag(b.BECN, 0x40) | b.Resv6&0x3F
	wirePut24(h[5:8], b.DestQP)
	h[8] = wireFlag(b.AckReq, 0x80) | b.Resv7&0x7F
	wirePut24(h[9:12], b.PSN)
	return nil
}

// String renders the header for a packet tree (gopacket.LayerString uses it).
func (b *BTH) String() string {
	s := "Opcode=" + b.Opcode.String() + "(" + hexDigits(uint64(b.Opcode), 2) + ")" +
		" SE=" + strconv.FormatBool(b.SE) +
		" MigReq=" + strconv.FormatBool(b.MigReq) +
		" Pad=" + strconv.Itoa(int(b.Pad)) +
		" TVer=" + strconv.Itoa(int(b.TVer)) +
		" PKey=" + hexDigits(uint64(b.PKey), 4) +
		" FECN=" + strconv.FormatBool(b.FECN) +
		" BECN=" + strconv.FormatBool(b.BECN) +
		" DestQP=" + hexDigits(uint64(b.DestQP), 6) +
		" AckReq=" + strconv.FormatBool(b.AckReq) +
		" PSN=" + strconv.FormatUint(uint64(b.PSN), 10)
	if b.HasICRC {
		s += " ICRC=" + hexDigits(uint64(b.ICRC), 8)
	} else {
		s += " ICRC=(not captured)"
	}
	return s
}

func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	b := &BTH{}
	if err := b.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(b)
	rest := b.Payload
	remaining := b.Ext
	for _, h := range extChain {
		if remaining&h == 0 {
			continue
		}
		remaining &^= h
		l := newExtLayer(h)
		l.setNext(remaining)
		if err := l.DecodeFromBytes(rest, p); err != nil {
			return err
		}
		p.AddLayer(l)
		rest = l.LayerPayload()
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// FinishRoCE fills in the ICRC of a RoCEv2 frame built with its trailer in
// place (BTH.SerializeTo appends a 4-byte placeholder). frame must end at the
// ICRC, with no Ethernet padding or FCS after it; ipOff and udpOff are the
// offsets of the IP and UDP headers in frame. It computes
// decode.ComputeICRC(frame[ipOff:], udpOff-ipOff) and stores it little-endian in
// the last 4 bytes, and reports false (leaving frame alone) when the offsets
// do not describe a RoCEv2 packet decode.ComputeICRC can handle.
func FinishRoCE(frame []byte, ipOff, udpOff int) bool {
	if ipOff < 0 || ipOff > len(frame) || udpOff < ipOff {
		return false
	}
	crc, ok := decode.ComputeICRC(frame[ipOff:], udpOff-ipOff)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint32(frame[len(frame)-decode.ICRCLen:], crc)
	return true
}

// ExtLayers holds one reusable layer per extended header, for decoders that
// preallocate their layers (gopacket.DecodingLayerParser or hand-written
// loops): give all of them to the parser and Link the BTH to them.
type ExtLayers struct {
	XRCETH       XRCETH
	DETH         DETH
	RETH         RETH
	AETH         AETH
	AtomicETH    AtomicETH
	AtomicAckETH AtomicAckETH
	ImmDt        ImmDt
	IETH         IETH
	CNP          CNP
}

// DecodingLayers returns pointers to all of x's layers, for
// gopacket.NewDecodingLayerParser.
func (x *ExtLayers) DecodingLayers() []gopacket.DecodingLayer {
	return []gopacket.DecodingLayer{&x.XRCETH, &x.DETH, &x.RETH, &x.AETH, &x.AtomicETH, &x.AtomicAckETH, &x.ImmDt, &x.IETH, &x.CNP}
}

// Layer returns x's layer for the single header h, or nil.
func (x *ExtLayers) Layer(h decode.Ext) gopacket.Layer {
	if l := x.layer(h); l != nil {
		return l
	}
	return nil
}

func (x *ExtLayers) layer(h decode.Ext) extLayer {
	switch h {
	case decode.ExtXRCETH:
		return &x.XRCETH
	case decode.ExtDETH:
		return &x.DETH
	case decode.ExtRETH:
		return &x.RETH
	case decode.ExtAETH:
		return &x.AETH
	case decode.ExtAtomicETH:
		return &x.AtomicETH
	case decode.ExtAtomicAckETH:
		return &x.AtomicAckETH
	case decode.ExtImmDt:
		return &x.ImmDt
	case decode.ExtIETH:
		return &x.IETH
	case decode.ExtCNP:
		return &x.CNP
	}
	return nil
}

// SetNext sets the Next field of each of x's layers in e to the headers of
// e that follow it on the wire. Layers outside e are left alone.
func (x *ExtLayers) SetNext(e decode.Ext) {
	remaining := e
	for _, h := range extChain {
		if remaining&h == 0 {
			continue
		}
		remaining &^= h
		x.layer(h).setNext(remaining)
	}
}

// Decode decodes the headers in e from data, in wire order, into x's layers
// (setting their Next fields), and returns the bytes after the last one.
// data is normally BTH.Payload and e BTH.Ext.
func (x *ExtLayers) Decode(e decode.Ext, data []byte, df gopacket.DecodeFeedback) ([]byte, error) {
	remaining := e
	for _, h := range extChain {
		if remaining&h == 0 {
			continue
		}
		remaining &^= h
		l := x.layer(h)
		l.setNext(remaining)
		if err := l.DecodeFromBytes(data, df); err != nil {
			return nil, err
		}
		data = l.LayerPayload()
	}
	if remaining != 0 {
		return nil, errors.New("extended header set has unknown bits")
	}
	return data, nil
}

// extLayer is what every extended header layer implements.
type extLayer interface {
	gopacket.Layer
	gopacket.DecodingLayer
	setNext(decode.Ext)
}

// extChain lists the extended headers in wire order.
var extChain = [...]decode.Ext{decode.ExtXRCETH, decode.ExtDETH, decode.ExtRETH, decode.ExtAETH, decode.ExtAtomicETH, decode.ExtAtomicAckETH, decode.ExtImmDt, decode.ExtIETH, decode.ExtCNP}

// newExtLayer allocates a layer for the single header h.
func newExtLayer(h decode.Ext) extLayer {
	switch h {
	case decode.ExtXRCETH:
		return &XRCETH{}
	case decode.ExtDETH:
		return &DETH{}
	case decode.ExtRETH:
		return &RETH{}
	case decode.ExtAETH:
		return &AETH{}
	case decode.ExtAtomicETH:
		return &AtomicETH{}
	case decode.ExtAtomicAckETH:
		return &AtomicAckETH{}
	case decode.ExtImmDt:
		return &ImmDt{}
	case decode.ExtIETH:
		return &IETH{}
	case decode.ExtCNP:
		return &CNP{}
	}
	panic("decode: not a single extended header: " + strconv.Itoa(int(h)))
}

// nextLayerAfter returns the layer type of the first header of e in wire
// order, or gopacket.LayerTypePayload when e is empty.
func nextLayerAfter(e decode.Ext) gopacket.LayerType {
	for _, h := range extChain {
		if e&h == 0 {
			continue
		}
		switch h {
		case decode.ExtXRCETH:
			return LayerTypeXRCETH
		case decode.ExtDETH:
			return LayerTypeDETH
		case decode.ExtRETH:
			return LayerTypeRETH
		case decode.ExtAETH:
			return LayerTypeAETH
		case decode.ExtAtomicETH:
			return LayerTypeAtomicETH
		case decode.ExtAtomicAckETH:
			return LayerTypeAtomicAckETH
		case decode.ExtImmDt:
			return LayerTypeImmDt
		case decode.ExtIETH:
			return LayerTypeIETH
		case decode.ExtCNP:
			return LayerTypeCNP
		}
	}
	return gopacket.LayerTypePayload
}

// wireFlag returns bit if b is set, else 0.
func wireFlag(b bool, bit uint8) uint8 {
	if b {
		return bit
	}
	return 0
}

// wirePut24 writes the low 24 bits of v big-endian into b[0:3].
func wirePut24(b []byte, v uint32) {
	_ = b[2]
	b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v)
}

// wireGet24 reads a big-endian 24-bit value from b[0:3].
func wireGet24(b []byte) uint32 {
	_ = b[2]
	return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
}

// hexDigits formats v as 0x followed by at least digits hex digits.
func hexDigits(v uint64, digits int) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < digits {
		s = "0" + s
	}
	return "0x" + s
}
