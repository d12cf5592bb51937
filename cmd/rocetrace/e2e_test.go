package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// reportJSON runs `report --json` on paths and decodes the document.
func reportJSON(t *testing.T, paths ...string) map[string]any {
	t.Helper()
	code, out, errOut := rt(t, append([]string{"report", "--json"}, paths...)...)
	if code != 0 {
		t.Fatalf("report --json: exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("report --json: %v", err)
	}
	return m
}

// mixedScenario is one capture with something of everything the analysis
// reports: a gap with NAK and replay, CE marks and CNPs, a READ, UD, and
// PFC pauses.
func mixedScenario() *synth.Capture {
	loss := synth.LossNAKReplay()
	cong := synth.CongestionCNP()
	pfc := synth.PFCPauseStorm()
	c := &synth.Capture{}
	c.Frames = append(c.Frames, loss.Frames...)
	// Shift the other scenarios by whole milliseconds so they interleave.
	for _, f := range cong.Frames {
		f.TsNs += 30_000
		c.Frames = append(c.Frames, f)
	}
	for _, f := range pfc.Frames {
		f.TsNs += 50_000
		c.Frames = append(c.Frames, f)
	}
	ud := &synth.UD{Cap: c, Src: synth.Host(3), Dst: synth.Host(4), SrcQP: 0x51, DstQP: 0x52, QKey: 0x11111111, PSN: 9}
	ud.Send(1767323045_000_200_000, 100)
	ud.Send(1767323045_000_300_000, 100)
	c.Sort()
	return c
}

// withoutBytesAndFiles drops what legitimately changes with the wrapping:
// the file names, and flow bytes and peak_bps (they count the analysed frame,
// which grows by 4 bytes per VLAN tag).
// withoutFlowVLAN drops the flows' VLAN keys (vlan_id, pcp, vlan_mixed)
// from a report made by withoutBytesAndFiles (its flow maps are copies).
func withoutFlowVLAN(m map[string]any) {
	for _, f := range m["flows"].([]any) {
		for _, k := range []string{"vlan_id", "pcp", "vlan_mixed"} {
			delete(f.(map[string]any), k)
		}
	}
}

func withoutBytesAndFiles(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	capt := map[string]any{}
	for k, v := range m["capture"].(map[string]any) {
		if k != "files" {
			capt[k] = v
		}
	}
	out["capture"] = capt
	var fl []any
	for _, f := range m["flows"].([]any) {
		g := map[string]any{}
		for k, v := range f.(map[string]any) {
			if k != "bytes" && k != "peak_bps" { // peak_bps is bytes per window
				g[k] = v
			}
		}
		fl = append(fl, g)
	}
	out["flows"] = fl
	return out
}

// flowBytes returns flow id -> (bytes, packets).
func flowBytes(m map[string]any) map[string][2]float64 {
	out := map[string][2]float64{}
	for _, f := range m["flows"].([]any) {
		g := f.(map[string]any)
		out[g["id"].(string)] = [2]float64{g["bytes"].(float64), g["packets"].(float64)}
	}
	return out
}

// TestEncapsulationInvariance wraps the same traffic in every encapsulation
// rocetrace decodes; the analysis must not change, except flow bytes,
// which grow by exactly 4 per frame per VLAN tag.
func TestEncapsulationInvariance(t *testing.T) {
	base := mixedScenario()
	basePath := writeCapture(t, base, synth.PcapNanos)
	want := reportJSON(t, basePath)
	if n := len(want["events"].([]any)); n < 5 {
		t.Fatalf("scenario too thin: %d events", n)
	}
	wantBytes := flowBytes(want)
	wraps := []struct {
		name string
		w    synth.Wrap
		tags int
		f    synth.Format
		ip   bool // the tunnel carries IP packets: the frames' VLAN tags are gone
	}{
		{"vlan", synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}}}, 1, synth.PcapNanos, false},
		{"qinq", synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 3, VID: 7}}, QinQ: true}, 2, synth.Pcapng, false},
		{"erspan1", synth.Wrap{ERSPAN: 1}, 0, synth.PcapNanos, false},
		{"erspan2", synth.Wrap{ERSPAN: 2, MirrorVLAN: []synth.VLAN{{VID: 9}}}, 0, synth.Pcapng, false},
		{"erspan3_vlan", synth.Wrap{ERSPAN: 3, VLANs: []synth.VLAN{{PCP: 3, VID: 100}}}, 1, synth.PcapNanos, false},
		// Overlays: the inner frame (VXLAN, Geneve) or the IP packet in an
		// untagged Ethernet frame's length (GRE-IP, Geneve-IP, ERSPAN III
		// frame type 2) is what a flow counts, so bytes do not change.
		{"vxlan", synth.Wrap{Tunnel: synth.TunnelVXLAN}, 0, synth.PcapNanos, false},
		{"geneve", synth.Wrap{Tunnel: synth.TunnelGeneve}, 0, synth.Pcapng, false},
		{"geneve_ip", synth.Wrap{Tunnel: synth.TunnelGeneveIP}, 0, synth.PcapNanos, true},
		{"gre_ip", synth.Wrap{Tunnel: synth.TunnelGREIP}, 0, synth.PcapNanos, true},
		{"erspan3_ip", synth.Wrap{Tunnel: synth.TunnelERSPAN3IP}, 0, synth.Pcapng, true},
		// MPLS: two labels, 8 bytes a frame, as two VLAN tags would add
		// (tags: 2 only for the byte count; the PCPs do not change).
		{"mpls", synth.Wrap{Tunnel: synth.TunnelMPLS}, 2, synth.PcapNanos, false},
		// VXLAN on another port, inside an ERSPAN II mirror.
		{"erspan2_vxlan", synth.Wrap{ERSPAN: 2, Tunnel: synth.TunnelVXLAN}, 0, synth.PcapNanos, false},
	}
	for _, tc := range wraps {
		t.Run(tc.name, func(t *testing.T) {
			c, err := synth.Rewrap(base, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			got := reportJSON(t, writeCapture(t, c, tc.f))
			w := withoutBytesAndFiles(want)
			if tc.tags > 0 {
				// New outer tags put every frame on priority 3, which
				// changes the priority findings (mixed PCP, CNPs on the
				// data priority, loss on a lossless priority), as it should.
				delete(w, "findings")
				delete(got, "findings")
			}
			if tc.ip {
				// Some frames of the scenario are tagged with PCP 3, others
				// not: without the tags that finding goes, as it should.
				w["findings"] = withoutFinding(w["findings"], "mixed_pcp_across_flows")
			}
			g := withoutBytesAndFiles(got)
			if tc.tags > 0 || tc.ip {
				// The flows' VLAN tag is the new outer tag's, or gone.
				withoutFlowVLAN(w)
				withoutFlowVLAN(g)
			}
			if !reflect.DeepEqual(g, w) {
				gj, _ := json.MarshalIndent(g, "", " ")
				t.Fatalf("analysis changed under %s:\n%s", tc.name, gj)
			}
			for id, bp := range flowBytes(got) {
				w := wantBytes[id]
				if lost := w[0] - bp[0]; tc.ip && lost >= 0 && lost <= 4*w[1] && int(lost)%4 == 0 {
					// The IP packet counts as in an untagged frame: 4 bytes
					// less for each frame the scenario tagged (the flow of
					// QP 0x32: 16 frames, 17504 - 16*4 = 17440 bytes).
					continue
				}
				if bp[0] != w[0]+4*float64(tc.tags)*w[1] {
					t.Errorf("flow %s: bytes %v, want %v + 4*%d*%v", id, bp[0], w[0], tc.tags, w[1])
				}
			}
		})
	}
}

// withoutFinding returns the findings list fs without those of code.
func withoutFinding(fs any, code string) any {
	var out []any
	for _, f := range fs.([]any) {
		if f.(map[string]any)["code"] != code {
			out = append(out, f)
		}
	}
	return out
}

// TestSplitByDirectionMerged splits a capture into one file per sending
// host (as two capture points would record it), in two formats; merged in
// timestamp order they must give the same analysis as the single file.
func TestSplitByDirectionMerged(t *testing.T) {
	base := mixedScenario()
	want := reportJSON(t, writeCapture(t, base, synth.PcapNanos))
	var a, b synth.Capture
	dec := decode.NewDecoder(decode.Config{})
	var p decode.Packet
	for _, f := range base.Frames {
		// Frames sent by 10.0.0.1, 10.0.0.3 and the PFC source go to the
		// first file.
		dec.Decode(f.Data, pcapio.LinkTypeEthernet, f.Len, &p)
		if !p.SrcIP.IsValid() || p.SrcIP.As4()[3]%2 == 1 {
			a.Frames = append(a.Frames, f)
		} else {
			b.Frames = append(b.Frames, f)
		}
	}
	if len(a.Frames) == 0 || len(b.Frames) == 0 {
		t.Fatal("split left a file empty")
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a.pcapng"), filepath.Join(dir, "b.pcap")
	if err := a.WriteFile(pa, synth.Pcapng); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile(pb, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]string{{pa, pb}, {pb, pa}} {
		got := reportJSON(t, order...)
		if !reflect.DeepEqual(withoutBytesAndFiles(got), withoutBytesAndFiles(want)) ||
			!reflect.DeepEqual(flowBytes(got), flowBytes(want)) {
			gj, _ := json.MarshalIndent(got, "", " ")
			t.Fatalf("merged analysis of %v differs from the single file:\n%s", order, gj)
		}
	}
}
