package analysis

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocetrace/rocetrace/flows"
)

// TestCaptureDrops: a live capture's kernel drops are in the JSON
// (capture.kernel_drops, 0 for files) and make a capture_drops warning.
func TestCaptureDrops(t *testing.T) {
	for _, drops := range []int64{0, 1, 1234} {
		tb := flows.NewTable(flows.Config{})
		var c Counter
		for _, p := range paired() {
			c.Observe(p)
			tb.Observe(p)
		}
		s := c.Summary([]string{"live:eth0"})
		if s.KernelDrops != 0 {
			t.Fatalf("Counter set KernelDrops to %d", s.KernelDrops)
		}
		s.KernelDrops = drops
		r := Build(tb, s, Options{})

		var buf bytes.Buffer
		if err := WriteJSON(&buf, r, false); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Capture map[string]any `json:"capture"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if v, ok := doc.Capture["kernel_drops"]; !ok || v != float64(drops) {
			t.Errorf("drops %d: capture.kernel_drops = %v (present %v)", drops, v, ok)
		}

		// The human report's capture summary shows the drops of a live
		// capture, zero included.
		var text bytes.Buffer
		if err := WriteText(&text, r, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if want := "kernel drops  " + num(drops) + " frames lost by the capture itself"; !strings.Contains(text.String(), want) {
			t.Errorf("drops %d: human report lacks %q:\n%s", drops, want, text.String())
		}

		n := codes(r)[CodeCaptureDrops]
		if drops == 0 {
			if n != 0 {
				t.Errorf("capture_drops finding without drops")
			}
			continue
		}
		if n != 1 {
			t.Fatalf("drops %d: %d capture_drops findings, want 1: %+v", drops, n, r.Findings)
		}
		for _, f := range r.Findings {
			if f.Code != CodeCaptureDrops {
				continue
			}
			if f.Severity != SeverityWarning || f.Flow != nil {
				t.Errorf("finding %+v: want a capture-wide warning", f)
			}
			if !strings.Contains(f.Message, "capture") || !strings.Contains(f.Message, num(drops)) {
				t.Errorf("message %q does not name the drop count", f.Message)
			}
		}
		if !strings.Contains(text.String(), CodeCaptureDrops) {
			t.Errorf("human report does not show the drops:\n%s", text.String())
		}
	}
}
