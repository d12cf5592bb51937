package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// treeRow selects the first tree row whose text contains s.
func treeRow(hs *harness, s string) {
	hs.t.Helper()
	h := hs.u.packets.hdr
	for r := range h.table.GetRowCount() {
		if strings.Contains(h.table.GetCell(r, 0).Text, s) {
			h.table.Select(r, 0)
			hs.settle()
			return
		}
	}
	hs.t.Fatalf("no tree row %q:\n%s", s, h.text())
}

// TestHeaderTree: headers expand and collapse (Enter, space, ← →; on a
// field, its header), stay collapsed on the next frame, and the selected
// line's bytes are highlighted in the hex dump. loss_nak_replay's frame 5
// is B's NAK (an Acknowledge, opcode 0x11) of PSN 1003 (00 03 eb) to QP
// 0x11 (00 00 11); its UDP length is 8 + BTH 12 + AETH 4 + ICRC 4 = 28
// (00 1c).
func TestHeaderTree(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	hs.typeFilter("5")
	hs.key(tcell.KeyTab, 0) // the tree
	h := hs.u.packets.hdr
	if hs.app.GetFocus() != h.table {
		t.Fatal("Tab did not focus the tree")
	}
	tree := func(want string, shown bool) {
		t.Helper()
		if strings.Contains(h.text(), want) != shown {
			t.Fatalf("tree shows %q: %t, want %t:\n%s", want, !shown, shown, h.text())
		}
	}
	tree("▾ Base Transport Header", true)
	tree("Packet Sequence Number: 1003", true)

	// The PSN field's three bytes are highlighted, and only they.
	treeRow(hs, "Packet Sequence Number")
	// marked returns the highlighted hex bytes (each line highlights its
	// hex bytes, then their ASCII).
	marked := func() string {
		var hexes []string
		for k, seg := range strings.Split(hs.u.packets.hex.GetText(false), hexMarkOn)[1:] {
			if k%2 == 0 {
				hexes = append(hexes, seg[:strings.Index(seg, hexMarkOff)])
			}
		}
		return strings.Join(hexes, " ")
	}
	if got := marked(); got != "00 03 eb" {
		t.Errorf("PSN bytes highlighted %q, want 00 03 eb", got)
	}
	treeRow(hs, "Destination Queue Pair")
	if got := marked(); got != "00 00 11" {
		t.Errorf("QP bytes highlighted %q, want 00 00 11", got)
	}
	// The UDP Length field: 2 bytes, the frame's UDP length.
	treeRow(hs, "    Length:")
	d := hs.u.pager.Detail(hs.u.snap, 4)
	var udpLen string
	for _, l := range d.Lines {
		if strings.HasPrefix(l.Text, "Length: ") {
			udpLen = strings.TrimPrefix(l.Text, "Length: ")
		}
	}
	if got := marked(); udpLen != "28" || got != "00 1c" {
		t.Errorf("UDP length %s bytes %q, want 28 and 00 1c", udpLen, got)
	}

	// ← on a field collapses its header and selects it; → expands it.
	treeRow(hs, "Packet Sequence Number")
	hs.key(tcell.KeyLeft, 0)
	hs.contains("▸ Base Transport Header") // on the screen: the selection is shown
	tree("Packet Sequence Number", false)
	if row, _ := h.table.GetSelection(); !strings.Contains(h.table.GetCell(row, 0).Text, "Base Transport Header") {
		t.Fatalf("selected %q, want the header", h.table.GetCell(row, 0).Text)
	}
	// The whole BTH: opcode 0x11 (Acknowledge), flags, P_Key 0xffff,
	// FECN/BECN, QP 0x000011, AckReq, PSN 1003, over two hex lines.
	if got := marked(); got != "11 00 ff ff 00 00 00 11 00 00 03 eb" {
		t.Errorf("BTH bytes highlighted %q", got)
	}
	hs.key(tcell.KeyRight, 0)
	tree("▾ Base Transport Header", true)
	tree("Packet Sequence Number: 1003", true)
	// Enter and space toggle.
	hs.key(tcell.KeyEnter, 0)
	tree("▸ Base Transport Header", true)
	hs.key(tcell.KeyRune, ' ')
	tree("Packet Sequence Number: 1003", true)
	hs.key(tcell.KeyEnter, 0)

	// The next frame keeps the header collapsed.
	hs.key(tcell.KeyBacktab, 0) // the packet list
	hs.key(tcell.KeyDown, 0)
	hs.contains("Headers of frame 6")
	tree("▸ Base Transport Header", true)
	tree("Packet Sequence Number", false)
	tree("▾ User Datagram Protocol", true)
}
