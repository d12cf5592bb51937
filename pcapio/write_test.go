package pcapio

import (
	"bytes"
	"io"
	"testing"
)

// TestWritersRoundTrip writes records with Writer (both timestamp
// resolutions) and NgWriter, and reads them back with Reader.
func TestWritersRoundTrip(t *testing.T) {
	recs := []Record{
		{Data: []byte{1, 2, 3}, TsNs: 1_767_323_045_123_456_789, Len: 3},
		{Data: []byte{4, 5, 6, 7, 8}, TsNs: 1_767_323_046_000_000_001, Len: 60},
		{Data: nil, TsNs: 5, Len: 0},
		{Data: []byte{9, 9}, TsNs: 7, Len: 1}, // wire length raised to 2
	}
	for _, tc := range []struct {
		name  string
		nanos bool
		ng    bool
	}{{"pcap-ns", true, false}, {"pcap-us", false, false}, {"pcapng", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var write func(*Record) error
			if tc.ng {
				w, err := NewNgWriter(&buf, "test", NgInterface{LinkType: LinkTypeLinuxSLL2, Snaplen: 128, Name: "eth0"})
				if err != nil {
					t.Fatal(err)
				}
				write = w.WriteRecord
			} else {
				w, err := NewWriter(&buf, PcapHeader{Nanos: tc.nanos, Snaplen: 128, LinkType: LinkTypeLinuxSLL2})
				if err != nil {
					t.Fatal(err)
				}
				write = w.WriteRecord
			}
			var offs []int64
			for i := range recs {
				offs = append(offs, int64(buf.Len()))
				if err := write(&recs[i]); err != nil {
					t.Fatal(err)
				}
			}
			r, err := NewReader(bytes.NewReader(buf.Bytes()), tc.name, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range recs {
				var got Record
				if err := r.Next(&got); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				ts := want.TsNs
				if !tc.nanos {
					ts -= ts % 1000
				}
				if !bytes.Equal(got.Data, want.Data) || got.TsNs != ts || got.Len != max(want.Len, len(want.Data)) ||
					got.LinkType != LinkTypeLinuxSLL2 || got.Offset != offs[i] || got.Frame != uint64(i+1) {
					t.Errorf("record %d: got %+v, want %+v at offset %d", i, got, want, offs[i])
				}
				size := PcapRecordSize(len(want.Data))
				if tc.ng {
					size = EnhancedPacketSize(len(want.Data))
				}
				end := int64(buf.Len())
				if i+1 < len(offs) {
					end = offs[i+1]
				}
				if int64(size) != end-offs[i] {
					t.Errorf("record %d: size %d, took %d bytes", i, size, end-offs[i])
				}
			}
			if err := r.Next(new(Record)); err != io.EOF {
				t.Fatalf("after the records: %v, want EOF", err)
			}
		})
	}
}

// TestNgWriterStats checks that an Interface Statistics Block is a block the
// Reader skips.
func TestNgWriterStats(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewNgWriter(&buf, "", NgInterface{LinkType: LinkTypeEthernet, Snaplen: 65535})
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{Data: []byte{1}, TsNs: 1, Len: 1}
	if err := w.WriteRecord(&rec); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterfaceStats(2, 10, 3); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf, "stats.pcapng", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Next(&rec); err != nil {
		t.Fatal(err)
	}
	if err := r.Next(&rec); err != io.EOF {
		t.Fatalf("after the statistics block: %v, want EOF", err)
	}
}
