package filter

import (
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// decoded returns the decoded packet of frame data (frame number 7).
func decoded(t testing.TB, data []byte) *decode.Packet {
	t.Helper()
	var p decode.Packet
	decode.NewDecoder(decode.Config{}).Decode(data, pcapio.LinkTypeEthernet, len(data), &p)
	p.Frame = 7
	return &p
}

func mustFrame(t testing.TB, r *synth.RoCE, w synth.Wrap) []byte {
	t.Helper()
	b, err := r.Frame(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testPackets are the frames the semantic tests run on.
func testPackets(t testing.TB) map[string]*decode.Packet {
	a, b := synth.Host(1), synth.Host(2)     // 10.0.0.1, 02:00:00:00:00:01 -> 10.0.0.2
	a6, b6 := synth.Host6(1), synth.Host6(2) // fd00::1 -> fd00::2
	write := &synth.RoCE{Src: a, Dst: b, SrcPort: 50000, DSCP: 26, ECN: 3, TTL: 63,
		BTH:  decode.BTHFields{Opcode: 0x06, DestQP: 0x11, PSN: 1000, AckReq: true, PKey: 0xffff},
		RETH: decode.RETHFields{VA: 0x1000, RKey: 0x55, DMALen: 4096}, Payload: 1024}
	ack := &synth.RoCE{Src: b, Dst: a, SrcPort: 50001,
		BTH:  decode.BTHFields{Opcode: 0x11, DestQP: 0x22, PSN: 1000},
		AETH: decode.AETHFields{Syndrome: 0x60, MSN: 3}}
	atomic := &synth.RoCE{Src: a6, Dst: b6, DSCP: 10, TTL: 9,
		BTH:       decode.BTHFields{Opcode: 0x14, DestQP: 0x33, PSN: 5},
		AtomicETH: decode.AtomicETHFields{VA: 0x2000, RKey: 0x66, SwapAdd: 1}}
	qinq := synth.Wrap{VLANs: []synth.VLAN{{PCP: 3, VID: 100}, {PCP: 5, VID: 200}}, QinQ: true}
	return map[string]*decode.Packet{
		"write":  decoded(t, mustFrame(t, write, synth.Wrap{})),
		"ack":    decoded(t, mustFrame(t, ack, qinq)),
		"atomic": decoded(t, mustFrame(t, atomic, synth.Wrap{})),
		"pfc":    decoded(t, synth.PFC([6]byte{2, 0, 0, 0, 0, 9}, 0x08, [8]uint16{3: 0xffff})),
	}
}

func TestSemantics(t *testing.T) {
	ps := testPackets(t)
	frames := map[string]*Frame{
		"write":  {File: "a.pcap", Flow: "10.0.0.1>10.0.0.2:qp0x000011", Events: 1<<0 | 1<<1}, // psn_gap, retransmission
		"ack":    {File: "a.pcap", Flow: "10.0.0.2>10.0.0.1:qp0x000022", Events: 1 << 2},      // nak
		"atomic": {File: "b.pcap", Flow: "fd00::1>fd00::2:qp0x000033"},
		"pfc":    {File: "b.pcap", Events: 1 << 5}, // pause
	}
	tests := []struct {
		expr string
		want string // the matching frames, in the order write ack atomic pfc
	}{
		{"frame == 7", "write ack atomic pfc"},
		{"frame.number != 7", ""},
		{"dst_qpn == 0x11", "write"},
		{"dst_qpn eq 17", "write"},
		{"dst_qpn != 0x11", "ack atomic"}, // pfc has no BTH: != is false too
		{"psn < 1000", "atomic"},
		{"psn <= 1000", "write ack atomic"},
		{"psn gt 5", "write ack"},
		{"psn >= 5 && psn le 5", "atomic"},
		{"kind == \"pfc\"", "pfc"},
		{"kind != \"roce\"", "pfc"},
		{`opcode_name == "RC_ACKNOWLEDGE"`, "ack"},
		{`opcode_name contains "RDMA_WRITE"`, "write"},
		{`opcode_name > "RC_B"`, "write atomic"}, // RC_RDMA_WRITE_ONLY, RC_FETCH_ADD > RC_B > RC_ACKNOWLEDGE
		{`transport == "RC"`, "write ack atomic"},
		{"icrc_status == \"ok\"", "write ack atomic"},
		{`flow == "10.0.0.1>10.0.0.2:qp0x000011"`, "write"},
		{"flow", "write ack atomic"},
		{`file == "b.pcap"`, "atomic pfc"},
		{"reth_va", "write"},
		{"reth_va == 0x2000", ""},
		{"infiniband.reth.va == 0x2000", "atomic"}, // the AtomicETH's VA, as tshark files it
		{"infiniband.reth.r_key in {0x55 0x66}", "write atomic"},
		{"infiniband.reth.dmalen == 4096", "write"},
		{"ackreq == true", "write"},
		{"ackreq == 1", "write"},
		{"ackreq == 0", "ack atomic"},
		{"infiniband.bth.a != false", "write"},
		{"ip.addr == 10.0.0.1", "write ack"},
		{"ip.addr != 10.0.0.1", ""},                    // both IPv4 frames have 10.0.0.1 on one side
		{"ip.addr != 10.0.0.2 || ipv6.addr", "atomic"}, // != false on ack/write (one side is .2)
		{"ip.src == 10.0.0.0/24", "write ack"},
		{"ip.dst == 10.0.0.2/32", "write"},
		{"ipv6.addr == fd00::/8", "atomic"},
		{"src_ip == fd00::1", "atomic"},
		{"src_ip == 10.0.0.2", "ack"},
		{"ip.dsfield.dscp == 10", ""}, // IPv4 only: the IPv6 atomic has DSCP 10
		{"dscp == 10", "atomic"},      // the contract name reads the traffic class
		{"ttl == 9", "atomic"},
		{"ip.ttl == 63", "write"},
		{"ecn == 3", "write"},
		{"eth.src == 02:00:00:00:00:01", "write"},
		{"eth.addr == 02:00:00:00:00:01", "write ack"},
		{"eth.addr != 02:00:00:00:00:01", "atomic pfc"}, // PFC from :09 to 01:80:c2:00:00:01
		{"src_mac == 02-00-00-00-00-09", "pfc"},
		{"vlan.id == 200", "ack"}, // the second tag
		{"vlan_id == 200", ""},    // the outermost only
		{"vlan_id == 100", "ack"},
		{"vlan.priority == 5", "ack"},
		{"vlan_pcp == 3", "ack"},
		{"vlan.id", "ack"},
		{"udp.port == 50001", "ack"},
		{"udp.port == 4791", "write ack atomic"},
		{"udp.port != 4791", ""},
		{"udp.srcport in {50000..50001}", "write ack"},
		{"udp.srcport in {49152, 50001}", "ack atomic"},
		{"udp.srcport in {50001..50000}", ""},              // inverted: empty, as tshark 4.0
		{"udp.srcport in {50001..50000, 49152}", "atomic"}, // the other members still count
		{"udp.srcport not in {50001..50000}", "write ack atomic pfc"},
		{"udp.srcport not in {50000..50001}", "atomic pfc"}, // not(in): pfc lacks the field
		{"pfc_quanta == 0xffff", "pfc"},
		{"pfc_enable == 8", "pfc"},
		{"aeth_syndrome == 0x60 && infiniband.aeth.msn == 3", "ack"},
		{"events", "write ack pfc"},
		{`events == "nak"`, "ack"},
		{`events != "nak"`, "write pfc"},
		{`events in {"pause", "psn_gap"}`, "write pfc"},
		{`events contains "retrans"`, "write"},
		{"!events", "atomic"},
		{"not kind == \"pfc\" and psn == 1000 or dst_qpn == 0x33", "write ack atomic"},
		{"kind == \"pfc\" || psn == 1000 && dst_qpn == 0x22", "ack pfc"}, // && first
		{"(kind == \"pfc\" || psn == 1000) && dst_qpn == 0x22", "ack"},
		{"infiniband.deth.q_key", ""},
	}
	order := []string{"write", "ack", "atomic", "pfc"}
	for _, tc := range tests {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		var got []string
		for _, name := range order {
			if f.Match(ps[name], frames[name]) {
				got = append(got, name)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: matched %q, want %q", tc.expr, g, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		expr string
		col  int
		msg  string // a part of the message
	}{
		{"", 1, "empty filter"},
		{"ip.sr == 10.0.0.1", 1, `unknown field "ip.sr"`},
		{"dst_qpn == ", 12, "expected a value"},
		{"dst_qpn = 1", 9, `use "=="`},
		{"dst_qpn == abc", 12, `"abc" is not a valid value`},
		{`dst_qpn == "1"`, 12, "is an integer"},
		{"kind == cnp", 9, "quoted string"},
		{"ip.addr == fd00::1", 12, "IPv4"},
		{"ipv6.addr == 10.0.0.1", 14, "IPv6"},
		{"ip.addr == 10.0.0.300", 12, "not a valid address"},
		{"ip.addr == 10.0.0.0/33", 12, "CIDR"},
		{"ip.addr < 10.0.0.0/8", 9, "CIDR prefix"},
		{"se < true", 4, "use == or !="},
		{"se == 2", 7, "boolean"},
		{"eth.src == 02:00:00", 12, "not a valid value"},
		{"psn in {1, 2", 8, `missing "}"`},
		{"psn in {}", 9, "empty set"},
		{"psn in {5..x}", 9, "range"},
		{"psn in 1", 8, `expected "{"`},
		{"(psn == 1", 1, `missing ")"`},
		{"psn == 1)", 9, `without "("`},
		{"psn == 1 &&", 12, "unexpected end"},
		{"psn == 1 psn", 10, `unexpected "psn"`},
		{"psn contains \"a\"", 5, "contains needs a string field"},
		{"kind contains cnp", 15, "quoted string"},
		{`events == "gap"`, 11, "unknown event kind"},
		{`events > "nak"`, 8, "use == or !="},
		{`kind == "abc`, 9, "unterminated string"},
		{"psn # 1", 5, "unexpected character"},
		{"psn matches 1", 5, "not supported"},
	}
	for _, tc := range tests {
		_, err := Compile(tc.expr)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: error %v, want *Error", tc.expr, err)
			continue
		}
		if e.Col != tc.col || !strings.Contains(e.Msg, tc.msg) || e.Expr != tc.expr {
			t.Errorf("%q: column %d %q, want column %d with %q", tc.expr, e.Col, e.Msg, tc.col, tc.msg)
		}
	}
}

func TestReadFilterRefusesEvents(t *testing.T) {
	_, err := CompileRead(`psn == 1 || events`)
	e, ok := err.(*Error)
	if !ok || e.Col != 13 || !strings.Contains(e.Msg, "only after the analysis") {
		t.Fatalf("CompileRead: %v", err)
	}
	if _, err := CompileRead(`flow == "x"`); err != nil {
		t.Fatalf("flow in a read filter: %v", err)
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Compile("psn == 1 && ip.sr == 10.0.0.1")
	got := err.(*Error).Format("display filter")
	// "ip.sr" starts at column 13: twelve spaces before the caret.
	want := "rocetrace: display filter: unknown field \"ip.sr\"\n" +
		"  psn == 1 && ip.sr == 10.0.0.1\n" +
		"  " + strings.Repeat(" ", 12) + "^\n"
	if got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
}

func TestNeeds(t *testing.T) {
	f, _ := Compile(`flow == "a" && events`)
	g, _ := Compile(`psn == 1`)
	if !f.NeedsFlow() || !f.NeedsEvents() || g.NeedsFlow() || g.NeedsEvents() {
		t.Errorf("Needs: %v %v %v %v", f.NeedsFlow(), f.NeedsEvents(), g.NeedsFlow(), g.NeedsEvents())
	}
	if f.String() != `flow == "a" && events` {
		t.Errorf("String: %q", f.String())
	}
}

func TestMatchAllocs(t *testing.T) {
	ps := testPackets(t)
	fr := &Frame{File: "a.pcap", Flow: "10.0.0.1>10.0.0.2:qp0x000011", Events: 3}
	for _, expr := range []string{
		"dst_qpn == 0x11",
		`ip.addr == 10.0.0.0/24 && udp.port in {4791, 50000..50010} && opcode_name contains "WRITE" && !events && eth.addr != 02:00:00:00:00:05`,
		`flow == "x" || kind != "cnp" || src_ip == fd00::1 || ackreq == 1 || events == "nak"`,
	} {
		f, err := Compile(expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if n := testing.AllocsPerRun(100, func() { f.Match(p, fr) }); n != 0 {
				t.Errorf("%s: %v allocations per Match", expr, n)
			}
		}
	}
}

func BenchmarkMatchSimple(b *testing.B) {
	p := testPackets(b)["write"]
	f, _ := Compile("dst_qpn == 0x11")
	fr := &Frame{}
	b.ReportAllocs()
	for b.Loop() {
		f.Match(p, fr)
	}
}

func BenchmarkMatch5Terms(b *testing.B) {
	p := testPackets(b)["write"]
	f, _ := Compile(`ip.addr == 10.0.0.0/24 && udp.dstport == 4791 && dst_qpn in {0x10..0x12} && psn > 10 && opcode_name contains "WRITE"`)
	fr := &Frame{}
	b.ReportAllocs()
	for b.Loop() {
		f.Match(p, fr)
	}
}
