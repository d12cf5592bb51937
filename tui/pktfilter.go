package tui

import (
	"net/netip"
	"sort"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/pcapio"
)

// The packets view's filter: the display-filter language of `rocetrace
// packets -Y` (package filter), evaluated over the frames read again from
// the files, with the events the loader recorded per frame.

// FrameEvent is a frame that shows events: its Index position and kinds.
type FrameEvent struct {
	Pos    uint32
	Events flows.EventMask
}

// EventsAt returns the kinds of the events frame pos shows (0: none).
func (s *Snapshot) EventsAt(pos int) flows.EventMask {
	fe := s.FrameEvents
	i := sort.Search(len(fe), func(i int) bool { return int(fe[i].Pos) >= pos })
	if i < len(fe) && int(fe[i].Pos) == pos {
		return fe[i].Events
	}
	return 0
}

// eventNames returns the names of the kinds in m, comma-separated.
func eventNames(m flows.EventMask) string {
	var b strings.Builder
	for i, n := range flows.EventMaskNames {
		if m&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(n)
		}
	}
	return b.String()
}

// compilePacketFilter compiles the packets view's filter text: the filter
// language, or one of the old shorthand words where it is unambiguous: an
// IP address alone (or "ip:ADDR") is ip.addr == ADDR (ipv6.addr for IPv6),
// exactly; "qp:N" is dst_qpn == N; "problems" is events. It returns the
// expression compiled and the error of the text as the language reads it.
func compilePacketFilter(text string) (*filter.Filter, error) {
	f, err := filter.Compile(text)
	if err == nil {
		return f, nil
	}
	if expr := shorthand(strings.TrimSpace(text)); expr != "" {
		if g, err2 := filter.Compile(expr); err2 == nil {
			return g, nil
		}
	}
	return nil, err
}

// shorthand returns the expression of an old shorthand word, or "".
func shorthand(w string) string {
	if w == "problems" {
		return "events"
	}
	if q, ok := strings.CutPrefix(w, "qp:"); ok {
		return "dst_qpn == " + q // checked by the compiler
	}
	w = strings.TrimPrefix(w, "ip:")
	if a, err := netip.ParseAddr(w); err == nil && a.Zone() == "" {
		if a.Unmap().Is4() {
			return "ip.addr == " + a.Unmap().String()
		}
		return "ipv6.addr == " + a.String()
	}
	return ""
}

// displayFrames returns the positions of the frames of s that match f,
// reading every frame again from its file. A frame that cannot be read
// again does not match.
func displayFrames(s *Snapshot, p *Pager, f *filter.Filter) []uint32 {
	out := []uint32{}
	var (
		rec pcapio.Record
		pkt decode.Packet
		buf []byte
		err error
	)
	for pos := range s.Index.Len() {
		if buf, err = p.read(s, pos, &rec, &pkt, buf); err != nil {
			continue
		}
		fr := filter.Frame{Events: uint8(s.EventsAt(pos))}
		if pkt.File < len(s.Files) {
			fr.File = s.Files[pkt.File]
		}
		if f.NeedsFlow() {
			if k, ok := flows.KeyOf(&pkt); ok && pkt.IsRoCE() && !pkt.Malformed {
				fr.Flow = k.String()
			}
		}
		if f.Match(&pkt, &fr) {
			out = append(out, uint32(pos))
		}
	}
	return out
}

// displayFilter is the packets view's filter at start (Config.DisplayFilter).
func (m *Model) displayFilter() string { return m.cfg.DisplayFilter }

// initFilter sets the view's filter before the first snapshot (-Y).
func (v *packetsView) initFilter(text string) {
	if text == "" {
		return
	}
	if f, err := compilePacketFilter(text); err == nil {
		v.filter, v.compiled = text, f
	}
}

// setPacketFilter handles the filter input of the packets view: while the
// text is typed, a live error under the input; when entered, the filter
// (or its error in the status line, keeping the previous filter).
func (v *packetsView) setPacketFilter(text string, final bool) {
	var f *filter.Filter
	var err error
	if strings.TrimSpace(text) != "" {
		f, err = compilePacketFilter(text)
	}
	if !final {
		msg := ""
		if err != nil {
			msg = filterErrorLine(text, err)
		}
		v.u.showFilterError(msg)
		return
	}
	v.u.showFilterError("")
	if err != nil {
		v.u.msg = "display filter: " + err.Error()
		return
	}
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	v.filter, v.compiled = text, f
	v.requested = nil
	v.Refresh(v.u.snap)
}

// filterErrorLine is the live error: a caret under the offending column
// of the input (the input's label "/" is one column) and the message.
func filterErrorLine(text string, err error) string {
	if fe, ok := err.(*filter.Error); ok {
		return strings.Repeat(" ", max(fe.Col, 1)) + "^ " + fe.Msg
	}
	return err.Error()
}

// showFilterError shows msg on a line under the filter input ("" hides
// the line).
func (u *UI) showFilterError(msg string) {
	if u.filterErr == nil {
		return
	}
	u.filterErr.SetText(msg)
	rows := 1
	if msg != "" {
		rows = 2
	}
	u.root.ResizeItem(u.footer, rows, 0)
}
