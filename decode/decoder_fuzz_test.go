package decode_test

import (
	"math"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// sharedSeedFrames returns up to max frames from each capture in
// ../shared/pcaps, or nothing when it is absent (fuzz seeds are optional).
func sharedSeedFrames(max int) [][]byte {
	_, file, _, _ := runtime.Caller(0)
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "shared", "pcaps", "*.pcap*"))
	var out [][]byte
	for i, p := range paths {
		r, err := pcapio.OpenFile(p, i)
		if err != nil {
			continue
		}
		var rec pcapio.Record
		for n := 0; n < max; n++ {
			if err := r.Next(&rec); err != nil {
				break
			}
			if rec.LinkType == pcapio.LinkTypeEthernet {
				out = append(out, append([]byte(nil), rec.Data...))
			}
		}
		r.Close()
	}
	return out
}

// FuzzDecode feeds arbitrary frames to the decoder under each link type.
// Invariants: no panic, lengths as given, only a BTH has an ICRC status, a RoCE kind has a BTH, decoding twice gives the same packet,
// and the fast path (fastEthernet) gives what the general path gives.
func FuzzDecode(f *testing.F) {
	for _, c := range decoderCases(f) {
		f.Add(c.frame, uint8(0), uint16(0))
		f.Add(c.frame[:len(c.frame)/2], uint8(0), uint16(len(c.frame)-len(c.frame)/2))
		f.Add(cooked(c.frame, true), uint8(2), uint16(0))
	}
	for _, fr := range sharedSeedFrames(20) {
		f.Add(fr, uint8(0), uint16(0))
	}
	for _, w := range []synth.Wrap{{Tunnel: synth.TunnelVXLAN}, {Tunnel: synth.TunnelGeneve}, {Tunnel: synth.TunnelGeneveIP},
		{Tunnel: synth.TunnelGREIP}, {Tunnel: synth.TunnelERSPAN3IP}, {Tunnel: synth.TunnelMPLS}} {
		f.Add(mustFrame(f, sendOnly(), w), uint8(0), uint16(0))
	}
	if v1, err := sendOnly().FrameV1(synth.Wrap{}); err == nil {
		f.Add(v1, uint8(0), uint16(0))
	}
	f.Add(mustFrame(f, sendOnly(), synth.Wrap{})[14:], uint8(4), uint16(0)) // LINKTYPE_RAW
	links := []pcapio.LinkType{pcapio.LinkTypeEthernet, pcapio.LinkTypeLinuxSLL, pcapio.LinkTypeLinuxSLL2, pcapio.LinkTypeERF,
		pcapio.LinkTypeRaw, pcapio.LinkTypeIPv4, pcapio.LinkTypeIPv6, pcapio.LinkTypeRawDLT12} // raw IP: appended
	d := decode.NewDecoder(decode.Config{})
	g := decode.NewGeneralDecoder(decode.Config{})
	f.Fuzz(func(t *testing.T, data []byte, link uint8, extra uint16) {
		lt := links[int(link)%len(links)]
		wire := len(data) + int(extra)
		var p, q decode.Packet
		d.Decode(data, lt, wire, &p)
		g.Decode(data, lt, wire, &q)
		if p != q {
			t.Fatalf("fast path\n%+v\ngeneral path\n%+v", p, q)
		}
		if p.CapLen != len(data) || p.Len != wire || p.Truncated != (extra > 0) {
			t.Fatalf("lengths: caplen %d len %d truncated %v", p.CapLen, p.Len, p.Truncated)
		}
		// A truncated frame may still hold its whole UDP datagram (the
		// snaplen cut only Ethernet padding or FCS), so its ICRC is checked.
		if p.ICRCStatus != decode.ICRCUnchecked && !p.HasBTH {
			t.Fatalf("ICRC %v without a BTH", p.ICRCStatus)
		}
		if p.IsRoCE() != p.HasBTH {
			t.Fatalf("kind %v but HasBTH %v", p.Kind, p.HasBTH)
		}
		if p.Malformed == (p.Problem == "") {
			t.Fatalf("malformed %v with problem %q", p.Malformed, p.Problem)
		}
		d.Decode(data, lt, wire, &q)
		if p != q {
			t.Fatalf("second decode differs")
		}
		// Into a zero Packet, as a pipeline decodes (ICRCs checked here,
		// then left to the caller).
		zrec := pcapio.Record{Data: data, Len: wire, LinkType: lt}
		var z decode.Packet
		if ip, _ := d.DecodeZeroedRecordDeferICRC(&zrec, &z, math.MaxInt); z != p || ip != nil {
			t.Fatalf("into a zero packet\n%+v\nDecode\n%+v", z, p)
		}
		z = decode.Packet{}
		ip, off := d.DecodeZeroedRecordDeferICRC(&zrec, &z, 1)
		q = decode.Packet{}
		ip2, off2 := g.DecodeRecordDeferICRC(&zrec, &q, 1)
		if z != q || len(ip) != len(ip2) || off != off2 || (ip == nil) != (ip2 == nil) {
			t.Fatalf("into a zero packet, deferred ICRC: %d bytes at %d, general %d at %d\n%+v\n%+v", len(ip), off, len(ip2), off2, z, q)
		}
		_ = p.AppendJSON(nil, "f", "")
		_ = p.AppendSummary(nil, 0, 100e9)
		_ = decode.AppendTree(nil, lt, &p, 100e9)
		// TreeLines: the same packet, the same tree, byte ranges inside
		// the record.
		rec := pcapio.Record{Data: data, Len: wire, LinkType: lt}
		var r decode.Packet
		lines := d.TreeLines(&rec, &r, 100e9)
		if r != p {
			t.Fatalf("TreeLines decoded another packet")
		}
		n := 0
		for _, l := range lines {
			if l.Off < 0 || l.Len < 0 || l.Off+l.Len > len(data) {
				t.Fatalf("line %q: bytes %d+%d of %d", l.Text, l.Off, l.Len, len(data))
			}
			n += len(l.Text) + 1
			if l.Field {
				n += 4
			}
		}
		if tree := decode.AppendTree(nil, lt, &p, 100e9); n != len(tree) {
			t.Fatalf("TreeLines has %d bytes of text, AppendTree %d", n, len(tree))
		}
	})
}
