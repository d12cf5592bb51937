package tui

import (
	"strconv"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/pcapio"
)

// countingRows is a rowSource that counts its calls.
type countingRows struct {
	calls int
	last  int
}

func (c *countingRows) Row(s *Snapshot, pos int) *PacketRow {
	c.calls++
	c.last = pos
	return &PacketRow{Frame: s.Index.Frame(pos), Src: "10.0.0.1", Dst: "10.0.0.2", Proto: "RoCE RC", Len: 1082, Info: "RC_RDMA_WRITE_MIDDLE"}
}

// bigSnapshot has an index of n frames (no file behind it).
func bigSnapshot(n int) *Snapshot {
	x := newPacketIndex(1)
	var rec pcapio.Record
	for i := range n {
		rec.Offset = 24 + int64(i)*1098
		x.add(&rec)
	}
	return &Snapshot{Index: x.view(), Files: []string{"big.pcap"}}
}

// A packet table over a million frames answers GetCell for its last row
// as it does for its first: one index access and one row lookup, the same
// allocations, whatever the row.
func TestPacketContentConstantTime(t *testing.T) {
	const n = 1_000_000
	s := bigSnapshot(n)
	frames := make([]uint32, n)
	for i := range frames {
		frames[i] = uint32(i)
	}
	for _, rows := range []packetRows{{snap: s}, {snap: s, frames: frames}} {
		src := &countingRows{}
		c := newPacketContent(rows, src)
		if got := c.GetRowCount(); got != n+1 {
			t.Fatalf("%d rows", got)
		}
		for _, row := range []int{1, 2, n / 2, n - 1, n} {
			for col := range c.GetColumnCount() {
				src.calls = 0
				cell := c.GetCell(row, col)
				if src.calls != 1 || src.last != row-1 {
					t.Fatalf("GetCell(%d, %d): %d row lookups (last %d), want 1 of %d", row, col, src.calls, src.last, row-1)
				}
				if col == 0 && cell.Text != strconv.Itoa(row) {
					t.Fatalf("row %d numbered %q", row, cell.Text)
				}
			}
		}
		first := testing.AllocsPerRun(200, func() { c.GetCell(1, 6) })
		last := testing.AllocsPerRun(200, func() { c.GetCell(n, 6) })
		if first != last {
			t.Fatalf("GetCell allocates %v for the first row, %v for the last", first, last)
		}
	}
}

// countingContent counts the cells a table asks for.
type countingContent struct {
	tview.TableContent
	cells int
}

func (c *countingContent) GetCell(row, col int) *tview.TableCell {
	c.cells++
	return c.TableContent.GetCell(row, col)
}

// Drawing a million-row table, and moving its selection to the end and
// back, asks for the visible cells only.
func TestPacketTableDrawsVisibleRowsOnly(t *testing.T) {
	const n = 1_000_000
	s := bigSnapshot(n)
	cc := &countingContent{TableContent: newPacketContent(packetRows{snap: s}, &countingRows{})}
	tb := newTable("Packets", nil)
	tb.SetContent(cc)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(120, 40)
	tb.SetRect(0, 0, 120, 40)
	limit := 40 * len(packetColumns) * 4 // visible cells, with room for tview's passes
	for _, k := range []tcell.Key{tcell.KeyEnd, tcell.KeyPgUp, tcell.KeyHome, tcell.KeyPgDn} {
		cc.cells = 0
		tb.InputHandler()(tcell.NewEventKey(k, 0, tcell.ModNone), func(tview.Primitive) {})
		tb.Draw(screen)
		if cc.cells > limit {
			t.Fatalf("after %v the table asked for %d cells (limit %d)", k, cc.cells, limit)
		}
	}
	if row := selectedRow(tb); row != 37 {
		t.Fatalf("selection at row %d after End, PgUp, Home, PgDn", row)
	}
	tb.InputHandler()(tcell.NewEventKey(tcell.KeyEnd, 0, tcell.ModNone), func(tview.Primitive) {})
	tb.Draw(screen)
	screen.Show()
	if row := selectedRow(tb); row != n-1 {
		t.Fatalf("End selected row %d", row)
	}
}

func BenchmarkPacketContentGetCell(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		s := bigSnapshot(n)
		c := newPacketContent(packetRows{snap: s}, &countingRows{})
		b.Run("rows="+strconv.Itoa(n)+"/last", func(b *testing.B) {
			for b.Loop() {
				c.GetCell(n, 6)
			}
		})
		b.Run("rows="+strconv.Itoa(n)+"/first", func(b *testing.B) {
			for b.Loop() {
				c.GetCell(1, 6)
			}
		})
	}
}
