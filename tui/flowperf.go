package tui

import (
	"cmp"

	"github.com/rocetrace/rocetrace/analysis"
)

// The flows table's throughput columns (issue 13): goodput_bps and
// peak_bps as the report has them, with their unit. A flow without a
// goodput (one frame, or all at one time) shows "-" and sorts first.

var goodputColumn = flowColumn{
	title: "Goodput", right: true,
	text: func(f *analysis.FlowReport, _ int64) string {
		if f.GoodputBps == nil {
			return "-"
		}
		return fmtBps(*f.GoodputBps)
	},
	cmp: func(a, b *analysis.FlowReport) int { return cmp.Compare(goodputOf(a), goodputOf(b)) },
}

var peakColumn = flowColumn{
	title: "Peak", right: true,
	text: func(f *analysis.FlowReport, _ int64) string { return fmtBps(f.PeakBps) },
	cmp:  func(a, b *analysis.FlowReport) int { return cmp.Compare(a.PeakBps, b.PeakBps) },
}

// goodputOf is a flow's goodput for sorting, -1 when null.
func goodputOf(f *analysis.FlowReport) int64 {
	if f.GoodputBps == nil {
		return -1
	}
	return *f.GoodputBps
}

// The flows table's QoS columns (issue 16): dscp, pcp / vlan_id and
// src_port as the report has them, so that a "lossless priority" finding
// can be checked. "+" follows a value when the flow's frames had several
// (dscp_mixed, vlan_mixed); "-" is untagged (or no source port); the
// number of distinct source ports follows the first when there are more.

var dscpColumn = flowColumn{
	title: "DSCP", right: true,
	text: func(f *analysis.FlowReport, _ int64) string { return fmtDSCP(f) },
	cmp: func(a, b *analysis.FlowReport) int {
		return cmp.Or(cmp.Compare(a.DSCP, b.DSCP), cmpBool(a.DSCPMixed, b.DSCPMixed))
	},
}

var vlanColumn = flowColumn{
	title: "PCP/VLAN", right: true,
	text: func(f *analysis.FlowReport, _ int64) string { return fmtVLAN(f) },
	cmp: func(a, b *analysis.FlowReport) int {
		return cmp.Or(cmp.Compare(optInt(a.PCP), optInt(b.PCP)), cmp.Compare(optInt(a.VLANID), optInt(b.VLANID)),
			cmpBool(a.VLANMixed, b.VLANMixed))
	},
}

var srcPortColumn = flowColumn{
	title: "Src port", right: true,
	text: func(f *analysis.FlowReport, _ int64) string { return fmtSrcPorts(f) },
	cmp: func(a, b *analysis.FlowReport) int {
		return cmp.Or(cmp.Compare(optInt(a.SrcPort), optInt(b.SrcPort)), cmp.Compare(a.SrcPorts, b.SrcPorts),
			cmpBool(a.SrcPortsMore, b.SrcPortsMore))
	},
}

// fmtDSCP is "26", or "10+" when the frames had several DSCPs (the lowest).
func fmtDSCP(f *analysis.FlowReport) string {
	s := itoa(f.DSCP)
	if f.DSCPMixed {
		s += "+"
	}
	return s
}

// fmtVLAN is "PCP/VLAN" of the first frame's tag ("3/100"), "-" when
// untagged, with "+" when later frames differed.
func fmtVLAN(f *analysis.FlowReport) string {
	s := "-"
	if f.PCP != nil && f.VLANID != nil {
		s = itoa(*f.PCP) + "/" + itoa(*f.VLANID)
	}
	if f.VLANMixed {
		s += "+"
	}
	return s
}

// fmtSrcPorts is the first UDP source port, "-" for none, followed by
// the number of distinct ports when there were several: "49152 (3)",
// "49152 (8+)".
func fmtSrcPorts(f *analysis.FlowReport) string {
	if f.SrcPort == nil {
		return "-"
	}
	s := itoa(*f.SrcPort)
	switch {
	case f.SrcPortsMore:
		s += " (" + itoa(f.SrcPorts) + "+)"
	case f.SrcPorts > 1:
		s += " (" + itoa(f.SrcPorts) + ")"
	}
	return s
}

// optInt is *p, or -1 when nil (sorts first).
func optInt(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// flowQoS is the flow detail's QoS line: "DSCP 26, PCP 3, VLAN 100, UDP
// source port 49152"; several values are said ("DSCP 10 and others").
func flowQoS(f *analysis.FlowReport) string {
	s := "DSCP " + itoa(f.DSCP)
	if f.DSCPMixed {
		s += " and others"
	}
	if f.PCP != nil && f.VLANID != nil {
		s += ", PCP " + itoa(*f.PCP) + ", VLAN " + itoa(*f.VLANID)
	} else {
		s += ", untagged"
	}
	if f.VLANMixed {
		s += " (tags differ)"
	}
	if f.SrcPort != nil {
		s += ", UDP source port " + itoa(*f.SrcPort)
		switch {
		case f.SrcPortsMore:
			s += " (more than " + itoa(f.SrcPorts) + " ports)"
		case f.SrcPorts > 1:
			s += " (" + itoa(f.SrcPorts) + " ports)"
		}
	}
	return s
}
