package analysis

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// A lean report (Options.Lean) writes the same JSON and text as the report
// with its rows, builds the same rows a chunk at a time, and Materialize
// turns it into that report; its Flows and Events are nil until then, its
// Findings (and its latency summaries) until Await.
func TestLeanMatchesRows(t *testing.T) {
	type input struct {
		name string
		ps   []*decode.Packet
	}
	inputs := []input{{"golden", goldenScenario()}}
	dec := decode.NewDecoder(decode.Config{})
	for _, sc := range synth.Scenarios() {
		c := sc.Build()
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		in := input{name: sc.Name}
		for _, fr := range c.Frames {
			p := new(decode.Packet)
			dec.Decode(fr.Data, pcapio.LinkTypeEthernet, fr.Len, p)
			p.TsNs = fr.TsNs
			in.ps = append(in.ps, p)
		}
		inputs = append(inputs, in)
	}
	cfg := flows.Config{LinkSpeedBps: 100e9}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			full := build(t, cfg, Options{}, in.ps...)
			lean := build(t, cfg, Options{Lean: true}, in.ps...)
			if lean.Flows != nil || lean.Events != nil || !lean.Lean() {
				t.Fatalf("lean report has rows: %d flows, %d events", len(lean.Flows), len(lean.Events))
			}
			// its findings and latency are computed meanwhile: unset until
			// Await (on a copy: the writers below must wait for them
			// themselves)
			if lean.Findings != nil || lean.CNPLatency != (LatencySummary{}) || lean.Latency != (LatencyReport{}) {
				t.Fatalf("lean report has its findings or latency before Await")
			}
			c := lean
			c.Await()
			if !reflect.DeepEqual(c.Findings, full.Findings) || c.CNPLatency != full.CNPLatency || c.Latency != full.Latency {
				t.Fatalf("Await: %v %v %v, want %v %v %v", c.Findings, c.CNPLatency, c.Latency, full.Findings, full.CNPLatency, full.Latency)
			}
			if lean.NumFlows() != len(full.Flows) || lean.NumEvents() != len(full.Events) || (in.name == "golden" && len(full.Events) == 0) {
				t.Fatalf("lean: %d flows, %d events; rows: %d, %d", lean.NumFlows(), lean.NumEvents(), len(full.Flows), len(full.Events))
			}
			for _, indent := range []bool{false, true} {
				var a, b bytes.Buffer
				if err := WriteJSON(&a, full, indent); err != nil {
					t.Fatal(err)
				}
				if err := WriteJSON(&b, lean, indent); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("indent %v: lean JSON differs:\n%s\nwant\n%s", indent, b.Bytes(), a.Bytes())
				}
				// the events split between two goroutines (jsonsplit.go)
				// from 2 events on, in chunks of 2 events, in blocks of one
				// or two events
				b.Reset()
				if err := writeJSON(&b, lean, indent, eventSplit{min: 2, chunk: 2, block: 400}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("indent %v: lean JSON with the events split differs:\n%s\nwant\n%s", indent, b.Bytes(), a.Bytes())
				}
			}
			var a, b bytes.Buffer
			if err := WriteText(&a, full, TextOptions{MaxFlows: -1}); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&b, lean, TextOptions{MaxFlows: -1}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("lean text differs:\n%s", b.Bytes())
			}
			if !lean.Lean() {
				t.Errorf("WriteText materialized the caller's report")
			}
			// rows in chunks of 2, as the writers take them in chunks of rowChunk
			fs, es := []FlowReport{}, []EventReport{}
			for i := 0; i < lean.NumFlows(); i += 2 {
				fs = lean.AppendFlows(fs, i, min(i+2, lean.NumFlows()))
			}
			for i := 0; i < lean.NumEvents(); i += 2 {
				es = lean.AppendEvents(es, i, min(i+2, lean.NumEvents()))
			}
			if !reflect.DeepEqual(fs, full.Flows) || !reflect.DeepEqual(es, full.Events) {
				t.Errorf("AppendFlows/AppendEvents differ from the rows")
			}
			lean.Materialize()
			if lean.Lean() || !reflect.DeepEqual(lean, full) {
				t.Errorf("Materialize does not give the report with rows")
			}
		})
	}
}

// The second goroutine of the events' split (startBack) takes chunks from
// the back, last first, and hands them over in the array's order, within
// splitMaxEvents: here it takes every chunk of one event.
func TestEventsBack(t *testing.T) {
	lean := build(t, flows.Config{LinkSpeedBps: 100e9}, Options{Lean: true}, goldenScenario()...)
	n := lean.NumEvents()
	if n < 3 {
		t.Fatalf("%d events", n)
	}
	for _, indent := range []bool{false, true} {
		c := &eventChunks{back: n, chunk: 1, n: n}
		back := startBack(&lean, c, indent, 400)
		<-back.done
		if back.first != 0 || len(back.blocks) != n {
			t.Fatalf("took chunks %d.. (%d), want 0.. (%d)", back.first, len(back.blocks), n)
		}
		var got []byte
		for _, chunk := range back.blocks {
			got = append(got, bytes.Join(chunk, nil)...)
		}
		// What one goroutine writes: no separator before event 0 (the
		// back took chunk 0 as well here).
		var one bytes.Buffer
		jw := &jsonWriter{w: bufio.NewWriter(&one), indent: indent}
		jw.eventRange(&lean, 0, n)
		jw.w.Flush()
		if !bytes.Equal(got, one.Bytes()) {
			t.Errorf("indent %v: %s\nwant %s", indent, got, one.Bytes())
		}
		if _, _, ok := c.takeFront(); ok {
			t.Errorf("a chunk left for the front")
		}
	}
}
