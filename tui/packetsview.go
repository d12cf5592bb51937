package tui

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rocetrace/rocetrace/filter"
)

// packetsView is Wireshark's three panes: every frame in a virtualized
// table (rows read from the file on demand), the selected frame's header
// tree and its hex dump.
type packetsView struct {
	u     *UI
	root  *tview.Flex
	table *tview.Table
	tree  *tview.Table // hdr's table
	hdr   *headerTree  // the header tree and its bytes in hex (headertree.go)
	hex   *tview.TextView

	rows      packetRows
	filter    string
	compiled  *filter.Filter // filter compiled (nil: no filter)
	requested *Snapshot      // snapshot the filtered rows were asked for
	detailPos int            // frame whose detail is shown or coming
	want      int            // frame to select once the rows hold it, -1 none
	marks     markSet        // marked frames (Index positions)
	delta     bool           // the Time column shows the time since the previous frame listed
	fixed     []uint32       // a fixed list shown in place of a filter (a hop's lost frames, pointslost.go), nil none
}

func newPacketsView(u *UI) *packetsView {
	v := &packetsView{u: u, detailPos: -1, want: -1}
	v.table = newTable("Packets", func(row int) { u.focusPane(1) })
	useContent(v.table, &tableContent{cols: packetColumns, sortCol: -1})
	v.table.SetSelectionChangedFunc(func(row, _ int) { v.showDetail() })
	v.hex = newText("Bytes", true)
	v.hdr = newHeaderTree(v.hex)
	v.tree = v.hdr.table
	v.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.table, 0, 3, true).
		AddItem(v.tree, 0, 3, false).
		AddItem(v.hex, 0, 2, false)
	return v
}

// Name implements view.
func (v *packetsView) Name() string { return "Packets" }

// Root implements view.
func (v *packetsView) Root() tview.Primitive {
	return v.root
}

// Panes implements view.
func (v *packetsView) Panes() []tview.Primitive {
	return []tview.Primitive{v.table, v.tree, v.hex}
}

// Position implements view.
func (v *packetsView) Position() string { return position(v.table) }

// Filter implements view.
func (v *packetsView) Filter() (string, bool) { return v.filter, true }

// Bindings are the packets' keys: Enter is the table's, f opens the flow.
func (v *packetsView) Bindings() []binding {
	bs := []binding{
		paneKey(special(tcell.KeyEnter), "go to the header tree of the selected frame", v.table),
		onRune('f', "open the flow of the selected frame", v.openFlow),
		onRune('m', "mark the selected frame (or unmark it)", v.toggleMark),
		onRune('\'', "go to the next marked frame", v.nextMark),
		onRune('w', "write the marked frames (none marked: the frames listed) to a pcap file", v.write),
		onRune('d', "Time column: since the first frame / since the previous frame listed (Delta)", v.toggleDelta),
		note("/", "display filter, as packets -Y (also an IP alone, qp:N, problems)"),
		note("/ N Enter", "go to frame N"),
	}
	return append(bs, v.hdr.bindings()...)
}

// openFlow opens the flow of the selected frame.
func (v *packetsView) openFlow() {
	row := selectedRow(v.table)
	if row < 0 {
		return
	}
	r := v.u.pager.Row(v.u.snap, v.rows.pos(row))
	switch {
	case r == nil:
		v.u.msg = "the frame is still being read"
	case r.Flow == "":
		v.u.msg = "this frame belongs to no flow"
	default:
		v.u.openFlowID(r.Flow)
	}
}

// SetFilter applies a filter when it is entered (not while typed: a
// filter over millions of frames is not worth running per key).
func (v *packetsView) SetFilter(text string, final bool) {
	if final && v.leaveFixed(text) {
		return
	}
	if n, ok := frameNumber(text); ok {
		if final {
			v.u.showFilterError("")
			v.selectPos(int(n) - 1)
		}
		return
	}
	v.setPacketFilter(text, final)
}

// selectPos selects frame pos, dropping a filter that hides it.
func (v *packetsView) selectPos(pos int) {
	if v.filter != "" && v.rows.snap != nil && v.rows.find(pos) < 0 {
		v.filter, v.compiled, v.fixed = "", nil, nil
		v.requested = nil
	}
	v.want = pos
	v.Refresh(v.u.snap)
}

// applyWant selects the wanted frame once the table holds it.
func (v *packetsView) applyWant() {
	if v.want < 0 || v.rows.snap == nil {
		return
	}
	if row := v.rows.find(v.want); row >= 0 {
		v.want = -1
		centre(v.table, row)
	}
}

// Refresh implements view.
func (v *packetsView) Refresh(s *Snapshot) {
	if v.fixed != nil {
		v.refreshFixed(s)
		return
	}
	if v.filter == "" {
		if v.rows.snap != s || v.rows.frames != nil {
			keep := v.selectedPos()
			v.rows = packetRows{snap: s}
			v.setRows(keep)
		}
		v.applyWant()
		return
	}
	if v.requested != nil && v.requested.Report == s.Report && v.requested.Index.Len() == s.Index.Len() {
		return
	}
	v.requested = s
	filter, f := v.filter, v.compiled
	v.u.jobs.start("packets", func() func() {
		frames := displayFrames(s, v.u.pager, f)
		return func() {
			if filter != v.filter {
				return
			}
			keep := v.selectedPos() // read when the rows change: the user may have moved meanwhile
			v.rows = packetRows{snap: s, frames: frames}
			v.setRows(keep)
			v.applyWant()
		}
	})
}

// selectedPos returns the Index position of the selected frame, -1 none.
func (v *packetsView) selectedPos() int {
	row := selectedRow(v.table)
	if row < 0 || v.rows.snap == nil || row >= v.rows.len() {
		return -1
	}
	return v.rows.pos(row)
}

// setRows shows v.rows, keeping frame keep selected when the rows hold it,
// else the nearest following frame (the last row when none follows): a new
// row list keeps the frame, never the row number. This is independent of
// how the rows were chosen (which frames a filter matches).
func (v *packetsView) setRows(keep int) {
	at := -1
	if keep >= 0 {
		at = v.rows.atOrAfter(keep)
	}
	setContent(v.table, v.content(), at)
	v.setTitle()
}

// deltaColumns are packetColumns with the time since the previous frame
// listed.
var deltaColumns = func() []column {
	cols := slices.Clone(packetColumns)
	cols[1].title = "Delta"
	return cols
}()

// content is the table's content: a marked frame's number has a "*"; with
// delta, the Time column is the time since the previous frame listed.
func (v *packetsView) content() *tableContent {
	c := newPacketContent(v.rows, v.u.pager)
	cell, rows, s, src := c.cell, v.rows, v.rows.snap, v.u.pager
	delta := v.delta
	if delta {
		c.cols = deltaColumns
	}
	c.cell = func(row, col int) (string, mark) {
		text, m := cell(row, col)
		switch {
		case col == 0 && len(v.marks) > 0 && v.marks.has(rows.pos(row)):
			text = "*" + text
		case col == 1 && delta && text != "":
			cur := src.Row(s, rows.pos(row))
			if row == 0 || cur == nil {
				return fmtSeconds(0), m
			}
			prev := src.Row(s, rows.pos(row-1))
			if prev == nil || prev.Err != "" {
				return "…", m
			}
			return fmtSeconds(cur.TsNs - prev.TsNs), m
		}
		return text, m
	}
	return c
}

// toggleDelta switches the Time column between the time since the first
// frame and the time since the previous frame listed.
func (v *packetsView) toggleDelta() {
	v.delta = !v.delta
	setContent(v.table, v.content(), selectedRow(v.table))
}

// toggleMark marks or unmarks the selected frame.
func (v *packetsView) toggleMark() {
	if pos := v.selectedPos(); pos >= 0 {
		v.marks.toggle(pos)
		v.setTitle()
	}
}

// nextMark selects the next marked frame (dropping a filter that hides
// it).
func (v *packetsView) nextMark() {
	cur := v.selectedPos()
	next := v.marks.after(cur)
	switch {
	case next < 0:
		v.u.msg = "no frame is marked (m marks one)"
		return
	case next == cur:
		v.u.msg = "this is the only marked frame"
		return
	}
	v.selectPos(next)
}

// write asks for a file name and writes the marked frames, or the frames
// listed, to it in a job.
func (v *packetsView) write() {
	rows, marks := v.rows, slices.Clone(v.marks)
	if rows.snap == nil {
		return
	}
	what := plural(int64(rows.len()), "frame") + " listed"
	n, pos := rows.len(), rows.pos
	if len(marks) > 0 {
		what = plural(int64(len(marks)), "marked frame")
		n, pos = len(marks), func(i int) int { return int(marks[i]) }
	}
	v.u.startPrompt("write "+what+" to: ", "rocetrace-frames.pcap", func(path string) {
		if path == "" {
			return
		}
		v.u.msg = "writing " + what + " to " + path + "…"
		v.u.jobs.start("write", func() func() {
			err := v.u.pager.writePcapFile(rows.snap, n, pos, path)
			return func() {
				if err != nil {
					v.u.msg = err.Error()
					return
				}
				v.u.msg = "wrote " + what + " to " + path
			}
		})
	})
}

func (v *packetsView) setTitle() {
	t := "Packets (" + fmtCount(int64(v.rows.len()))
	if v.filter != "" {
		t += " of " + fmtCount(int64(v.rows.snap.Index.Len())) + ", matching " + v.filter
	}
	if len(v.marks) > 0 {
		t += ", " + fmtCount(int64(len(v.marks))) + " marked"
	}
	t += ")"
	if s := v.rows.snap; s != nil && len(s.Files) > 1 {
		t += " No. is FILE:FRAME: " + fileLegend(s.Files)
	}
	titled(v.table.Box, t)
}

// showDetail reads the selected frame's tree and bytes in a job.
func (v *packetsView) showDetail() {
	row := selectedRow(v.table)
	if row < 0 || v.rows.snap == nil || row >= v.rows.len() {
		return
	}
	pos := v.rows.pos(row)
	if pos == v.detailPos {
		return
	}
	v.detailPos = pos
	s := v.rows.snap
	v.u.jobs.start("packet-detail", func() func() {
		d := v.u.pager.Detail(s, pos)
		return func() {
			if v.detailPos != pos {
				return
			}
			if d.Err != nil {
				v.hdr.setText(d.Err.Error())
				return
			}
			titled(v.tree.Box, "Headers of frame "+itoa(int(d.Frame)))
			v.hdr.set(d.Head, d.Lines, d.Data)
		}
	})
}

// fileLegend names the inputs by their number in "FILE:FRAME": "1 a.pcap,
// 2 b.pcap".
func fileLegend(files []string) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = itoa(i+1) + " " + filepath.Base(f)
	}
	return strings.Join(parts, ", ")
}
