package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rocetrace/rocetrace/analysis"
	"github.com/rocetrace/rocetrace/capture"
	"github.com/rocetrace/rocetrace/capture/captest"
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
	"github.com/rocetrace/rocetrace/tui"
)

// shotScreen is a 120x40 simulation screen that keeps the text of every
// frame it shows (on the drawing goroutine, so tests can read it safely).
type shotScreen struct {
	tcell.SimulationScreen
	mu   sync.Mutex
	text string
}

func (s *shotScreen) Init() error {
	err := s.SimulationScreen.Init()
	s.SimulationScreen.SetSize(120, 40)
	return err
}

func (s *shotScreen) Show() {
	s.SimulationScreen.Show()
	cells, w, _ := s.GetContents()
	var b strings.Builder
	for i, c := range cells {
		if i > 0 && i%w == 0 {
			b.WriteByte('\n')
		}
		if len(c.Runes) > 0 {
			b.WriteString(string(c.Runes))
		} else {
			b.WriteByte(' ')
		}
	}
	s.mu.Lock()
	s.text = b.String()
	s.mu.Unlock()
}

func (s *shotScreen) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.mu.Lock()
		text := s.text
		s.mu.Unlock()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q:\n%s", want, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// analyseFrames is the offline analysis of frames.
func analyseFrames(frames []synth.Frame) analysis.Report {
	dec := decode.NewDecoder(decode.Config{})
	table := flows.NewTable(flows.Config{})
	var (
		c analysis.Counter
		p decode.Packet
	)
	for i, f := range frames {
		rec := pcapio.Record{Data: f.Data, TsNs: f.TsNs, CapLen: len(f.Data), Len: max(f.Len, len(f.Data)), LinkType: pcapio.LinkTypeEthernet, Frame: uint64(i + 1)}
		dec.DecodeRecord(&rec, &p)
		c.Observe(&p)
		table.Observe(&p)
	}
	return analysis.Build(table, c.Summary(nil), analysis.Options{})
}

// flowsOf returns a report's flows without their timestamps (a live
// replay only approximates the gaps between frames).
func flowsOf(r *analysis.Report) []analysis.FlowReport {
	out := append([]analysis.FlowReport(nil), r.Flows...)
	for i := range out {
		out[i].FirstTsNs, out[i].LastTsNs = 0, 0
		// Latency values depend on the live replay's timing; the counts do not.
		out[i].AckLatencyP50Ns, out[i].AckLatencyP99Ns, out[i].AckLatencyMaxNs = nil, nil, nil
		out[i].ReadLatencyP50Ns, out[i].ReadLatencyP99Ns, out[i].ReadLatencyMaxNs = nil, nil, nil
		out[i].GoodputBps, out[i].PeakBps = nil, 0 // rates follow the timing too
	}
	return out
}

// TestTUILive runs `rocetrace tui -i` as the command wires it (capture,
// recording, model) with the terminal UI on a simulation screen, on one
// end of a veth pair while a scenario's frames are injected into the
// other end: the status bar shows the capture live, q ends it with no
// error, the flows seen are the scenario's, and the recording (-w FILE,
// or a temporary file that is removed) holds the frames.
func TestTUILive(t *testing.T) {
	p := captest.NewPair(t, 0)
	in, err := captest.OpenInjector(p.NS[1], p.Veth[1])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sc := synth.LossNAKReplay()
	want := analyseFrames(sc.Frames)
	n := len(sc.Frames)
	for _, keep := range []bool{true, false} {
		name := "temporary recording"
		if keep {
			name = "-w"
		}
		t.Run(name, func(t *testing.T) {
			write := ""
			if keep {
				write = filepath.Join(t.TempDir(), "live.pcapng")
			}
			var lt *liveTUI
			if err := captest.Do(p.NS[0], func() error {
				var err error
				lt, err = openLiveTUI(p.Veth[0], write, capture.Options{}, tui.Config{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					lt.close()
				}
			}()
			screen := &shotScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
			var (
				errs   []error
				runErr error
				done   = make(chan struct{})
			)
			go func() {
				defer close(done)
				errs, runErr = tui.Run(context.Background(), lt.model, screen)
			}()
			screen.waitFor(t, "live: "+p.Veth[0], "● capturing 0 frames, 0 kernel drops")

			replay(t, in, sc)
			deadline := time.Now().Add(15 * time.Second)
			for s := lt.model.Snapshot(); s.ReportFrames < int64(n); s = lt.model.Snapshot() {
				if time.Now().After(deadline) {
					t.Fatalf("the model saw %d frames (report of %d), want %d", s.Progress.Frames, s.ReportFrames, n)
				}
				time.Sleep(10 * time.Millisecond)
			}
			screen.waitFor(t, "capturing 23 frames, 0 kernel drops", "10.0.0.1>10.0.0.2:qp0x000022")

			screen.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("q did not end the UI")
			}
			st, werr := lt.close()
			closed = true
			if runErr != nil || len(errs) != 0 || werr != nil {
				t.Fatalf("Run: %v, errors %v, recording %v", runErr, errs, werr)
			}
			if st.Received != uint64(n) || st.KernelDrops != 0 {
				t.Fatalf("capture stats %+v, want %d frames", st, n)
			}
			s := lt.model.Snapshot()
			if !s.Live || !s.Progress.Done || s.Progress.Frames != int64(n) || s.Report == nil {
				t.Fatalf("final snapshot: live %v, done %v, %d frames", s.Live, s.Progress.Done, s.Progress.Frames)
			}
			if got := s.Report.Capture.Files; !reflect.DeepEqual(got, []string{"live:" + p.Veth[0]}) {
				t.Errorf("capture files %v", got)
			}
			if got, w := flowsOf(s.Report), flowsOf(&want); !reflect.DeepEqual(got, w) {
				t.Errorf("flows seen live:\n%+v\nwant:\n%+v", got, w)
			}
			if len(s.Report.Events) != len(want.Events) {
				t.Errorf("%d events live, want %d", len(s.Report.Events), len(want.Events))
			}
			if keep {
				sameData(t, readFrames(t, write), sc.Frames)
			} else if _, err := os.Stat(lt.path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary recording %s left behind: %v", lt.path, err)
			}
		})
	}
}
