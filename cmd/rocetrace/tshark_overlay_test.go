package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/internal/testenv"
	"github.com/rocetrace/rocetrace/pcapio"
)

// overlayCaptures returns the mixed scenario in every overlay rocetrace
// decodes (VXLAN, Geneve with Ethernet and with IP inside, GRE carrying IP,
// ERSPAN III frame type 2, MPLS), a RoCEv1 capture, and the scenario's IP
// packets under the raw-IP link types, each written to dir.
func overlayCaptures(t *testing.T, dir string) map[string]string {
	t.Helper()
	base := mixedScenario()
	out := map[string]string{}
	for _, tc := range []struct {
		name string
		w    synth.Wrap
	}{
		{"vxlan", synth.Wrap{Tunnel: synth.TunnelVXLAN}},
		{"geneve", synth.Wrap{Tunnel: synth.TunnelGeneve}},
		{"geneve_ip", synth.Wrap{Tunnel: synth.TunnelGeneveIP}},
		{"gre_ip", synth.Wrap{Tunnel: synth.TunnelGREIP}},
		// (Not ERSPAN III frame type 2: tshark 4.0 names the frame type
		// but shows the IP packet as Data; TestERSPAN3FrameTypes checks it.)
		{"mpls", synth.Wrap{Tunnel: synth.TunnelMPLS}},
	} {
		c, err := synth.Rewrap(base, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, tc.name+".pcap")
		if err := c.WriteFile(p, synth.PcapNanos); err != nil {
			t.Fatal(err)
		}
		out[tc.name] = p
	}
	out["rocev1"] = writeRoCEv1(t, filepath.Join(dir, "rocev1.pcap"))
	for _, l := range []pcapio.LinkType{pcapio.LinkTypeRaw, pcapio.LinkTypeIPv4, pcapio.LinkTypeRawDLT12, pcapio.LinkTypeRawDLT14} {
		name := "link" + strconv.Itoa(int(l))
		p := filepath.Join(dir, name+".pcap")
		writeRawIP(t, base, l, p)
		out[name] = p
	}
	return out
}

// rocev1Capture is a RoCEv1 exchange: an RC WRITE, its ACK, a UD SEND, a
// CNP and a READ, between fd00::1 and fd00::2 (GIDs), one with a bad ICRC.
func rocev1Capture() *synth.Capture {
	c := &synth.Capture{}
	a, b := synth.Host6(1), synth.Host6(2)
	ts := int64(1767323045_000_000_000)
	frames := []*synth.RoCE{
		{Src: a, Dst: b, DSCP: 26, ECN: 3, BTH: decode.BTHFields{Opcode: decode.Opcode(0x0A), PKey: 0xFFFF, DestQP: 0x11, PSN: 100, AckReq: true},
			RETH: decode.RETHFields{VA: 0x1000, RKey: 0x42, DMALen: 64}, Payload: 64},
		{Src: b, Dst: a, DSCP: 26, BTH: decode.BTHFields{Opcode: decode.Opcode(0x11), PKey: 0xFFFF, DestQP: 0x22, PSN: 100},
			AETH: decode.AETHFields{Syndrome: 0x1F, MSN: 1}},
		{Src: a, Dst: b, BTH: decode.BTHFields{Opcode: decode.Opcode(0x64), PKey: 0xFFFF, DestQP: 0x33, PSN: 7},
			DETH: decode.DETHFields{QKey: 0x11111111, SrcQP: 0x44}, Payload: 30},
		{Src: b, Dst: a, DSCP: 48, BTH: decode.BTHFields{Opcode: decode.OpcodeCNP, PKey: 0xFFFF, DestQP: 0x22, BECN: true}},
		{Src: a, Dst: b, BTH: decode.BTHFields{Opcode: decode.Opcode(0x0C), PKey: 0xFFFF, DestQP: 0x11, PSN: 101},
			RETH: decode.RETHFields{VA: 0x2000, RKey: 0x42, DMALen: 4096}, CorruptICRC: true},
	}
	for i, r := range frames {
		c.AddRoCEv1(ts+int64(i)*1000, r, synth.Wrap{})
	}
	return c
}

func writeRoCEv1(t *testing.T, path string) string {
	t.Helper()
	c := rocev1Capture()
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile(path, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeRawIP writes the IP packets of c's frames (frames without one, PFC
// and PAUSE, are left out) as a pcap of link type l.
func writeRawIP(t *testing.T, c *synth.Capture, l pcapio.LinkType, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapio.NewWriter(f, pcapio.PcapHeader{Nanos: true, Snaplen: 65535, LinkType: l})
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range c.Frames {
		ip := ipPacket(fr.Data)
		if ip == nil || (l == pcapio.LinkTypeIPv4 && ip[0]>>4 != 4) {
			continue
		}
		if err := w.WriteRecord(&pcapio.Record{Data: ip, CapLen: len(ip), Len: len(ip), TsNs: fr.TsNs}); err != nil {
			t.Fatal(err)
		}
	}
}

// ipPacket returns the IP packet of an Ethernet frame (after any VLAN
// tags), or nil.
func ipPacket(b []byte) []byte {
	off := 12
	for len(b) >= off+2 {
		switch et := uint16(b[off])<<8 | uint16(b[off+1]); et {
		case 0x8100, 0x88A8:
			off += 4
			continue
		case 0x0800, 0x86DD:
			return b[off+2:]
		}
		return nil
	}
	return nil
}

// TestTSharkDifferentialOverlays compares rocetrace with tshark, frame by
// frame, on the mixed scenario in every overlay, on RoCEv1 and under the
// raw-IP link types.
func TestTSharkDifferentialOverlays(t *testing.T) {
	tshark := testenv.TShark(t)
	for name, path := range overlayCaptures(t, t.TempDir()) {
		t.Run(name, func(t *testing.T) {
			c := diffAgainstTShark(t, tshark, path)
			if c.roceFrames == 0 {
				t.Fatal("no RoCE frame compared")
			}
			t.Logf("%d frames, %d RoCE, %d fields", c.frames, c.roceFrames, c.fields)
		})
	}
}

// TestKeepOverlayCaptures writes the overlay captures to
// $ROCETRACE_KEEP_OVERLAYS (a directory) for a look with tshark.
func TestKeepOverlayCaptures(t *testing.T) {
	dir := os.Getenv("ROCETRACE_KEEP_OVERLAYS")
	if dir == "" {
		t.Skip("ROCETRACE_KEEP_OVERLAYS not set")
	}
	overlayCaptures(t, dir)
}
