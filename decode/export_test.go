package decode

// NewGeneralDecoder returns a Decoder for cfg that never takes the fast
// path (fastEthernet), for differential tests.
func NewGeneralDecoder(cfg Config) *Decoder {
	d := NewDecoder(cfg)
	d.general = true
	return d
}

// FastEthernet is fastEthernet for tests: whether it took the frame, and
// the packet (Decode's part set as Decode sets it).
func (d *Decoder) FastEthernet(data []byte, wire int, p *Packet) bool {
	*p = Packet{}
	wire = max(wire, len(data))
	p.Len, p.CapLen, p.Truncated = wire, len(data), len(data) < wire
	return d.fastEthernet(data, wire, p)
}
