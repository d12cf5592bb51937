package analysis

import (
	"bytes"
	"testing"
)

// FlowReport.appendJSON writes what encoding/json writes (HTML escaping
// off; indented as an element of a top-level array): every nullable field
// null and set, floats in both notations, strings that need escaping.
func TestFlowJSONMatchesEncoder(t *testing.T) {
	u32, s, i64 := uint32(0x55), "10.0.0.2>10.0.0.1:qp0x000011", int64(-7)
	vid, pcp, sport := 4094, 3, 65535
	full := FlowReport{
		ID: `a"b\<c>&` + "\u2028\x01", SrcIP: "10.0.0.1", DstIP: "fe80::1", DstQPN: 0xffffff, SrcQPN: &u32,
		Transport: "UD", Peer: &s, Packets: 1, Bytes: 2, PayloadBytes: 3, FirstTsNs: 4, LastTsNs: 5,
		PSNGaps: 6, MissingPSNs: 7, Retransmitted: 8, NAKs: 9, RNRNAKs: 10, ECNCE: 11, CNPs: 12,
		CNPsReceived: 13, CCReactionCNPs: 14, AckLatencyCount: 15, AckLatencyP50Ns: &i64,
		AckLatencyP99Ns: &i64, AckLatencyMaxNs: &i64, ReadLatencyCount: 16, ReadLatencyP50Ns: &i64,
		ReadLatencyP99Ns: &i64, ReadLatencyMaxNs: &i64, GoodputBps: &i64, PeakBps: 1 << 62,
		DSCP: 26, DSCPMixed: true, VLANID: &vid, PCP: &pcp, VLANMixed: true, SrcPort: &sport, SrcPorts: 8,
		SrcPortsMore: true,
	}
	var flows []FlowReport
	for _, ratio := range []float64{0, 0.5, 1, 2.0 / 3, 1e-6, 9.99e-7, 1.5e-7, 1e-12, 1e20, 1e21, 123456789.125, -0.25} {
		f := full
		f.CCRateRatioP50 = &ratio
		flows = append(flows, f)
	}
	flows = append(flows, FlowReport{ID: "x", Transport: "RC"}) // every pointer nil
	for i := range flows {
		for _, indent := range []bool{false, true} {
			want := encoderJSON(t, flows[i], indent)
			if got := flows[i].appendJSON(nil, indent); !bytes.Equal(got, want) {
				t.Errorf("flow %d indent %v:\n got %s\nwant %s", i, indent, got, want)
			}
		}
	}
}

// Finding.appendJSON writes what encoding/json writes (HTML escaping off;
// indented as an element of a top-level array): every severity, the
// nullable fields null and set, strings that need escaping.
func TestFindingJSONMatchesEncoder(t *testing.T) {
	flow, k, idle, neg := "10.0.0.2>10.0.0.1:qp0x000011", 17, int64(1<<40), int64(-3)
	findings := []Finding{
		{Severity: SeverityError, Code: CodeRetransmissionTimeout, Message: "timeout", Flow: &flow, TimeoutK: &k, IdleNs: &idle},
		{Severity: SeverityWarning, Code: "x", Message: `a"b\<c>&` + "\u2028\x01\xff\n", Flow: &flow},
		{Severity: SeverityInfo, Code: "y", Message: "", IdleNs: &neg},
		{}, // every field empty or null
	}
	for i := range findings {
		for _, indent := range []bool{false, true} {
			want := encoderJSON(t, findings[i], indent)
			if got := findings[i].appendJSON(nil, indent); !bytes.Equal(got, want) {
				t.Errorf("finding %d indent %v:\n got %s\nwant %s", i, indent, got, want)
			}
		}
	}
}

// encoderJSON is v as WriteJSON's encoder writes it (referenceJSON's
// encoder), indented as an element of a top-level array when indent is
// set, without Encode's newline.
func encoderJSON(t *testing.T, v any, indent bool) []byte {
	t.Helper()
	return bytes.TrimSuffix(encodeJSON(t, v, "    ", indent), []byte("\n"))
}
