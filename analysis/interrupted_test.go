package analysis

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
)

// TestTextInterrupted: the human report of an interrupted reading says so
// at the top of its capture section, with the number of frames read (every
// frame, those the read filter dropped included, as stderr counts them);
// an uninterrupted report has no such line.
func TestTextInterrupted(t *testing.T) {
	tests := []struct {
		interrupted bool
		filtered    int64
		want        string // "" = no INTERRUPTED line
	}{
		{false, 0, ""},
		{true, 0, "  INTERRUPTED after 3 frames: the report covers only the frames read\n"},
		// paired() has 3 frames; 2 more that -R dropped are still frames read.
		{true, 2, "  INTERRUPTED after 5 frames: the report covers only the frames read\n"},
		{true, 1000, "  INTERRUPTED after 1,003 frames: the report covers only the frames read\n"}, // as the frames line
	}
	for _, tc := range tests {
		tb := flows.NewTable(flows.Config{})
		var c Counter
		for _, p := range paired() {
			c.Observe(p)
			tb.Observe(p)
		}
		s := c.Summary([]string{"x.pcap"})
		s.Packets += tc.filtered // as engine.Engine.Summary: Packets counts the dropped frames too
		s.FilteredOut = tc.filtered
		s.Interrupted = tc.interrupted
		r := Build(tb, s, Options{})
		var text bytes.Buffer
		if err := WriteText(&text, r, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		got := text.String()
		if tc.want == "" {
			if strings.Contains(got, "INTERRUPTED") {
				t.Errorf("not interrupted: the report says INTERRUPTED:\n%s", got)
			}
			continue
		}
		// The line comes first in the capture section, under its heading.
		if !strings.HasPrefix(got, "== Capture\n"+tc.want) {
			t.Errorf("interrupted (%d filtered): report does not start with %q:\n%s", tc.filtered, tc.want, got)
		}
		if strings.Count(got, "INTERRUPTED") != 1 {
			t.Errorf("INTERRUPTED more than once:\n%s", got)
		}
	}
}
