package analysis

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
)

// referenceJSON is the document WriteJSON must reproduce byte for byte: a
// json.Encoder without HTML escaping encoding the whole report.
func referenceJSON(t *testing.T, r Report, indent bool) []byte {
	t.Helper()
	return encodeJSON(t, r, "", indent)
}

// encodeJSON is v encoded by a json.Encoder without HTML escaping, indented
// by two spaces after prefix when indent is set.
func encodeJSON(t *testing.T, v any, prefix string, indent bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteJSONStreamsEncoderBytes(t *testing.T) {
	s := func(v string) *string { return &v }
	odd := Report{
		Capture: CaptureSummary{Files: []string{"a<b>&\"q\"\\\x01\u2028é\xff.pcap"}, Packets: 3},
		Flows:   []FlowReport{{ID: "x>y", Peer: s("y>x"), SrcQPN: ptr(uint32(7))}},
		Events: []EventReport{
			{Kind: "nak", TsNs: -1, Flow: s("f\t\"<>\u2029\xfe"), PSN: ptr(uint32(1)), Code: ptr(uint8(3)), Name: s("N"), TargetFlow: nil},
			{Kind: "pause", SrcMAC: s("02:00:00:00:00:0a"), Priority: nil, EndNs: ptr(int64(5)), DurationNs: ptr(int64(4)), Frames: ptr(int64(2))},
			{Kind: "pause", Priority: ptr(-3)},
			{Kind: "odd"},
		},
		PFC:      []PFCReport{{SrcMAC: "m", Priority: ptr(3)}},
		Findings: []Finding{{Severity: "info", Code: "c", Message: "m<&>", Flow: s("x>y")}},
	}
	reports := map[string]Report{
		"zero":     {},
		"empty":    {Capture: CaptureSummary{Files: []string{}}, Flows: []FlowReport{}, Events: []EventReport{}, PFC: []PFCReport{}, Findings: []Finding{}},
		"odd":      odd,
		"scenario": build(t, flows.Config{}, Options{}, goldenScenario()...),
	}
	for name, r := range reports {
		for _, indent := range []bool{false, true} {
			var got bytes.Buffer
			if err := WriteJSON(&got, r, indent); err != nil {
				t.Fatal(err)
			}
			if want := referenceJSON(t, r, indent); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s indent=%v:\ngot  %s\nwant %s", name, indent, got.Bytes(), want)
			}
		}
	}
}
