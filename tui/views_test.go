package tui

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/synth"
)

// Golden screens of every view at 120x40 (go test ./tui -update rewrites
// them). The captures are the demo scenarios, synthesized into a temp dir.

func TestScreenOverview(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.golden("overview_loss")
}

func TestScreenOverviewCongestion(t *testing.T) {
	hs := newHarness(t, 120, 40, writeScenario(t, "congestion_cnp", synth.CongestionCNP(), synth.PcapNanos))
	hs.golden("overview_congestion")
}

func TestScreenFlows(t *testing.T) {
	hs := newHarness(t, 120, 40, writeScenario(t, "congestion_cnp", synth.CongestionCNP(), synth.PcapNanos))
	hs.key(tcell.KeyRune, '2')
	hs.golden("flows")
}

func TestScreenDetail(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyEnter, 0) // the worst flow
	hs.golden("detail")
}

func TestScreenEvents(t *testing.T) {
	hs := newHarness(t, 120, 40, writeScenario(t, "congestion_cnp", synth.CongestionCNP(), synth.PcapNanos))
	hs.key(tcell.KeyRune, '3')
	hs.golden("events")
}

func TestScreenPackets(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '4')
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0) // frame 5, the NAK
	hs.golden("packets")
}

func TestScreenPFC(t *testing.T) {
	hs := newHarness(t, 120, 40, writeScenario(t, "pfc_pause_storm", synth.PFCPauseStorm(), synth.Pcapng))
	hs.key(tcell.KeyRune, '5')
	hs.golden("pfc")
}

func TestScreenHelp(t *testing.T) {
	hs := newHarness(t, 120, 40, lossNAK(t))
	hs.key(tcell.KeyRune, '?')
	hs.golden("help")
}

// The mirror capture: IPv6 flow ids with brackets (which tview would read
// as style tags if not escaped), ERSPAN, snaplen cut.
func TestScreenMirrorFlows(t *testing.T) {
	hs := newHarness(t, 120, 40, writeScenario(t, "mirror", synth.MirrorERSPAN(), synth.Pcapng))
	hs.key(tcell.KeyRune, '2')
	hs.contains("[fd00::1]>[fd00::2]:qp0x000042")
	hs.golden("flows_mirror")
}
