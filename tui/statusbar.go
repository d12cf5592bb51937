package tui

import (
	"path/filepath"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// The bottom line: the status line, or the filter input while a filter is
// typed. UI goroutine only.

// startFilter opens the filter input for the current view.
func (u *UI) startFilter() {
	text, ok := u.current().Filter()
	if !ok {
		u.msg = "this view has no filter"
		return
	}
	u.stack[len(u.stack)-1].focus = u.focusIndex()
	u.filterPrev = text
	u.filtering = true
	u.input.SetText(text)
	u.footer.SwitchToPage("filter")
	u.app.SetFocus(u.input)
}

// startPrompt asks for a line in the bottom input (label, then text to
// edit); Enter calls done with it, Esc cancels. While it is open, keys go
// to the input as while a filter is typed.
func (u *UI) startPrompt(label, text string, done func(string)) {
	u.stack[len(u.stack)-1].focus = u.focusIndex()
	u.prompt = done
	u.filtering = true
	u.input.SetLabel(label)
	u.input.SetText(text)
	u.footer.SwitchToPage("filter")
	u.app.SetFocus(u.input)
}

// endFilter closes the filter input: Enter keeps the filter, Esc restores
// the previous one. For a prompt, Enter calls its function.
func (u *UI) endFilter(key tcell.Key) {
	if !u.filtering {
		return
	}
	u.filtering = false
	u.showFilterError("")
	if done := u.prompt; done != nil {
		u.prompt = nil
		u.input.SetLabel("/")
		u.footer.SwitchToPage("status")
		u.focusPane(u.stack[len(u.stack)-1].focus)
		if key != tcell.KeyEscape {
			done(u.input.GetText())
		}
		u.updateStatus()
		return
	}
	if key == tcell.KeyEscape {
		u.current().SetFilter(u.filterPrev, true)
	} else {
		u.current().SetFilter(u.input.GetText(), true)
	}
	u.footer.SwitchToPage("status")
	u.focusPane(u.stack[len(u.stack)-1].focus)
	u.updateStatus()
}

// statusKeys is the status line's reminder of the main global keys
// (TestStatusKeysBound checks that each is bound).
const statusKeys = "? help  / filter  Enter open  Esc back  q quit"

// updateStatus rewrites the status line: file, view, position, loading
// progress or message, keys.
func (u *UI) updateStatus() {
	s := u.snap
	var b strings.Builder
	b.WriteString("[::b]")
	label := fileLabel(s.Files)
	if s.Live {
		label = liveLabel(s.Files)
	}
	b.WriteString(escape(label))
	b.WriteString("[::-] │ ")
	fileEnd := b.Len()
	b.WriteString(u.current().Name())
	if pos := u.current().Position(); pos != "" {
		b.WriteString(" │ " + pos)
	}
	if f, ok := u.current().Filter(); ok && f != "" {
		b.WriteString(" │ filter: " + escape(f))
	}
	b.WriteString(" │ ")
	switch {
	case u.msg != "":
		b.WriteString("[yellow]" + escape(u.msg) + "[-]")
	case s.Live:
		b.WriteString(liveStatus(s))
	case !s.Progress.Done:
		b.WriteString(progressBar(s.Progress, 20))
	case len(s.Errors) > 0:
		b.WriteString("[red]" + plural(int64(len(s.Errors)), "input error") + " (see Overview)[-]")
	default:
		b.WriteString(plural(s.Progress.Frames, "frame") + " loaded")
	}
	line := b.String()
	if keys := fitKeys(line, u.width); keys != "" || u.width <= 0 {
		line += keys
	} else if rest := line[fileEnd:]; fitKeys(rest, u.width) != "" {
		line = rest + fitKeys(rest, u.width) // narrow: the help key before the file name
	}
	u.status.SetText(line)
}

// statusKeysShort are shorter forms of statusKeys, for narrow screens.
var statusKeysShort = []string{statusKeys, "? help  / filter  Esc back  q quit", "? help  q quit", "? help"}

// fitKeys returns the longest form of the key reminder that fits after
// line in width cells (width 0: unknown, the full one), or none.
func fitKeys(line string, width int) string {
	if width <= 0 {
		return " │ " + statusKeys
	}
	used := tview.TaggedStringWidth(line)
	for _, k := range statusKeysShort {
		if used+3+tview.TaggedStringWidth(k) <= width {
			return " │ " + k
		}
	}
	return ""
}

// fileLabel names the inputs in one short string.
func fileLabel(files []string) string {
	if len(files) == 0 {
		return "-"
	}
	name := filepath.Base(files[0])
	if len(files) > 1 {
		name += " +" + itoa(len(files)-1)
	}
	return name
}

// liveLabel names a live capture: "live: eth1".
func liveLabel(files []string) string {
	if len(files) == 0 {
		return "live"
	}
	name := strings.TrimPrefix(files[0], "live:")
	return "live: " + strings.TrimSpace(name)
}

// liveStatus tells how a live capture is going: "● capturing 1,234 frames,
// 0 kernel drops" (the drops in red when there are any).
func liveStatus(s *Snapshot) string {
	state := "[green]● capturing[-] "
	if s.Progress.Done {
		state = "capture stopped: "
	}
	drops := plural(s.KernelDrops, "kernel drop")
	if s.KernelDrops > 0 {
		drops = "[red]" + drops + "[-]"
	}
	st := state + plural(s.Progress.Frames, "frame") + ", " + drops
	if len(s.Errors) > 0 {
		st += " [red](" + plural(int64(len(s.Errors)), "error") + ", see Overview)[-]"
	}
	return st
}

// progressBar renders loading progress: "loading ▕████░░░░▏ 45% 1,234 frames".
func progressBar(p Progress, w int) string {
	f := p.Fraction()
	full := int(f * float64(w))
	bar := strings.Repeat("█", full) + strings.Repeat("░", w-full)
	pct := itoa(int(f*100)) + "%"
	if p.TotalBytes <= 0 {
		pct = "?"
	}
	return "loading ▕" + bar + "▏ " + pct + " " + plural(p.Frames, "frame")
}
