package export

import (
	"bytes"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/internal/golden"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// extrasCapture has what the demo scenarios lack: UD with DETH, SEND with
// immediate and with invalidate, atomics and their ACK, an RNR NAK, XRC, a
// bad ICRC, 802.3x PAUSE, QinQ tags and a frame cut by the snaplen.
func extrasCapture() *synth.Capture {
	const t0 = 1767323045_000000000
	c := &synth.Capture{}
	ud := &synth.UD{Cap: c, Src: synth.Host(5), Dst: synth.Host(6), SrcQP: 0x51, DstQP: 0x61, QKey: 0x11111111, PSN: 7, SrcPort: 50000}
	ud.Send(t0+1_000, 256)
	ud.Send(t0+2_000, 512)
	conn := synth.NewConn(c, synth.Host(3), synth.Host(4), 0x33, 0x44, 10, 20)
	conn.Request(synth.A, t0+3_000, decode.OpSendOnlyImm, 64, func(r *synth.RoCE) { r.Imm = 0xdeadbeef })
	conn.Request(synth.A, t0+4_000, decode.OpSendOnlyInvalidate, 64, func(r *synth.RoCE) { r.IETHRKey = 0xabc })
	conn.Request(synth.A, t0+5_000, decode.OpCompareSwap, 0, func(r *synth.RoCE) {
		r.AtomicETH = decode.AtomicETHFields{VA: 0xffff_0000_0000_0008, RKey: 0x77, SwapAdd: 1 << 63, Compare: 42}
	})
	c.AddRoCE(t0+6_000, &synth.RoCE{
		Src: synth.Host(4), Dst: synth.Host(3), DSCP: 26, ECN: 2,
		BTH:           decode.BTHFields{Opcode: decode.Opcode(decode.OpAtomicAcknowledge), PKey: 0xFFFF, DestQP: 0x33, PSN: 12},
		AETH:          decode.AETHFields{Syndrome: 0x1F, MSN: 3},
		AtomicAckOrig: 0xfedcba9876543210,
	})
	conn.Request(synth.A, t0+7_000, decode.OpSendOnly, 128, nil)
	conn.RNRNAK(synth.B, t0+8_000, 13, 14)
	c.AddRoCE(t0+9_000, &synth.RoCE{
		Src: synth.Host(3), Dst: synth.Host(4), DSCP: 26, ECN: 3, CorruptICRC: true,
		BTH: decode.BTHFields{Opcode: decode.Opcode(decode.OpSendOnly), PKey: 0xFFFF, DestQP: 0x44, PSN: 14, SE: true, MigReq: true, FECN: true, AckReq: true},
	})
	x := synth.NewConn(c, synth.Host(7), synth.Host(8), 0x70, 0x80, 0, 0)
	x.Transport = decode.TransportXRC
	x.XRCSRQ = 0x1234
	x.Write(synth.A, t0+10_000, 1_000, 2048)
	c.AddRoCEWrap(t0+20_000, &synth.RoCE{
		Src: synth.Host(3), Dst: synth.Host(4), DSCP: 26, ECN: 2,
		BTH: decode.BTHFields{Opcode: decode.Opcode(decode.OpSendOnly), PKey: 0xFFFF, DestQP: 0x44, PSN: 15},
	}, synth.Wrap{QinQ: true, VLANs: []synth.VLAN{{PCP: 5, VID: 200}, {PCP: 3, VID: 10}}})
	sw := [6]byte{0x02, 0x5a, 0, 0, 0, 9}
	c.Add(t0+30_000, synth.Pause(sw, 0xffff))
	c.Add(t0+40_000, synth.Pause(sw, 0))
	c.Add(t0+50_000, synth.PFC(sw, 0x0081, [8]uint16{0: 100, 7: 200, 3: 999}))
	c.Add(t0+60_000, synth.PFC(sw, 0x0081, [8]uint16{}))
	// A WRITE cut after its RETH by a 70-byte snaplen.
	b, _ := (&synth.RoCE{
		Src: synth.Host(3), Dst: synth.Host(4), DSCP: 26, ECN: 2, Payload: 1024,
		BTH:  decode.BTHFields{Opcode: decode.Opcode(decode.OpWriteOnly), PKey: 0xFFFF, DestQP: 0x44, PSN: 16},
		RETH: decode.RETHFields{VA: 0x1000, RKey: 9, DMALen: 1024},
	}).Frame(synth.Wrap{})
	c.Frames = append(c.Frames, synth.Frame{TsNs: t0 + 70_000, Data: b[:70], Len: len(b)})
	// A whole SEND Only made malformed: its opcode changed to COMPARE_SWAP,
	// whose AtomicETH the UDP length does not hold (icrc_status
	// "malformed", icrc null, no flow).
	m, _ := (&synth.RoCE{
		Src: synth.Host(3), Dst: synth.Host(4), DSCP: 26, ECN: 2, Payload: 8,
		BTH: decode.BTHFields{Opcode: decode.Opcode(decode.OpSendOnly), PKey: 0xFFFF, DestQP: 0x44, PSN: 17},
	}).Frame(synth.Wrap{})
	m[14+20+8] = decode.OpCompareSwap
	c.Add(t0+80_000, m)
	c.Sort()
	return c
}

// testCaptures returns every demo scenario and the extras.
func testCaptures() map[string]*synth.Capture {
	m := map[string]*synth.Capture{"extras": extrasCapture()}
	for _, s := range synth.Scenarios() {
		m[s.Name] = s.Build()
	}
	return m
}

// decoded is a capture decoded and observed by a flows table.
type decoded struct {
	packets []decode.Packet
	flows   []*flows.Flow // the flow of each packet, or nil
	table   *flows.Table
}

// decodeCapture decodes every frame of c.
func decodeCapture(t testing.TB, c *synth.Capture) *decoded {
	t.Helper()
	var buf bytes.Buffer
	if err := c.WriteTo(&buf, synth.PcapNanos); err != nil {
		t.Fatal(err)
	}
	r, err := pcapio.NewReader(&buf, "c.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoded{table: flows.NewTable(flows.Config{})}
	dec := decode.NewDecoder(decode.Config{RoCEPort: decode.DefaultRoCEPort})
	var rec pcapio.Record
	for {
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var p decode.Packet
		dec.DecodeRecord(&rec, &p)
		d.table.Observe(&p)
		d.packets = append(d.packets, p)
		d.flows = append(d.flows, d.table.FlowOf(&p))
	}
	return d
}

// columns returns the values of a row struct by parquet column name: nil
// for a nil pointer or slice, the pointed-to value otherwise.
func columns(v any) map[string]any {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	m := make(map[string]any)
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		tag, ok := f.Tag.Lookup("parquet")
		if !ok || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		switch {
		case (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Slice) && fv.IsNil():
			m[name] = nil
		case fv.Kind() == reflect.Pointer:
			m[name] = fv.Elem().Interface()
		default:
			m[name] = fv.Interface()
		}
	}
	return m
}
