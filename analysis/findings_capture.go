package analysis

// capture adds the findings about the frames themselves: bad ICRCs (per
// flow), ICRCs left unchecked by the snaplen, malformed frames and frames
// the capture lost in the kernel, and frames of flows beyond the flow limit.
func (fd *finder) capture() {
	for _, f := range fd.t.Flows() {
		if f.ICRCBad > 0 {
			fd.add(SeverityError, CodeICRCBad, f, "%d of %d frames have a bad ICRC (corruption, or a middlebox rewrote an invariant field)",
				f.ICRCBad, f.Packets)
		}
	}
	c := fd.c
	if c.ICRCUnchecked > 0 {
		fd.add(SeverityInfo, CodeICRCUnchecked, nil,
			"%d of %d RoCE frames were cut too short to check the ICRC (capture snaplen)", c.ICRCUnchecked, c.RoCEPackets)
	}
	if c.Malformed > 0 {
		fd.add(SeverityWarning, CodeMalformed, nil, "%d frames are malformed (their lengths contradict themselves)", c.Malformed)
	}
	if c.KernelDrops > 0 {
		fd.add(SeverityWarning, CodeCaptureDrops, nil,
			"the capture itself lost %s in the kernel (receive ring full): PSN gaps and missing frames may be capture loss, not fabric loss",
			plural(c.KernelDrops, "frame"))
	}
	if c.FlowsDropped > 0 {
		fd.add(SeverityWarning, CodeFlowsDropped, nil,
			"%s of flows beyond the flow limit (%s, --max-flows) started no flow: they are counted here but in no flow, event or finding",
			plural(c.FlowsDropped, "frame"), plural(int64(fd.t.MaxFlows()), "flow"))
	}
}
