package decode

// appendEncapTree writes the encapsulation a frame arrived in (the tree of
// `packets -V`): what carried it, its tunnel or session ID, and that the
// headers below are the inner frame's.
func appendEncapTree(t *treeWriter, p *Packet) {
	switch p.Encap {
	case EncapNone:
		return
	case EncapMPLS:
		t.head("MPLS label stack: %d label(s), bottom label %d", p.MPLSLabels, p.TunnelID)
		return
	case EncapVXLAN:
		t.head("Tunnel: UDP / VXLAN, VNI %d (headers below are the inner frame's)", p.TunnelID)
	case EncapGeneve:
		t.head("Tunnel: UDP / Geneve, VNI %d (headers below are the inner frame's)", p.TunnelID)
	case EncapGREIP:
		t.head("Tunnel: GRE-IP, an IP packet in GRE (headers below are the inner packet's)")
	case EncapERSPAN2, EncapERSPAN3:
		t.head("Mirror encapsulation: GRE / %s, session %d (headers below are the inner frame's)", p.Encap, p.TunnelID)
	default:
		t.head("Mirror encapsulation: GRE / %s (headers below are the inner frame's)", p.Encap)
	}
	t.line("Inner frame length: %d bytes", p.FrameLen)
	if p.MPLSLabels > 0 {
		t.line("MPLS label stack: %d label(s)", p.MPLSLabels)
	}
}
