package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/analysis"
)

// detailView shows one flow: its counters and peer, its rate over time
// (with its peer's), its events and its packets. Enter on an event opens
// the frame that shows it; Enter on a packet opens it in the packets view.
type detailView struct {
	u       *UI
	root    *tview.Flex
	info    *tview.TextView
	chart   *chart
	events  *tview.Table
	packets *tview.Table

	flow      int // index in Report.Flows
	evReport  *analysis.Report
	evFlow    int
	evRows    []int32
	pktRows   packetRows
	requested struct {
		report *analysis.Report
		flow   int
	}

	// The latency over time under the rate chart (detailperf.go).
	lat    *chart
	charts *tview.Flex
}

var detailEventColumns = []column{{title: "Time", right: true}, {title: "Kind"}, {title: "Flow", max: 48}, {title: "Frame", right: true},
	{title: "Details", expand: 1}}

func newDetailView(u *UI) *detailView {
	v := &detailView{u: u, flow: -1, evFlow: -1}
	v.info = newText("Flow", true)
	v.chart = newChart("Rate")
	v.lat = newChart("Latency")
	v.charts = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.chart, 0, 1, false).
		AddItem(v.lat, 5, 0, false)
	v.events = newTable("Events", func(row int) {
		if row < len(v.evRows) {
			u.openEvent(int(v.evRows[row]))
		}
	})
	v.packets = newTable("Packets", func(row int) {
		if row < v.pktRows.len() {
			u.openPacket(v.pktRows.pos(row))
		}
	})
	v.events.SetSelectionChangedFunc(func(row, _ int) { v.selectEvent(row - 1) })
	useContent(v.events, &tableContent{cols: detailEventColumns, sortCol: -1})
	useContent(v.packets, &tableContent{cols: packetColumns, sortCol: -1})
	v.info.SetWrap(true).SetWordWrap(true) // long values go on the next line, never cut
	top := tview.NewFlex().
		AddItem(v.info, 0, 1, false).
		AddItem(v.charts, 0, 1, false)
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(top, 9, 0, false).
		AddItem(v.events, 0, 1, true).
		AddItem(v.packets, 0, 2, false)
	// Below 120 columns the counters get more of the width and room for
	// their wrapped lines. The latency chart (5 lines: two bands, the
	// axis) goes under the rate chart from 30 lines; below, the latency is
	// in the counters only.
	v.root.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		latH := 0
		if h >= 30 {
			latH = 5
		}
		v.charts.ResizeItem(v.lat, latH, 0)
		if w < 120 {
			top.ResizeItem(v.info, 0, 2).ResizeItem(v.charts, 0, 1)
			v.root.ResizeItem(top, 12+min(latH, 1)+latH*3/5, 0) // from 30 lines a line more: the QoS line
		} else {
			top.ResizeItem(v.info, 0, 1).ResizeItem(v.charts, 0, 1)
			v.root.ResizeItem(top, max(12, 9+latH), 0)
		}
		if h < 30 { // the events keep rows: as many lines as the packets
			v.root.ResizeItem(v.packets, 0, 1)
		} else {
			v.root.ResizeItem(v.packets, 0, 2)
		}
		return x, y, w, h
	})
	return v
}

// Name implements view.
func (v *detailView) Name() string { return "Flow" }

// Root implements view.
func (v *detailView) Root() tview.Primitive { return v.root }

// Panes implements view.
func (v *detailView) Panes() []tview.Primitive { return []tview.Primitive{v.events, v.packets} }

// Filter implements view.
func (v *detailView) Filter() (string, bool) { return "", false }

// SetFilter implements view.
func (v *detailView) SetFilter(string, bool) {}

// Position implements view.
func (v *detailView) Position() string {
	if v.packets.HasFocus() { // not app.GetFocus: Position runs while drawing, under the app lock
		return "packet " + strings.TrimPrefix(position(v.packets), "row ")
	}
	return "event " + strings.TrimPrefix(position(v.events), "row ")
}

// Bindings are the flow detail's keys: Enter is its tables', p opens the peer.
func (v *detailView) Bindings() []binding {
	return []binding{
		paneKey(special(tcell.KeyEnter), "on an event: open the frame that shows it; on a packet: open it in Packets", nil),
		onRune('p', "open the peer flow (the other direction of the QP pair)", v.openPeer),
	}
}

// openPeer opens the flow's peer.
func (v *detailView) openPeer() {
	r := v.u.snap.Report
	if r == nil || v.flow < 0 || v.flow >= len(r.Flows) {
		return
	}
	if p := r.Flows[v.flow].Peer; p != nil {
		v.u.openFlowID(*p)
	} else {
		v.u.msg = "no peer known for this flow"
	}
}

// open shows flow i.
func (v *detailView) open(i int) {
	if i != v.flow {
		v.flow = i
		v.evRows = nil
		v.pktRows = packetRows{}
		useContent(v.events, &tableContent{cols: detailEventColumns, sortCol: -1})
		v.events.Select(1, 0)
		v.packets.Select(1, 0)
		v.packets.SetOffset(0, 0)
	}
}

// Refresh implements view.
func (v *detailView) Refresh(s *Snapshot) {
	r := s.Report
	if r == nil || v.flow < 0 || v.flow >= len(r.Flows) {
		v.info.SetText("(flow not analysed yet)")
		return
	}
	f := &r.Flows[v.flow]
	titled(v.info.Box, "Flow #"+itoa(v.flow+1))
	v.info.SetText(flowInfo(r, f) + flowPerf(r, f) + "[green]QoS      [-] " + flowQoS(f) + "\n")
	v.refreshChart(s, f)
	v.refreshLatency(s)

	if v.requested.report != r || v.requested.flow != v.flow {
		v.requested.report, v.requested.flow = r, v.flow
		id, flow := f.ID, v.flow
		v.u.jobs.start("detail-events", func() func() {
			rows := eventOrder(r, "", "", id)
			return func() {
				keep := -1
				if v.evFlow == flow && v.evReport != nil {
					keep = selectedRow(v.events)
				}
				v.evReport, v.evFlow, v.evRows = r, flow, rows
				setContent(v.events, eventContent(r, rows, true, v.u.frames.label), keep)
				v.selectEvent(selectedRow(v.events))
				titled(v.events.Box, "Events ("+fmtCount(int64(len(rows)))+", Enter: open the frame)")
			}
		})
	}
	frames := s.FlowFramesOf(v.flow)
	if v.pktRows.snap == nil || frames.Len() != v.pktRows.len() {
		v.pktRows = packetRows{snap: s, flow: &frames}
		setContent(v.packets, newPacketContent(v.pktRows, v.u.pager), -1)
		titled(v.packets.Box, "Packets ("+fmtCount(int64(frames.Len()))+", Enter: open in Packets)")
	}
}

func (v *detailView) refreshChart(s *Snapshot, f *analysis.FlowReport) {
	tl := s.Timeline
	c := v.chart
	own := s.FlowRate(v.flow)
	if tl.WidthNs == 0 || own == nil {
		c.series, c.empty = nil, "no rate recorded for this flow"
		return
	}
	c.empty = ""
	c.axis = func(cols int) (string, string) { return timelineAxis(&tl, cols) }
	rate := func(fr *FlowRate) func(int) ([]float64, string) {
		return func(n int) ([]float64, string) {
			vals, width := fr.Resample(&tl, n)
			return vals, peakRate(vals, width)
		}
	}
	c.series = []chartSeries{{label: "This flow", color: tcell.ColorGreen, data: rate(own)}}
	if f.Peer != nil {
		if pi, ok := s.FlowIndex[*f.Peer]; ok {
			if pr := s.FlowRate(pi); pr != nil {
				c.series = append(c.series, chartSeries{label: "Peer", color: tcell.ColorBlue, data: rate(pr)})
			}
		}
	}
	if fm := s.FlowMarksOf(v.flow); fm != nil && fm.CNPs != nil {
		c.series = append(c.series, cnpBand(&tl, fm.CNPs))
	}
}

// flowInfo is the detail's counter block.
func flowInfo(r *analysis.Report, f *analysis.FlowReport) string {
	var b strings.Builder
	line := func(k, format string, a ...any) {
		fmt.Fprintf(&b, "[green]%-9s[-] %s\n", k, fmt.Sprintf(format, a...))
	}
	kind := f.Transport
	if f.SrcQPN != nil {
		kind += fmt.Sprintf(", source QP 0x%06x", *f.SrcQPN)
	}
	line("Flow", "%s (%s)", escape(f.ID), kind)
	line("Peer", "%s", escape(optString(f.Peer)))
	line("Traffic", "%s, %s (payload %s)", plural(f.Packets, "packet"), fmtBytes(f.Bytes), fmtBytes(f.PayloadBytes))
	line("Time", "%s for %s", fmtRel(f.FirstTsNs, r.Capture.FirstTsNs), fmtDur(f.LastTsNs-f.FirstTsNs))
	paint := func(n int64, s string) string {
		if n > 0 {
			return "[red]" + s + "[-]"
		}
		return s
	}
	line("Loss", "%s, %s, %s",
		paint(f.PSNGaps, plural(f.PSNGaps, "PSN gap")), paint(f.MissingPSNs, fmtCount(f.MissingPSNs)+" missing"),
		paint(f.Retransmitted, fmtCount(f.Retransmitted)+" retransmitted"))
	line("NAKs", "%s, %s", paint(f.NAKs, plural(f.NAKs, "NAK")), paint(f.RNRNAKs, plural(f.RNRNAKs, "RNR NAK")))
	line("ECN", "%s, %s sent, %s received", plural(f.ECNCE, "CE mark"), plural(f.CNPs, "CNP"), fmtCount(f.CNPsReceived))
	return b.String()
}

// eventContent is an events table over rows of r.Events; frame labels an
// event with the frame that shows it (eventFrames.label).
func eventContent(r *analysis.Report, rows []int32, flowCol bool, frame func(*analysis.Report, int32) string) *tableContent {
	cols := eventColumns
	if flowCol {
		cols = detailEventColumns
	}
	start := r.Capture.FirstTsNs
	return &tableContent{
		cols: cols, n: len(rows), sortCol: -1,
		cell: func(row, col int) (string, mark) {
			e := &r.Events[rows[row]]
			m := markProblem
			switch e.Kind {
			case "cnp":
				m = markCongestion
			case "pause":
				m = markPause
			}
			switch col {
			case 0:
				return fmtRel(e.TsNs, start), m
			case 1:
				return e.Kind, m
			case 2:
				if e.Kind == "pause" {
					return optString(e.SrcMAC), m
				}
				return optString(e.Flow), m
			case 3:
				return frame(r, rows[row]), m
			}
			return eventDetail(e, start), m
		},
	}
}
