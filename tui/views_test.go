package tui

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// Golden screens of every view at 80x24, 120x40 and 200x50 (go test ./tui
// -update rewrites them): testdata/NAME.golden at 120x40,
// testdata/NAME_WxH.golden at the others. The captures are the demo
// scenarios, synthesized into a temp dir.

// screenSizes are the terminal sizes of the golden screens.
var screenSizes = [][2]int{{80, 24}, {120, 40}, {200, 50}}

// screenCases are the golden screens: a capture and the keys that show the
// view.
var screenCases = []struct {
	name    string
	capture func(t testing.TB) string
	keys    func(hs *harness)
}{
	{"overview_loss", lossNAK, func(*harness) {}},
	{"overview_congestion", congestion, func(*harness) {}},
	{"flows", congestion, func(hs *harness) { hs.key(tcell.KeyRune, '2') }},
	{"detail", lossNAK, func(hs *harness) { hs.key(tcell.KeyEnter, 0) }}, // the worst flow
	{"events", congestion, func(hs *harness) { hs.key(tcell.KeyRune, '3') }},
	{"packets", lossNAK, func(hs *harness) {
		hs.key(tcell.KeyRune, '4')
		for range 4 {
			hs.key(tcell.KeyDown, 0) // frame 5, the NAK
		}
	}},
	// The header tree of frame 5 with Ethernet and IPv4 collapsed (▸) and
	// the BTH's PSN selected (its bytes highlighted: colour, not text).
	{"packets_tree", lossNAK, func(hs *harness) {
		hs.key(tcell.KeyRune, '4')
		hs.typeFilter("5")
		hs.key(tcell.KeyTab, 0)
		for _, h := range []string{"Ethernet II", "Internet Protocol Version 4", "Packet Sequence Number"} {
			treeRow(hs, h)
			if h != "Packet Sequence Number" {
				hs.key(tcell.KeyLeft, 0)
			}
		}
	}},
	{"pfc", pfcStorm, func(hs *harness) { hs.key(tcell.KeyRune, '5') }},
	{"connections", lossNAK, func(hs *harness) { hs.key(tcell.KeyRune, '6') }},
	{"help", lossNAK, func(hs *harness) { hs.key(tcell.KeyRune, '?') }},
	// The mirror capture: IPv6 flow ids with brackets (which tview would
	// read as style tags if not escaped), ERSPAN, snaplen cut.
	{"flows_mirror", mirror, func(hs *harness) {
		hs.key(tcell.KeyRune, '2')
		hs.contains("[fd00::1]>[fd00::2]:qp0x000042")
	}},
}

func mirror(t testing.TB) string {
	return writeScenario(t, "mirror", synth.MirrorERSPAN(), synth.Pcapng)
}

func TestScreens(t *testing.T) {
	for _, sc := range screenCases {
		path := sc.capture(t)
		for _, sz := range screenSizes {
			name := sc.name
			if sz != [2]int{120, 40} {
				name = fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1])
			}
			t.Run(name, func(t *testing.T) {
				hs := newHarness(t, sz[0], sz[1], path)
				sc.keys(hs)
				hs.golden(name)
			})
		}
	}
}
