package analysis

import (
	"fmt"
	"math/bits"

	"github.com/rocetrace/rocetrace/flows"
)

// qosMasks are the DSCPs and VLAN PCPs (bit 8: untagged) the capture's
// RoCE flows use.
type qosMasks struct {
	dataPCP, cnpPCP   uint16
	dataDSCP, cnpDSCP uint64
	singleDSCP        uint64 // union of the DSCPs of flows that use one DSCP
	singlePCP         uint16 // union of the PCPs of flows that use one PCP
}

// gatherMasks unions the masks of every flow of t.
func gatherMasks(t *flows.Table) qosMasks {
	var m qosMasks
	for _, f := range t.Flows() {
		m.dataPCP |= f.PCPMask
		m.cnpPCP |= f.CNPPCPMask
		m.dataDSCP |= f.DSCPMask
		m.cnpDSCP |= f.CNPDSCPMask
		// Across flows: compare flows that are consistent on their own.
		if f.DataPackets > 0 && bits.OnesCount64(f.DSCPMask) == 1 {
			m.singleDSCP |= f.DSCPMask
		}
		if f.DataPackets > 0 && bits.OnesCount16(f.PCPMask) == 1 {
			m.singlePCP |= f.PCPMask
		}
	}
	return m
}

// qos adds the QoS and path findings: per flow mixed DSCPs or PCPs,
// payloads over the PMTU and several UDP source ports; then capture-wide
// DSCPs or PCPs that differ between flows and CNPs on the data priority.
func (fd *finder) qos(m *qosMasks) {
	t := fd.t
	for _, f := range t.Flows() {
		if bits.OnesCount64(f.DSCPMask) > 1 {
			fd.add(SeverityWarning, CodeMixedDSCP, f, "frames of one flow use several DSCPs: %s", dscpList(f.DSCPMask))
		}
		if bits.OnesCount16(f.PCPMask) > 1 {
			fd.add(SeverityWarning, CodeMixedPCP, f, "frames of one flow use several VLAN priorities: %s", pcpList(f.PCPMask))
		}
		if pm := f.PMTU(); (t.Config().PMTU > 0 || pm > 0) && f.MaxPayload > t.PMTUFor(f) {
			fd.add(SeverityError, CodeOversizePayload, f, "a frame at %s carries %d payload bytes, more than the PMTU of %d bytes",
				fmtTs(f.MaxPayloadTs, fd.c.FirstTsNs), f.MaxPayload, t.PMTUFor(f))
		}
		if nPorts, more := f.NumSrcPorts(); nPorts > 1 {
			n := fmt.Sprint(nPorts)
			if more {
				n = "more than " + n
			}
			fd.add(SeverityWarning, CodeMultipleSourcePorts, f,
				"one QP sends from %s UDP source ports: its packets may take several paths and arrive out of order", n)
		}
	}
	if bits.OnesCount64(m.singleDSCP) > 1 {
		fd.add(SeverityWarning, CodeMixedDSCPFlows, nil, "RoCE flows use different DSCPs: %s", dscpList(m.singleDSCP))
	}
	if bits.OnesCount16(m.singlePCP) > 1 {
		fd.add(SeverityWarning, CodeMixedPCPFlows, nil, "RoCE flows use different VLAN priorities: %s", pcpList(m.singlePCP))
	}
	fd.cnpPriority(m)
}

// cnpPriority adds the finding of CNPs that share the data's VLAN priority
// (or, with both untagged, its DSCP).
func (fd *finder) cnpPriority(m *qosMasks) {
	if m.cnpPCP == 0 {
		return
	}
	tagged := uint16(0xFF)
	switch {
	case m.cnpPCP&m.dataPCP&tagged != 0:
		fd.add(SeverityWarning, CodeCNPOnDataPriority, nil,
			"CNPs travel on VLAN priority %s, which also carries RoCE data: they queue behind the congestion they report",
			pcpList(m.cnpPCP&m.dataPCP&tagged))
	case m.cnpPCP&tagged == 0 && m.dataPCP&tagged == 0 && m.cnpDSCP&m.dataDSCP != 0:
		fd.add(SeverityWarning, CodeCNPOnDataPriority, nil,
			"CNPs use DSCP %s, which also carries RoCE data: they queue behind the congestion they report",
			dscpList(m.cnpDSCP&m.dataDSCP))
	}
}
