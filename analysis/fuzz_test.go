package analysis_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// FuzzPipeline runs read -> decode -> flows -> analysis -> both report
// formats on arbitrary capture bytes: no panic, and every frame the reader
// delivers is counted.
func FuzzPipeline(f *testing.F) {
	for _, s := range synth.Scenarios() {
		var buf bytes.Buffer
		if err := s.Build().WriteTo(&buf, s.Format); err != nil {
			f.Fatal(err)
		}
		b := buf.Bytes()
		if len(b) > 4096 {
			b = b[:4096]
		}
		f.Add(b)
	}
	path := filepath.Join(f.TempDir(), "fuzz.pcap")
	f.Fuzz(func(t *testing.T, data []byte) {
		// OpenFile sizes its buffer to the file, as the CLI reads it.
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := pcapio.OpenFile(path, 0)
		if err != nil {
			return // not a capture: the CLI reports it
		}
		defer r.Close()
		dec := decode.NewDecoder(decode.Config{})
		table := flows.NewTable(flows.Config{})
		var (
			c   analysis.Counter
			rec pcapio.Record
			p   decode.Packet
			n   int64
		)
		for r.Next(&rec) == nil {
			dec.DecodeRecord(&rec, &p)
			c.Observe(&p)
			table.Observe(&p)
			n++
		}
		rep := analysis.Build(table, c.Summary([]string{"fuzz"}), analysis.Options{})
		if rep.Capture.Packets != n {
			t.Fatalf("summary counts %d packets, reader delivered %d", rep.Capture.Packets, n)
		}
		if err := analysis.WriteJSON(io.Discard, rep, false); err != nil {
			t.Fatal(err)
		}
		if err := analysis.WriteText(io.Discard, rep, analysis.TextOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
