package pcapio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// ---------------------------------------------------------------------------
// A little pcap and pcapng writer for building test captures.

// bOrder is a byte order that can also append.
type bOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

var (
	le bOrder = binary.LittleEndian
	be bOrder = binary.BigEndian
)

// tRec is one record to write.
type tRec struct {
	sec, frac uint32 // pcap timestamp
	data      []byte
	orig      int // wire length (0: len(data))
}

func (r tRec) wire() uint32 {
	if r.orig == 0 {
		return uint32(len(r.data))
	}
	return uint32(r.orig)
}

// pcapHeader returns a pcap file header.
func pcapHeader(bo bOrder, nano bool, snaplen, link uint32) []byte {
	h := make([]byte, 24)
	magic := uint32(pcapMagicMicro)
	if nano {
		magic = pcapMagicNano
	}
	bo.PutUint32(h[0:], magic)
	bo.PutUint16(h[4:], 2)
	bo.PutUint16(h[6:], 4)
	bo.PutUint32(h[16:], snaplen)
	bo.PutUint32(h[20:], link)
	return h
}

// pcapRecord returns a pcap record (header and data).
func pcapRecord(bo bOrder, r tRec) []byte {
	h := make([]byte, 16, 16+len(r.data))
	bo.PutUint32(h[0:], r.sec)
	bo.PutUint32(h[4:], r.frac)
	bo.PutUint32(h[8:], uint32(len(r.data)))
	bo.PutUint32(h[12:], r.wire())
	return append(h, r.data...)
}

// pcapFile returns a whole pcap file and the offsets of its records.
func pcapFile(bo bOrder, nano bool, snaplen, link uint32, recs ...tRec) ([]byte, []int64) {
	b := pcapHeader(bo, nano, snaplen, link)
	var offs []int64
	for _, r := range recs {
		offs = append(offs, int64(len(b)))
		b = append(b, pcapRecord(bo, r)...)
	}
	return b, offs
}

// ngWriter builds a pcapng file.
type ngWriter struct {
	bo bOrder
	b  []byte
}

type ngOpt struct {
	code uint16
	val  []byte
}

func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// block appends a block with the given body (padded to 4) and returns its offset.
func (w *ngWriter) block(typ uint32, body []byte) int64 {
	off := int64(len(w.b))
	body = pad4(append([]byte(nil), body...))
	total := uint32(12 + len(body))
	w.b = w.bo.AppendUint32(w.b, typ)
	w.b = w.bo.AppendUint32(w.b, total)
	w.b = append(w.b, body...)
	w.b = w.bo.AppendUint32(w.b, total)
	return off
}

func (w *ngWriter) opts(opts []ngOpt) []byte {
	var b []byte
	for _, o := range opts {
		b = w.bo.AppendUint16(b, o.code)
		b = w.bo.AppendUint16(b, uint16(len(o.val)))
		b = pad4(append(b, o.val...))
	}
	if len(opts) > 0 {
		b = append(b, 0, 0, 0, 0)
	}
	return b
}

// shb starts a section in byte order bo.
func (w *ngWriter) shb(bo bOrder) int64 {
	w.bo = bo
	var body []byte
	body = bo.AppendUint32(body, ngByteOrderBE)
	body = bo.AppendUint16(body, 1)
	body = bo.AppendUint16(body, 0)
	body = bo.AppendUint64(body, math.MaxUint64)
	return w.block(ngBlockSHB, body)
}

func (w *ngWriter) idb(link uint16, snaplen uint32, opts ...ngOpt) int64 {
	var body []byte
	body = w.bo.AppendUint16(body, link)
	body = w.bo.AppendUint16(body, 0)
	body = w.bo.AppendUint32(body, snaplen)
	return w.block(ngBlockIDB, append(body, w.opts(opts)...))
}

func (w *ngWriter) epb(ifid uint32, ticks uint64, data []byte, orig int) int64 {
	if orig == 0 {
		orig = len(data)
	}
	var body []byte
	body = w.bo.AppendUint32(body, ifid)
	body = w.bo.AppendUint32(body, uint32(ticks>>32))
	body = w.bo.AppendUint32(body, uint32(ticks))
	body = w.bo.AppendUint32(body, uint32(len(data)))
	body = w.bo.AppendUint32(body, uint32(orig))
	body = pad4(append(body, data...))
	body = append(body, w.opts([]ngOpt{{1, []byte("comment")}})...) // an option after the data
	return w.block(ngBlockEPB, body)
}

func (w *ngWriter) pb(ifid uint16, ticks uint64, data []byte, orig int) int64 {
	if orig == 0 {
		orig = len(data)
	}
	var body []byte
	body = w.bo.AppendUint16(body, ifid)
	body = w.bo.AppendUint16(body, 0)
	body = w.bo.AppendUint32(body, uint32(ticks>>32))
	body = w.bo.AppendUint32(body, uint32(ticks))
	body = w.bo.AppendUint32(body, uint32(len(data)))
	body = w.bo.AppendUint32(body, uint32(orig))
	return w.block(ngBlockPB, append(body, data...))
}

func (w *ngWriter) spb(data []byte, orig int) int64 {
	if orig == 0 {
		orig = len(data)
	}
	body := w.bo.AppendUint32(nil, uint32(orig))
	return w.block(ngBlockSPB, append(body, data...))
}

func optU8(code uint16, v uint8) ngOpt { return ngOpt{code, []byte{v}} }

func (w *ngWriter) optI64(code uint16, v int64) ngOpt {
	return ngOpt{code, w.bo.AppendUint64(nil, uint64(v))}
}

// payload returns n bytes that identify (file, frame).
func payload(file, frame, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(file*31 + frame*7 + i)
	}
	return b
}

// ---------------------------------------------------------------------------

// readAll reads every record (copying Data) until an error, which it returns
// (nil for io.EOF).
func readAll(t testing.TB, r *Reader) ([]Record, error) {
	t.Helper()
	var out []Record
	for {
		var rec Record
		err := r.Next(&rec)
		if err == io.EOF {
			if err2 := r.Next(&rec); err2 != io.EOF {
				t.Fatalf("Next after io.EOF = %v, want io.EOF", err2)
			}
			return out, nil
		}
		if err != nil {
			if err2 := r.Next(&rec); err2 != err {
				t.Fatalf("Next after %v = %v, want the same error", err, err2)
			}
			return out, err
		}
		if len(rec.Data) != rec.CapLen || cap(rec.Data) != rec.CapLen {
			t.Fatalf("record %d: len(Data)=%d cap=%d CapLen=%d", rec.Frame, len(rec.Data), cap(rec.Data), rec.CapLen)
		}
		rec.Data = bytes.Clone(rec.Data)
		out = append(out, rec)
	}
}

func newTestReader(t testing.TB, data []byte, name string, file int) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), name, file)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return r
}

func checkRecord(t *testing.T, got, want Record) {
	t.Helper()
	if !bytes.Equal(got.Data, want.Data) {
		t.Errorf("frame %d: Data = %x, want %x", got.Frame, got.Data, want.Data)
	}
	got.Data, want.Data = nil, nil
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("record:\n got %+v\nwant %+v", got, want)
	}
}

func TestLinkTypeString(t *testing.T) {
	for l, want := range map[LinkType]string{1: "Ethernet", 113: "Linux SLL", 276: "Linux SLL2", 197: "ERF", 105: "LINKTYPE_105"} {
		if got := l.String(); got != want {
			t.Errorf("LinkType(%d).String() = %q, want %q", l, got, want)
		}
	}
}

func TestPcapMagicsAndByteOrders(t *testing.T) {
	for _, tc := range []struct {
		name string
		bo   bOrder
		nano bool
	}{
		{"usec-le", le, false},
		{"usec-be", be, false},
		{"nsec-le", le, true},
		{"nsec-be", be, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := []tRec{
				{sec: 1700000000, frac: 123456, data: payload(2, 1, 60)},
				{sec: 1700000001, frac: 999999, data: payload(2, 2, 128), orig: 1500},
				{sec: 0, frac: 0, data: payload(2, 3, 0)},
				{sec: math.MaxUint32, frac: 999999, data: payload(2, 4, 1)},
			}
			file, offs := pcapFile(tc.bo, tc.nano, 65535, 276, recs...)
			r := newTestReader(t, file, "x.pcap", 2)
			if got := r.LinkTypes(); len(got) != 1 || got[0] != LinkTypeLinuxSLL2 {
				t.Errorf("LinkTypes = %v", got)
			}
			if r.Format() != "pcap" || r.Name() != "x.pcap" || r.File() != 2 {
				t.Errorf("Format/Name/File = %q %q %d", r.Format(), r.Name(), r.File())
			}
			got, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(recs) {
				t.Fatalf("got %d records, want %d", len(got), len(recs))
			}
			for i, w := range recs {
				mul := int64(1000)
				if tc.nano {
					mul = 1
				}
				checkRecord(t, got[i], Record{
					Data: w.data, TsNs: int64(w.sec)*1e9 + int64(w.frac)*mul, CapLen: len(w.data), Len: int(w.wire()),
					LinkType: LinkTypeLinuxSLL2, File: 2, Frame: uint64(i + 1), Offset: offs[i],
				})
			}
		})
	}
}

func TestPcapLinkTypeFCSBits(t *testing.T) {
	file, _ := pcapFile(le, false, 65535, 0x14000001, tRec{data: payload(0, 1, 64)})
	got, err := readAll(t, newTestReader(t, file, "fcs.pcap", 0))
	if err != nil || len(got) != 1 || got[0].LinkType != LinkTypeEthernet {
		t.Fatalf("got %+v, %v; want one Ethernet record", got, err)
	}
}

func TestPcapTolerated(t *testing.T) {
	for _, tc := range []struct {
		name    string
		snaplen uint32
		rec     tRec
		wantLen int
	}{
		{"caplen over len", 65535, tRec{data: payload(0, 1, 100), orig: 60}, 100},
		{"caplen over snaplen", 65535, tRec{data: payload(0, 1, 100000)}, 100000},
		{"caplen at 256KiB", 0xFFFFFFFF, tRec{data: payload(0, 1, 262144)}, 262144},
		{"big snaplen honoured", 1 << 20, tRec{data: payload(0, 1, 600000)}, 600000},
		{"snaplen 0", 0, tRec{data: payload(0, 1, 1000)}, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, _ := pcapFile(le, false, tc.snaplen, 1, tc.rec, tRec{data: payload(0, 2, 10)})
			got, err := readAll(t, newTestReader(t, file, "t.pcap", 0))
			if err != nil || len(got) != 2 {
				t.Fatalf("got %d records, %v", len(got), err)
			}
			if got[0].Len != tc.wantLen || got[0].CapLen != len(tc.rec.data) {
				t.Errorf("Len=%d CapLen=%d, want %d %d", got[0].Len, got[0].CapLen, tc.wantLen, len(tc.rec.data))
			}
		})
	}
}

func TestEmptyCaptures(t *testing.T) {
	pc := pcapHeader(be, true, 65535, 1)
	var w ngWriter
	w.shb(le)
	w.idb(1, 0)
	w.block(5, make([]byte, 20)) // ISB
	for name, data := range map[string][]byte{"pcap": pc, "pcapng": w.b} {
		got, err := readAll(t, newTestReader(t, data, name, 0))
		if err != nil || len(got) != 0 {
			t.Errorf("%s: got %d records, %v; want none and io.EOF", name, len(got), err)
		}
	}
}

func TestPcapngInterfacesAndBlocks(t *testing.T) {
	for _, bo := range []bOrder{le, be} {
		t.Run(fmt.Sprint(bo), func(t *testing.T) {
			var w ngWriter
			w.shb(bo)
			w.idb(1, 0, optU8(ngOptTsResol, 6), ngOpt{2, []byte("eth0")})             // if0: Ethernet, µs
			w.idb(276, 0, optU8(ngOptTsResol, 9))                                     // if1: SLL2, ns
			w.block(4, []byte{1, 0, 4, 0, 10, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0})     // NRB
			w.idb(113, 0, optU8(ngOptTsResol, 0x80|10), w.optI64(ngOptTsOffset, 100)) // if2: SLL, 2^-10, +100 s
			var offs []int64
			var want []Record
			add := func(off int64, data []byte, ts int64, link LinkType, orig int) {
				offs = append(offs, off)
				if orig == 0 {
					orig = len(data)
				}
				want = append(want, Record{Data: data, TsNs: ts, CapLen: len(data), Len: orig, LinkType: link,
					File: 1, Frame: uint64(len(want) + 1), Offset: off})
			}
			d := payload(1, 1, 61)
			add(w.epb(0, 1700000000_123456, d, 0), d, 1700000000_123456_000, LinkTypeEthernet, 0)
			d = payload(1, 2, 64)
			add(w.epb(1, 1700000000_123456789, d, 9000), d, 1700000000_123456789, LinkTypeLinuxSLL2, 9000)
			w.block(5, make([]byte, 28))      // ISB
			w.block(0xBAD, []byte("custom!")) // custom block
			w.block(0x0A, make([]byte, 16))   // DSB
			d = payload(1, 3, 3)
			ticks := uint64(1700000000)<<10 | 512 // .5 s
			add(w.epb(2, ticks, d, 0), d, 1700000100_500000000, LinkTypeLinuxSLL, 0)
			d = payload(1, 4, 70)
			add(w.spb(d, 0), d, 1700000100_500000000, LinkTypeEthernet, 0) // SPB: previous timestamp
			d = payload(1, 5, 33)
			add(w.pb(1, 42, d, 0), d, 42, LinkTypeLinuxSLL2, 0)
			d = payload(1, 6, 10)
			add(w.epb(0, 7, d, 0), d, 7000, LinkTypeEthernet, 0)

			r := newTestReader(t, w.b, "ng.pcapng", 1)
			if r.Format() != "pcapng" {
				t.Errorf("Format = %q", r.Format())
			}
			lts := r.LinkTypes()
			if fmt.Sprint(lts) != fmt.Sprint([]LinkType{1, 276, 113}) {
				t.Errorf("LinkTypes after NewReader = %v", lts)
			}
			got, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d records, want %d", len(got), len(want))
			}
			for i := range want {
				checkRecord(t, got[i], want[i])
			}
		})
	}
}

func TestPcapngSPBLengths(t *testing.T) {
	var w ngWriter
	w.shb(le)
	w.idb(1, 64)
	w.spb(payload(0, 1, 100), 0)  // cut to snaplen 64
	w.spb(payload(0, 2, 61), 0)   // padded to 64 in the block: caplen 61
	w.spb(payload(0, 3, 40), 200) // snap-truncated by the writer
	got, err := readAll(t, newTestReader(t, w.b, "spb.pcapng", 0))
	if err != nil || len(got) != 3 {
		t.Fatalf("got %d records, %v", len(got), err)
	}
	for i, wnt := range [][2]int{{64, 100}, {61, 61}, {40, 200}} {
		if got[i].CapLen != wnt[0] || got[i].Len != wnt[1] || got[i].TsNs != 0 {
			t.Errorf("SPB %d: CapLen %d Len %d Ts %d, want %v ts 0", i, got[i].CapLen, got[i].Len, got[i].TsNs, wnt)
		}
	}
}

func TestPcapngByteOrderSwitch(t *testing.T) {
	var w ngWriter
	w.shb(le)
	w.idb(1, 0)
	w.idb(113, 0)
	o1 := w.epb(1, 1, payload(0, 1, 20), 0)
	w.shb(be) // new section: new byte order, interfaces start over
	w.idb(276, 0, optU8(ngOptTsResol, 9))
	o2 := w.epb(0, 2, payload(0, 2, 21), 0)
	w.shb(le)
	w.idb(1, 0, optU8(ngOptTsResol, 3))
	o3 := w.epb(0, 3, payload(0, 3, 22), 0)
	got, err := readAll(t, newTestReader(t, w.b, "switch.pcapng", 0))
	if err != nil || len(got) != 3 {
		t.Fatalf("got %d records, %v", len(got), err)
	}
	want := []Record{
		{TsNs: 1000, LinkType: LinkTypeLinuxSLL, Offset: o1, CapLen: 20},
		{TsNs: 2, LinkType: LinkTypeLinuxSLL2, Offset: o2, CapLen: 21},
		{TsNs: 3000000, LinkType: LinkTypeEthernet, Offset: o3, CapLen: 22},
	}
	for i, wnt := range want {
		wnt.Data = payload(0, i+1, wnt.CapLen)
		wnt.Len = wnt.CapLen
		wnt.Frame = uint64(i + 1)
		checkRecord(t, got[i], wnt)
	}
}

func TestTimestampResolutions(t *testing.T) {
	const sec = 1700000000
	for _, tc := range []struct {
		resol uint8
		off   int64
		ticks uint64
		want  int64
	}{
		{6, 0, sec*1e6 + 123456, sec*1e9 + 123456000},
		{9, 0, sec*1e9 + 123456789, sec*1e9 + 123456789},
		{0, 0, sec, sec * 1e9},
		{3, 0, sec*1e3 + 7, sec*1e9 + 7e6},
		{12, 0, 5_000_000_123_456_789, 5_000_000_123_456}, // finer than ns: truncated
		{19, 0, 1e19 - 1, 999999999},                      // 10^-19
		{28, 0, math.MaxUint64, 1},                        // 10^-28: 1.8e19 ticks = 1.8 ns
		{29, 0, math.MaxUint64, 0},                        // 10^-29: every tick count < 1 ns
		{127, 0, math.MaxUint64, 0},                       // beyond any tick count
		{0x80 | 10, 0, sec<<10 | 512, sec*1e9 + 5e8},      // 2^-10
		{0x80 | 10, 0, 1, 976562},                         // 1e9/1024 = 976562.5
		{0x80 | 30, 0, 3, 2},                              // 3e9/2^30 = 2.79
		{0x80 | 32, 0, sec<<32 | 1<<31, sec*1e9 + 5e8},    // ticks*1e9 overflows 64 bits
		{0x80 | 63, 0, 1 << 63, 1e9},
		{0x80 | 64, 0, math.MaxUint64, 999999999},
		{0x80, 0, 5, 5e9}, // 2^-0
		{0x80 | 127, 0, math.MaxUint64, 0},
		{6, 100, 1, 100*1e9 + 1000},
		{9, -5, 7, -5*1e9 + 7},
		{0, 0, math.MaxUint64, math.MaxInt64},    // saturates
		{0x80, 0, math.MaxUint64, math.MaxInt64}, // saturates
		{9, math.MaxInt64, 5, math.MaxInt64},     // offset saturates
		{9, -4e9, 0, -4e18},                      // negative offset
	} {
		var w ngWriter
		w.shb(le)
		w.idb(1, 0, optU8(ngOptTsResol, tc.resol), w.optI64(ngOptTsOffset, tc.off))
		w.epb(0, tc.ticks, []byte{1}, 0)
		got, err := readAll(t, newTestReader(t, w.b, "ts.pcapng", 0))
		if err != nil || len(got) != 1 {
			t.Fatalf("resol %#x: %d records, %v", tc.resol, len(got), err)
		}
		if got[0].TsNs != tc.want {
			t.Errorf("resol %#x offset %d ticks %d: TsNs = %d, want %d", tc.resol, tc.off, tc.ticks, got[0].TsNs, tc.want)
		}
	}
}

// damageCase builds a capture that is damaged after some whole records.
type damageCase struct {
	name    string
	data    []byte
	records int    // whole records delivered before the damage
	offset  int64  // offset of the damage
	reason  string // exact Reason
}

func damageCases() []damageCase {
	var cases []damageCase
	add := func(name string, data []byte, records int, offset int64, reason string) {
		cases = append(cases, damageCase{name, data, records, offset, reason})
	}
	recs := []tRec{{sec: 1, data: payload(0, 1, 60)}, {sec: 2, data: payload(0, 2, 70)}}
	good, _ := pcapFile(le, false, 65535, 1, recs...)
	end := int64(len(good))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	add("pcap record header cut", cat(good, make([]byte, 10)), 2, end, "record header cut short (need 16 bytes, 10 left)")
	cut := pcapRecord(le, tRec{sec: 3, data: payload(0, 3, 60)})[:16+12]
	add("pcap record data cut", cat(good, cut), 2, end, "record cut short (need 76 bytes, 28 left)")
	goodBE, _ := pcapFile(be, true, 65535, 1, recs...)
	add("pcap record data cut be", cat(goodBE, pcapRecord(be, tRec{data: payload(0, 3, 60)})[:16+59]), 2, end,
		"record cut short (need 76 bytes, 75 left)")
	add("pcap first record cut", pcapRecord(le, tRec{data: payload(0, 1, 60)})[:20], 0, 0, "")
	cases[len(cases)-1].data = cat(pcapHeader(le, false, 65535, 1), cases[len(cases)-1].data)
	cases[len(cases)-1].offset, cases[len(cases)-1].reason = 24, "record cut short (need 76 bytes, 20 left)"
	huge := pcapRecord(le, tRec{data: payload(0, 3, 10)})
	le.PutUint32(huge[8:], 300000)
	add("pcap absurd caplen", cat(good, huge), 2, end, "captured length 300000 exceeds the limit of 262144 bytes")
	g2, _ := pcapFile(le, false, 0xFFFFFFFF, 1, recs...)
	h2 := bytes.Clone(huge)
	le.PutUint32(h2[8:], 262145)
	add("pcap insane snaplen", cat(g2, h2), 2, end, "captured length 262145 exceeds the limit of 262144 bytes")
	g3, _ := pcapFile(le, false, 1<<20, 1, recs...)
	h3 := bytes.Clone(huge)
	le.PutUint32(h3[8:], 1<<20+1)
	add("pcap caplen over big snaplen", cat(g3, h3), 2, end, "captured length 1048577 exceeds the limit of 1048576 bytes")
	add("pcap garbage after records", cat(good, []byte("this is not a pcap record, just some trailing text\n")), 2, end,
		"captured length 544501614 exceeds the limit of 262144 bytes")

	// pcapng
	var w ngWriter
	w.shb(le)
	w.idb(1, 0)
	w.epb(0, 1, payload(0, 1, 60), 0)
	w.epb(0, 2, payload(0, 2, 61), 0)
	ng := w.b
	ngEnd := int64(len(ng))
	blk := func(typ, total uint32, body []byte, trailer uint32) []byte {
		b := le.AppendUint32(nil, typ)
		b = le.AppendUint32(b, total)
		b = append(b, body...)
		return le.AppendUint32(b, trailer)
	}
	add("pcapng total length under 12", cat(ng, blk(6, 8, nil, 8)), 2, ngEnd, "block total length 8 is less than 12")
	add("pcapng total length not multiple of 4", cat(ng, blk(6, 30, make([]byte, 18), 30)), 2, ngEnd,
		"block total length 30 is not a multiple of 4")
	add("pcapng total length over 64MiB", cat(ng, blk(6, 64<<20+4, make([]byte, 100), 0)), 2, ngEnd,
		"block total length 67108868 exceeds the limit of 67108864 bytes")
	add("pcapng trailer mismatch", cat(ng, blk(4, 16, make([]byte, 4), 20)), 2, ngEnd,
		"trailing block length 20 differs from the leading block length 16")
	add("pcapng block cut", cat(ng, blk(6, 100, make([]byte, 28), 100)), 2, ngEnd, "block cut short (need 100 bytes, 40 left)")
	add("pcapng block header cut", cat(ng, []byte{6, 0, 0, 0, 100, 0}), 2, ngEnd, "block header cut short (need 8 bytes, 6 left)")
	add("pcapng garbage", cat(ng, []byte("garbage text after the last block\n")), 2, ngEnd,
		"block total length 543516513 is not a multiple of 4")

	wu := ngWriter{bo: le, b: bytes.Clone(ng)}
	off := wu.epb(1, 3, payload(0, 3, 10), 0)
	add("pcapng undefined interface", wu.b, 2, off, "packet block references undefined interface 1 (1 defined in this section)")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	wu.idb(113, 0)
	wu.epb(1, 3, payload(0, 3, 10), 0)
	wu.shb(be)
	wu.idb(1, 0)
	wu.epb(0, 4, payload(0, 4, 10), 0)
	off = wu.epb(1, 5, payload(0, 5, 10), 0)
	add("pcapng interface of previous section", wu.b, 4, off,
		"packet block references undefined interface 1 (1 defined in this section)")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.pb(3, 3, payload(0, 3, 10), 0)
	add("pcapng obsolete PB undefined interface", wu.b, 2, off,
		"packet block references undefined interface 3 (1 defined in this section)")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.epb(0, 3, payload(0, 3, 10), 0)
	le.PutUint32(wu.b[off+20:], 29) // room: 12 bytes of padded data, 16 of options
	add("pcapng caplen overruns block", wu.b, 2, off, "captured length 29 overruns its block (room for 28 bytes)")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.block(6, make([]byte, 16))
	add("pcapng EPB too short", wu.b, 2, off, "packet block too short (28 bytes)")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.shb(be)
	wu.b[off+8] = 0x99
	add("pcapng SHB bad byte-order magic", wu.b, 2, off, "section header block with unknown byte-order magic 0x992b3c4d")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.shb(le)
	le.PutUint16(wu.b[off+12:], 2)
	add("pcapng SHB version 2", wu.b, 2, off, "unsupported pcapng version 2.0")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.block(1, []byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 8, 0, 6, 0, 0, 0})
	add("pcapng IDB option overrun", wu.b, 2, off, "interface option 9 (length 8) overruns its block")

	wu = ngWriter{bo: le, b: bytes.Clone(ng)}
	off = wu.block(1, []byte{1, 0, 0, 0})
	add("pcapng IDB too short", wu.b, 2, off, "interface description block too short (16 bytes)")

	wu = ngWriter{}
	wu.shb(le)
	off = wu.spb(payload(0, 1, 10), 0)
	add("pcapng SPB without interface", wu.b, 0, off, "simple packet block without an interface (0 defined in this section)")

	wu = ngWriter{}
	wu.shb(le)
	off = wu.block(1, []byte{1, 0, 0, 0})
	wu.epb(0, 1, payload(0, 1, 10), 0)
	add("pcapng damage before the first packet", wu.b, 0, off, "interface description block too short (16 bytes)")

	wu = ngWriter{}
	wu.shb(le)
	add("pcapng SHB length cut", wu.b[:20], 0, 0, "block cut short (need 28 bytes, 20 left)")

	wu = ngWriter{}
	wu.shb(be)
	be.PutUint32(wu.b[4:], 8)
	add("pcapng SHB too short", wu.b, 0, 0, "block total length 8 is less than 12")

	wu = ngWriter{}
	wu.shb(be)
	wu.b = wu.b[:16]
	wu.b = be.AppendUint32(wu.b, 20)
	be.PutUint32(wu.b[4:], 20)
	add("pcapng SHB body too short", wu.b, 0, 0, "section header block too short (20 bytes)")
	return cases
}

func TestDamage(t *testing.T) {
	for _, tc := range damageCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{DefaultBufferSize, 64} {
				r, err := newReaderSize(bytes.NewReader(tc.data), "bad.cap", 3, size)
				if err != nil {
					t.Fatalf("NewReader: %v", err)
				}
				got, err := readAll(t, r)
				if len(got) != tc.records {
					t.Errorf("got %d records before the damage, want %d", len(got), tc.records)
				}
				for i, rec := range got {
					if rec.Frame != uint64(i+1) {
						t.Errorf("record %d has Frame %d", i, rec.Frame)
					}
				}
				var de *DamageError
				if !errors.As(err, &de) {
					t.Fatalf("error = %v (%T), want *DamageError", err, err)
				}
				want := DamageError{File: "bad.cap", Offset: tc.offset, Reason: tc.reason}
				if *de != want {
					t.Errorf("error = %+v\n     want %+v", *de, want)
				}
				wantMsg := fmt.Sprintf("bad.cap: damaged record at byte offset %d: %s", tc.offset, tc.reason)
				if err.Error() != wantMsg {
					t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
				}
			}
		})
	}
}

func TestNotCapture(t *testing.T) {
	var w ngWriter
	w.shb(le)
	badBOM := bytes.Clone(w.b)
	badBOM[9] = 0
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"empty", nil, "f: empty file"},
		{"short", []byte{0xD4, 0xC3, 0xB2}, "f: not a pcap or pcapng capture (file too short: 3 bytes)"},
		{"text", []byte("hello, world\n"), "f: not a pcap or pcapng capture (magic 0x68656c6c)"},
		{"modified pcap", []byte{0x34, 0xcd, 0xb2, 0xa1, 0, 0, 0, 0}, "f: not a pcap or pcapng capture (magic 0x34cdb2a1)"},
		{"pcapng bad byte-order magic", badBOM,
			"f: not a pcap or pcapng capture (pcapng block type with byte-order magic 0x4d002b1a)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tc.data), "f", 0)
			if r != nil || err == nil {
				t.Fatalf("NewReader = %v, %v; want an error", r, err)
			}
			if !errors.Is(err, ErrNotCapture) || err.Error() != tc.msg {
				t.Errorf("error = %q (Is ErrNotCapture: %v), want %q", err, errors.Is(err, ErrNotCapture), tc.msg)
			}
		})
	}
}

func TestHeaderCutShort(t *testing.T) {
	var w ngWriter
	w.shb(le)
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"pcap", pcapHeader(le, false, 65535, 1)[:10], "f: damaged record at byte offset 0: pcap file header cut short (need 24 bytes, 10 left)"},
		{"pcap 23", pcapHeader(be, true, 65535, 1)[:23], "f: damaged record at byte offset 0: pcap file header cut short (need 24 bytes, 23 left)"},
		{"pcapng", w.b[:8], "f: damaged record at byte offset 0: section header block cut short (need 28 bytes, 8 left)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tc.data), "f", 0)
			var de *DamageError
			if !errors.As(err, &de) || de.Offset != 0 || err.Error() != tc.msg {
				t.Errorf("error = %v, want %q", err, tc.msg)
			}
			if errors.Is(err, ErrNotCapture) {
				t.Errorf("error is ErrNotCapture")
			}
		})
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	file, offs := pcapFile(le, false, 65535, 1, tRec{data: payload(0, 1, 100)}, tRec{data: payload(0, 2, 100)})
	src := io.MultiReader(bytes.NewReader(file[:offs[1]+20]), iotest.ErrReader(boom))
	r, err := newReaderSize(src, "io.pcap", 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	var de *DamageError
	if len(got) != 1 || !errors.Is(err, boom) || errors.As(err, &de) {
		t.Fatalf("got %d records, %v; want 1 and a read error", len(got), err)
	}
	if want := fmt.Sprintf("io.pcap: read error at byte offset %d: boom", offs[1]); err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if _, err := NewReader(iotest.ErrReader(boom), "e", 0); !errors.Is(err, boom) {
		t.Errorf("NewReader on failing reader: %v", err)
	}
}

// mixedCapture returns a pcapng or pcap file with records of random sizes
// (some larger than small buffers, one larger than DefaultBufferSize when
// big), and the records expected from it.
func mixedCapture(rng *rand.Rand, ng, big bool) ([]byte, []Record) {
	var want []Record
	size := func(i int) int {
		switch {
		case big && i == 5:
			return 3<<20 + 3
		case rng.IntN(10) == 0:
			return rng.IntN(70000)
		}
		return rng.IntN(300)
	}
	if !ng {
		var recs []tRec
		for i := range 40 {
			d := payload(0, i+1, size(i))
			recs = append(recs, tRec{sec: uint32(i), frac: uint32(i * 1000), data: d})
		}
		file, offs := pcapFile(le, true, 8<<20, 1, recs...)
		for i, r := range recs {
			want = append(want, Record{Data: r.data, TsNs: int64(r.sec)*1e9 + int64(r.frac), CapLen: len(r.data), Len: len(r.data),
				LinkType: 1, Frame: uint64(i + 1), Offset: offs[i]})
		}
		return file, want
	}
	var w ngWriter
	w.shb(be)
	w.idb(1, 0, optU8(ngOptTsResol, 9))
	for i := range 40 {
		if i == 20 {
			w.shb(le)
			w.idb(1, 0, optU8(ngOptTsResol, 9))
			w.block(0xBAD, make([]byte, rng.IntN(5000)))
		}
		d := payload(0, i+1, size(i))
		off := w.epb(0, uint64(i), d, 0)
		want = append(want, Record{Data: d, TsNs: int64(i), CapLen: len(d), Len: len(d), LinkType: 1, Frame: uint64(i + 1), Offset: off})
	}
	return w.b, want
}

func TestBuffering(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ng := range []bool{false, true} {
		for _, big := range []bool{false, true} {
			file, want := mixedCapture(rng, ng, big)
			for _, size := range []int{1, 32, 100, 4096, 65536, DefaultBufferSize} {
				for _, wrap := range []string{"plain", "onebyte", "half", "dataerr"} {
					if size == DefaultBufferSize && wrap == "onebyte" && big {
						continue // slow, and nothing new
					}
					var src io.Reader = bytes.NewReader(file)
					switch wrap {
					case "onebyte":
						src = iotest.OneByteReader(src)
					case "half":
						src = iotest.HalfReader(src)
					case "dataerr":
						src = iotest.DataErrReader(src)
					}
					r, err := newReaderSize(src, "b", 0, size)
					if err != nil {
						t.Fatal(err)
					}
					got, err := readAll(t, r)
					if err != nil {
						t.Fatalf("ng=%v big=%v size=%d %s: %v", ng, big, size, wrap, err)
					}
					if len(got) != len(want) {
						t.Fatalf("ng=%v big=%v size=%d %s: %d records, want %d", ng, big, size, wrap, len(got), len(want))
					}
					for i := range want {
						checkRecord(t, got[i], want[i])
					}
					if len(r.buf) > max(size, minBufferSize, 2*len(file)) {
						t.Errorf("buffer grew to %d for a %d-byte file", len(r.buf), len(file))
					}
				}
			}
		}
	}
}

func TestLyingLengthDoesNotAllocate(t *testing.T) {
	// A block header claiming 64 MiB in a tiny file must not allocate it.
	var w ngWriter
	w.shb(le)
	w.idb(1, 0)
	b := le.AppendUint32(w.b, 6)
	b = le.AppendUint32(b, MaxBlockLen)
	b = append(b, make([]byte, 100)...)
	allocs := testing.AllocsPerRun(10, func() {
		r, err := newReaderSize(bytes.NewReader(b), "lie", 0, 4096)
		if err != nil {
			t.Fatal(err)
		}
		var rec Record
		var de *DamageError
		if err := r.Next(&rec); !errors.As(err, &de) {
			t.Fatalf("err = %v", err)
		}
		if len(r.buf) > 4096 {
			t.Fatalf("buffer grew to %d", len(r.buf))
		}
	})
	if allocs > 20 {
		t.Errorf("%v allocations", allocs)
	}
}

func TestZeroAllocsPerRecord(t *testing.T) {
	var recs []tRec
	for i := range 3000 {
		recs = append(recs, tRec{sec: uint32(i), data: payload(0, i, 128)})
	}
	pc, _ := pcapFile(le, false, 65535, 1, recs...)
	var w ngWriter
	w.shb(le)
	w.idb(1, 0, optU8(ngOptTsResol, 0x80|20))
	for i := range 3000 {
		w.epb(0, uint64(i)<<20, payload(0, i, 128), 0)
		if i%100 == 0 {
			w.block(5, make([]byte, 20))
		}
	}
	for name, data := range map[string][]byte{"pcap": pc, "pcapng": w.b} {
		r := newTestReader(t, data, name, 0)
		var rec Record
		allocs := testing.AllocsPerRun(2000, func() {
			if err := r.Next(&rec); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per record, want 0", name, allocs)
		}
	}
	// Merger over three readers.
	readers := []*Reader{newTestReader(t, pc, "a", 0), newTestReader(t, w.b, "b", 1), newTestReader(t, pc, "c", 2)}
	m := NewMerger(readers)
	var rec Record
	allocs := testing.AllocsPerRun(2000, func() {
		if err := m.Next(&rec); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("merger: %v allocations per record, want 0", allocs)
	}
}

func TestOpenFileAndClose(t *testing.T) {
	dir := t.TempDir()
	file, _ := pcapFile(le, false, 65535, 1, tRec{data: payload(0, 1, 10)})
	path := filepath.Join(dir, "a.pcap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenFile(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := r.Next(&rec); err != nil || rec.File != 4 || r.Name() != path {
		t.Fatalf("Next = %v, File %d, Name %q", err, rec.File, r.Name())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Next(&rec); err == nil || err == io.EOF {
		t.Errorf("Next after Close = %v, want an error", err)
	}
	if _, err := OpenFile(filepath.Join(dir, "missing.pcap"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenFile(missing) = %v", err)
	}
	empty := filepath.Join(dir, "empty.pcap")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenFile(empty, 0); !errors.Is(err, ErrNotCapture) || err.Error() != empty+": empty file" {
		t.Errorf("OpenFile(empty) = %v", err)
	}
}

// ---------------------------------------------------------------------------
// Merger

// mergeKey identifies a delivered record.
type mergeKey struct {
	file  int
	frame uint64
	ts    int64
}

func mergeAll(t *testing.T, m *Merger) ([]mergeKey, []error) {
	t.Helper()
	var keys []mergeKey
	var errs []error
	for range 10000 {
		var rec Record
		err := m.Next(&rec)
		if err == io.EOF {
			if err := m.Next(&rec); err != io.EOF {
				t.Fatalf("Next after io.EOF = %v", err)
			}
			return keys, errs
		}
		if err != nil {
			errs = append(errs, err)
			keys = append(keys, mergeKey{-1, 0, 0}) // marks where the error came
			continue
		}
		if !bytes.Equal(rec.Data, payload(rec.File, int(rec.Frame), len(rec.Data))) {
			t.Errorf("file %d frame %d: wrong data", rec.File, rec.Frame)
		}
		keys = append(keys, mergeKey{rec.File, rec.Frame, rec.TsNs})
	}
	t.Fatal("merger never ended")
	return nil, nil
}

func TestMerger(t *testing.T) {
	// A: pcap µs, B: pcap ns big-endian, C: pcapng.
	a, _ := pcapFile(le, false, 65535, 1,
		tRec{sec: 0, frac: 10, data: payload(0, 1, 50)},
		tRec{sec: 0, frac: 20, data: payload(0, 2, 51)},
		tRec{sec: 0, frac: 20, data: payload(0, 3, 52)},
		tRec{sec: 0, frac: 40, data: payload(0, 4, 53)})
	b, _ := pcapFile(be, true, 65535, 1,
		tRec{sec: 0, frac: 5000, data: payload(1, 1, 60)},
		tRec{sec: 0, frac: 20000, data: payload(1, 2, 61)},
		tRec{sec: 0, frac: 30000, data: payload(1, 3, 62)})
	var w ngWriter
	w.shb(le)
	w.idb(1, 0, optU8(ngOptTsResol, 9))
	w.epb(0, 20000, payload(2, 1, 70), 0)
	w.epb(0, 25000, payload(2, 2, 71), 0)
	w.epb(0, 50000, payload(2, 3, 72), 0)
	readers := []*Reader{newTestReader(t, a, "a", 0), newTestReader(t, b, "b", 1), newTestReader(t, w.b, "c", 2)}
	m := NewMerger(readers)
	keys, errs := mergeAll(t, m)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []mergeKey{{1, 1, 5000}, {0, 1, 10000}, {0, 2, 20000}, {0, 3, 20000}, {1, 2, 20000}, {2, 1, 20000},
		{2, 2, 25000}, {1, 3, 30000}, {0, 4, 40000}, {2, 3, 50000}}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("merged order\n got %v\nwant %v", keys, want)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}

	// Reverse argument order: ties now favour C, then B, then A.
	readers = []*Reader{newTestReader(t, w.b, "c", 2), newTestReader(t, b, "b", 1), newTestReader(t, a, "a", 0)}
	keys, _ = mergeAll(t, NewMerger(readers))
	want = []mergeKey{{1, 1, 5000}, {0, 1, 10000}, {2, 1, 20000}, {1, 2, 20000}, {0, 2, 20000}, {0, 3, 20000},
		{2, 2, 25000}, {1, 3, 30000}, {0, 4, 40000}, {2, 3, 50000}}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("reversed merged order\n got %v\nwant %v", keys, want)
	}

	if keys, errs := mergeAll(t, NewMerger(nil)); len(keys)+len(errs) != 0 {
		t.Errorf("empty merger: %v %v", keys, errs)
	}
}

func TestMergerDamage(t *testing.T) {
	a, _ := pcapFile(le, true, 65535, 1,
		tRec{sec: 0, frac: 10, data: payload(0, 1, 50)},
		tRec{sec: 0, frac: 30, data: payload(0, 2, 51)})
	a = append(a, make([]byte, 7)...) // damage after A's second record
	b, _ := pcapFile(le, true, 65535, 1,
		tRec{sec: 0, frac: 20, data: payload(1, 1, 60)},
		tRec{sec: 0, frac: 40, data: payload(1, 2, 61)})
	c := pcapHeader(le, true, 65535, 1)
	cOff := int64(len(c))
	c = append(c, 1, 2, 3) // damaged before its first record
	readers := []*Reader{newTestReader(t, a, "a", 0), newTestReader(t, b, "b", 1), newTestReader(t, c, "c", 2)}
	keys, errs := mergeAll(t, NewMerger(readers))
	want := []mergeKey{{-1, 0, 0}, {0, 1, 10}, {1, 1, 20}, {0, 2, 30}, {-1, 0, 0}, {1, 2, 40}}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("merged order\n got %v\nwant %v", keys, want)
	}
	if len(errs) != 2 {
		t.Fatalf("errors: %v", errs)
	}
	var d0, d1 *DamageError
	if !errors.As(errs[0], &d0) || d0.File != "c" || d0.Offset != cOff {
		t.Errorf("first error = %v", errs[0])
	}
	if !errors.As(errs[1], &d1) || d1.File != "a" || d1.Offset != int64(len(a)-7) {
		t.Errorf("second error = %v", errs[1])
	}
}

// ---------------------------------------------------------------------------
// Real captures

// sharedPcaps returns the capture files of ../../shared/pcaps, or skips.
func sharedPcaps(t testing.TB) []string {
	dir := filepath.Join("..", "..", "shared", "pcaps")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no shared captures: %v", err)
	}
	var files []string
	for _, e := range ents {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".pcap") || strings.HasSuffix(n, ".pcapng")) {
			files = append(files, filepath.Join(dir, n))
		}
	}
	if len(files) == 0 {
		t.Skip("no shared captures")
	}
	return files
}

var capinfosCount = regexp.MustCompile(`Number of packets:\s*(\d+)`)

func TestSharedCaptures(t *testing.T) {
	files := sharedPcaps(t)
	_, capErr := exec.LookPath("capinfos")
	_, tsharkErr := exec.LookPath("tshark")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			r, err := OpenFile(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatal("no records")
			}
			for i, rec := range got {
				if rec.Frame != uint64(i+1) || (i > 0 && rec.Offset <= got[i-1].Offset) {
					t.Fatalf("record %d: Frame %d Offset %d", i, rec.Frame, rec.Offset)
				}
			}
			if strings.HasPrefix(filepath.Base(path), "ib_native_erf") {
				if lt := r.LinkTypes(); len(lt) != 1 || lt[0] != LinkTypeERF || got[0].LinkType != LinkTypeERF {
					t.Errorf("LinkTypes = %v, want [ERF]", lt)
				}
			}
			if capErr == nil {
				out, err := exec.Command("capinfos", "-c", "-M", path).Output()
				m := capinfosCount.FindSubmatch(out)
				if err != nil || m == nil {
					t.Fatalf("capinfos: %v: %s", err, out)
				}
				if want, _ := strconv.Atoi(string(m[1])); len(got) != want {
					t.Errorf("%d records, capinfos says %d", len(got), want)
				}
			}
			if tsharkErr == nil && !testing.Short() {
				compareTshark(t, path, got)
			}
		})
	}
}

// compareTshark checks timestamps and lengths against tshark's.
func compareTshark(t *testing.T, path string, got []Record) {
	out, err := exec.Command("tshark", "-r", path, "-T", "fields",
		"-e", "frame.time_epoch", "-e", "frame.cap_len", "-e", "frame.len").Output()
	if err != nil {
		t.Logf("tshark: %v", err)
		return
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(got) {
		t.Errorf("tshark shows %d frames, we read %d", len(lines), len(got))
		return
	}
	for i, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("tshark line %q", line)
		}
		sec, frac, _ := strings.Cut(f[0], ".")
		s, _ := strconv.ParseInt(sec, 10, 64)
		frac = (frac + "000000000")[:9]
		ns, _ := strconv.ParseInt(frac, 10, 64)
		want := s*1e9 + ns
		rec := got[i]
		if rec.LinkType == LinkTypeERF {
			// tshark takes the time from the ERF header (finer than the
			// pcap record's microseconds).
			want -= want % 1000
		}
		capLen, _ := strconv.Atoi(f[1])
		wireLen, _ := strconv.Atoi(f[2])
		if rec.TsNs != want || (rec.LinkType != LinkTypeERF && (rec.CapLen != capLen || rec.Len != wireLen)) {
			t.Errorf("frame %d: ts %d caplen %d len %d; tshark %d %d %d", i+1, rec.TsNs, rec.CapLen, rec.Len, want, capLen, wireLen)
			return
		}
	}
}

// ---------------------------------------------------------------------------
// Benchmarks

func benchPcap(records, size int) []byte {
	var recs []tRec
	data := payload(0, 0, size)
	for i := range records {
		recs = append(recs, tRec{sec: uint32(1700000000 + i/1000), frac: uint32(i % 1000 * 1000), data: data})
	}
	file, _ := pcapFile(le, false, 65535, 1, recs...)
	return file
}

func BenchmarkReaderPcap(b *testing.B) {
	const n = 100000
	file := benchPcap(n, 128)
	b.ReportAllocs()
	b.SetBytes(int64(len(file)))
	var rec Record
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(file), "bench.pcap", 0)
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for r.Next(&rec) == nil {
			count++
		}
		if count != n {
			b.Fatalf("%d records", count)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
}

func BenchmarkReaderPcapng(b *testing.B) {
	const n = 100000
	var w ngWriter
	w.shb(le)
	w.idb(1, 0, optU8(ngOptTsResol, 9))
	data := payload(0, 0, 128)
	for i := range n {
		w.epb(0, uint64(i), data, 0)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(w.b)))
	var rec Record
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(w.b), "bench.pcapng", 0)
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for r.Next(&rec) == nil {
			count++
		}
		if count != n {
			b.Fatalf("%d records", count)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
}

func BenchmarkMerger3(b *testing.B) {
	const n = 100000
	file := benchPcap(n, 128)
	b.ReportAllocs()
	b.SetBytes(3 * int64(len(file)))
	var rec Record
	for b.Loop() {
		readers := make([]*Reader, 3)
		for i := range readers {
			readers[i], _ = NewReader(bytes.NewReader(file), "bench.pcap", i)
		}
		m := NewMerger(readers)
		count := 0
		for m.Next(&rec) == nil {
			count++
		}
		if count != 3*n {
			b.Fatalf("%d records", count)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(3*n), "ns/record")
}
