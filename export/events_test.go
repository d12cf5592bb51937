package export

import (
	"bytes"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/flows"
)

// TestEventsColumn: the events column (a set column: a mask per row) reads
// back as the list of the mask's names in bit order, null for 0, over
// several pages (40000 rows: three pages of 16384) and row groups (of
// 15000 rows). Row i's mask is i mod 256: row 5 (0b101) is [psn_gap nak],
// row 255 every kind, row 256 null again.
func TestEventsColumn(t *testing.T) {
	d := decodeCapture(t, extrasCapture())
	var buf bytes.Buffer
	w, err := newPacketWriter(&buf, WriterOptions{RowGroupRows: 15000})
	if err != nil {
		t.Fatal(err)
	}
	var wanted []int
	for i := range d.packets {
		if Wanted(&d.packets[i]) {
			wanted = append(wanted, i)
		}
	}
	const rows = 40000
	for i := range rows {
		if err := w.addFlow(&d.packets[wanted[i%len(wanted)]], "c.pcap", nil, flows.EventMask(i%256)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := parquet.Read[PacketRow](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rows {
		t.Fatalf("%d rows, want %d", len(got), rows)
	}
	for i, r := range got {
		var want []string
		for b, name := range flows.EventMaskNames {
			if i%256&(1<<b) != 0 {
				want = append(want, name)
			}
		}
		if !slices.Equal(r.Events, want) || (want == nil) != (r.Events == nil) {
			t.Fatalf("row %d events %q, want %q", i, r.Events, want)
		}
	}
	if e := got[5].Events; !slices.Equal(e, []string{"psn_gap", "nak"}) {
		t.Errorf("row 5: %q", e)
	}
}
