package export

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
)

// TestEncapColumnOverlays: the encap column names every overlay as
// packets --json does ("VXLAN", "Geneve", "GRE-IP", "MPLS", "ERSPAN-III"
// for frame type 2), one value per frame of interest of a capture wrapped
// that way.
func TestEncapColumnOverlays(t *testing.T) {
	base := &synth.Capture{}
	conn := &synth.RoCE{Src: synth.Host(1), Dst: synth.Host(2), BTH: decode.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 9, PSN: 1}, Payload: 8}
	base.AddRoCE(1_000, conn)
	base.AddRoCE(2_000, conn)
	for _, tc := range []struct {
		w    synth.Wrap
		want string
	}{
		{synth.Wrap{Tunnel: synth.TunnelVXLAN}, "VXLAN"},
		{synth.Wrap{Tunnel: synth.TunnelGeneve}, "Geneve"},
		{synth.Wrap{Tunnel: synth.TunnelGREIP}, "GRE-IP"},
		{synth.Wrap{Tunnel: synth.TunnelMPLS}, "MPLS"},
		{synth.Wrap{Tunnel: synth.TunnelERSPAN3IP}, "ERSPAN-III"},
	} {
		c, err := synth.Rewrap(base, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		d := decodeCapture(t, c)
		var buf bytes.Buffer
		w, err := newPacketWriter(&buf, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.packets {
			if err := w.add(&d.packets[i], "c.pcap", d.flows[i].ID()); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err := parquet.Read[PacketRow](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 {
			t.Fatalf("%s: %d rows, want 2", tc.want, len(rows))
		}
		for _, r := range rows {
			if r.Encap == nil || *r.Encap != tc.want {
				t.Errorf("encap %v, want %s", r.Encap, tc.want)
			}
		}
	}
}
