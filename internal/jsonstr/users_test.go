package jsonstr_test

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
)

// rocePacket is a decoded RoCE WRITE frame, as `packets --json` writes them.
func rocePacket() *decode.Packet {
	return &decode.Packet{
		Frame: 7, TsNs: 1_700_000_000_123_456_789, Len: 1082, CapLen: 1082,
		Kind: decode.KindRoCE, ICRCStatus: decode.ICRCOK, HasMAC: true,
		SrcMAC: [6]byte{2, 0, 0, 0, 0, 1}, DstMAC: [6]byte{2, 0, 0, 0, 0, 2},
		IPVersion: 4, SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		TTL: 64, HasUDP: true, SrcPort: 49152, DstPort: 4791, HasBTH: true,
		BTH:        decode.BTHFields{Opcode: 0x06, PKey: 0xffff, DestQP: 0x11, PSN: 100},
		Ext:        decode.ExtRETH,
		RETH:       decode.RETHFields{VA: 0x7f0000001000, RKey: 0x1234, DMALen: 4096},
		PayloadLen: 1024, HasPayloadLen: true,
	}
}

// A file name with invalid UTF-8 gives a valid JSON packet (valid UTF-8),
// the bad byte written as \ufffd, as encoding/json does.
func TestPacketAppendJSONInvalidUTF8(t *testing.T) {
	for _, file := range []string{"a\xffb.pcap", "a\u2028b\x01\n\"\\.pcap", "plain.pcap"} {
		b := rocePacket().AppendJSON(nil, file, "10.0.0.1>10.0.0.2:qp0x000011")
		// json.Valid does not check the UTF-8 inside strings: JSON text
		// must be UTF-8 (RFC 8259), so check that too.
		if !json.Valid(b) || !utf8.Valid(b) {
			t.Fatalf("file %q: invalid JSON: %q", file, b)
		}
		var obj struct{ File, Flow string }
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		if want := strings.ToValidUTF8(file, "\ufffd"); obj.File != want {
			t.Errorf("file %q: decoded %q, want %q", file, obj.File, want)
		}
		if obj.Flow != "10.0.0.1>10.0.0.2:qp0x000011" || !bytes.Contains(b, []byte(`"flow":"10.0.0.1>10.0.0.2:qp0x000011"`)) {
			t.Errorf("flow id not written as it is: %s", b)
		}
	}
	b := rocePacket().AppendJSON(nil, "a\xffb.pcap", "")
	if !bytes.Contains(b, []byte(`"file":"a\ufffdb.pcap"`)) {
		t.Errorf(`want "file":"a\ufffdb.pcap" in %s`, b)
	}
}

// An event with invalid UTF-8 marshals as encoding/json writes its strings.
func TestEventMarshalJSONInvalidUTF8(t *testing.T) {
	id := "a\xffb>c\u2028"
	b, err := analysis.EventReport{Kind: "cnp", Flow: &id}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"cnp","ts_ns":0,"flow":"a\ufffdb>c\u2028","target_flow":null,"ecn_to_cnp_ns":null,"rate_before_bps":null,"rate_after_bps":null}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func BenchmarkPacketAppendJSON(b *testing.B) {
	p := rocePacket()
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.AppendJSON(buf[:0], "/work/shared/pcaps/rxe_tut_nccl_ring2_node0.pcap", "10.0.0.1>10.0.0.2:qp0x000011")
	}
}

func BenchmarkEventMarshalJSON(b *testing.B) {
	id, target := "10.0.0.1>10.0.0.2:qp0x000011", "10.0.0.2>10.0.0.1:qp0x000012"
	lat := int64(12_345)
	e := analysis.EventReport{Kind: "cnp", TsNs: 1_700_000_000_123_456_789, Flow: &id, TargetFlow: &target, ECNToCNPNs: &lat}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
