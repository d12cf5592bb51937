package analysis

import (
	"math"
	"strconv"

	"github.com/rocetrace/rocetrace/internal/jsonstr"
)

// appendJSON appends the flow as encoding/json writes it (HTML escaping
// off), or, with indent, as json.Indent(prefix "    ", indent "  ") lays
// that out (an element of a top-level member array, as events are). Unlike
// an encoder it allocates nothing: a report of a million flows leaves no
// garbage per flow. TestGoldenJSON and TestFlowJSONMatchesEncoder compare
// it with encoding/json.
func (f *FlowReport) appendJSON(b []byte, indent bool) []byte {
	w := evWriter{b: b, indent: indent}
	if indent {
		w.b = append(w.b, '{')
		w.b = append(w.b, evIndentField...)
		w.b = append(w.b, `"id": `...)
	} else {
		w.b = append(w.b, `{"id":`...)
	}
	w.b = jsonstr.Append(w.b, f.ID)
	w.str("src_ip", &f.SrcIP)
	w.str("dst_ip", &f.DstIP)
	w.u32("dst_qpn", &f.DstQPN)
	w.u32("src_qpn", f.SrcQPN)
	w.str("transport", &f.Transport)
	w.str("peer", f.Peer)
	for _, v := range [...]struct {
		name string
		v    *int64
	}{
		{"packets", &f.Packets}, {"bytes", &f.Bytes}, {"payload_bytes", &f.PayloadBytes},
		{"first_ts_ns", &f.FirstTsNs}, {"last_ts_ns", &f.LastTsNs}, {"psn_gaps", &f.PSNGaps},
		{"missing_psns", &f.MissingPSNs}, {"retransmitted", &f.Retransmitted}, {"naks", &f.NAKs},
		{"rnr_naks", &f.RNRNAKs}, {"ecn_ce", &f.ECNCE}, {"cnps", &f.CNPs}, {"cnps_received", &f.CNPsReceived},
		{"cc_reaction_cnps", &f.CCReactionCNPs},
	} {
		w.int(v.name, v.v)
	}
	if w.null("cc_rate_ratio_p50", f.CCRateRatioP50 == nil) {
		w.b = appendFloat(w.b, *f.CCRateRatioP50)
	}
	for _, v := range [...]struct {
		name string
		v    *int64
	}{
		{"ack_latency_count", &f.AckLatencyCount}, {"ack_latency_p50_ns", f.AckLatencyP50Ns},
		{"ack_latency_p99_ns", f.AckLatencyP99Ns}, {"ack_latency_max_ns", f.AckLatencyMaxNs},
		{"read_latency_count", &f.ReadLatencyCount}, {"read_latency_p50_ns", f.ReadLatencyP50Ns},
		{"read_latency_p99_ns", f.ReadLatencyP99Ns}, {"read_latency_max_ns", f.ReadLatencyMaxNs},
		{"goodput_bps", f.GoodputBps}, {"peak_bps", &f.PeakBps},
	} {
		w.int(v.name, v.v)
	}
	w.appendQoS(f)
	if indent {
		w.b = append(w.b, evIndentClose...)
	}
	return append(w.b, '}')
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// representation, in exponent form below 1e-6 and from 1e21 on, with a
// one-digit negative exponent unpadded (1e-7, not 1e-07). f is finite.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendQoS appends the flow's QoS members (dscp ... src_ports_more), in
// FlowReport's field order.
func (w *evWriter) appendQoS(f *FlowReport) {
	w.intv("dscp", &f.DSCP)
	w.bool("dscp_mixed", f.DSCPMixed)
	w.intv("vlan_id", f.VLANID)
	w.intv("pcp", f.PCP)
	w.bool("vlan_mixed", f.VLANMixed)
	w.intv("src_port", f.SrcPort)
	w.intv("src_ports", &f.SrcPorts)
	w.bool("src_ports_more", f.SrcPortsMore)
}

// intv appends an int member; nil is null.
func (w *evWriter) intv(name string, v *int) {
	if w.null(name, v == nil) {
		w.b = strconv.AppendInt(w.b, int64(*v), 10)
	}
}

// bool appends a boolean member.
func (w *evWriter) bool(name string, v bool) {
	w.field(name)
	w.b = strconv.AppendBool(w.b, v)
}
