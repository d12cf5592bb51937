package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rocetrace/rocetrace/internal/testenv"
)

// The Points view and a hop's lost frames, on the two-point demo
// (pcaps/two_points_{up,down}.pcap, made by internal/cmd/mkdemo): one RC
// write flow 10.0.0.1>10.0.0.2:qp0x000022 (PSN 100..107, one WRITE_ONLY
// every 10 µs at up) and its ACKs 10.0.0.2>10.0.0.1:qp0x000011. up saw 14
// frames, down 14: PSN 103 (up's frame 7, at +30 µs) never reached down,
// and down saw PSN 105 (its frame 9) that up missed. So the report's hops,
// worked by hand from `rocetrace packets` on both files:
//   - up>down on qp0x000022: matched 6 (PSN 100, 101, 102, 104, 106, 107),
//     lost 1 (103), unseen upstream 1 (105). The writes are at up at 0, 10,
//     20, 40, 60, 70 µs after up's first frame and at down at 0, 10.1,
//     20.2, 40.1, 60.0, 70.1 µs after down's, whose first frame is 2 µs
//     later (the points' first_ts_ns differ by 2000 ns): delays 2.0, 2.1,
//     2.2, 2.1, 2.0, 2.1 µs; sorted 2.0 2.0 2.1 2.1 2.1 2.2, p50 (nearest
//     rank, the 3rd of 6) = 2.1 µs, p99 (the 6th) = max = 2.2 µs.
//   - down>up on qp0x000011: the 7 ACKs, matched 7; at down at 5.0 µs
//     (+2 µs = 7.0 in up's terms), at up at 9.0 µs: 2 µs each.

// twoPoints returns the demo's points, up first or down first.
func twoPoints(upFirst bool) []PointFiles {
	dir := filepath.Join(testenv.RepoRoot(), "pcaps")
	up := PointFiles{Name: "up", Files: []string{filepath.Join(dir, "two_points_up.pcap")}}
	down := PointFiles{Name: "down", Files: []string{filepath.Join(dir, "two_points_down.pcap")}}
	if upFirst {
		return []PointFiles{up, down}
	}
	return []PointFiles{down, up}
}

// newPointsHarness is newHarness over capture points.
func newPointsHarness(t *testing.T, w, h int, pts []PointFiles) *harness {
	t.Helper()
	m, err := Open(Config{Points: pts})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := &harness{t: t, app: &fakeApp{}, m: m, w: w, h: h}
	pager := NewPager(m.readersAt(), m.pagerNames(), m.cfg.Decode, m.Snapshot().LinkBps, nil)
	hs.u = newUI(hs.app, m, pager, func() { hs.quits++ })
	pager.notify = hs.u.wakeUp
	m.SetNotify(hs.u.wakeUp)
	pagerDone := make(chan struct{})
	go func() { pager.Run(ctx); close(pagerDone) }()
	m.Start(ctx)
	<-m.Done()
	hs.screen = tcell.NewSimulationScreen("UTF-8")
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	hs.screen.SetSize(w, h)
	t.Cleanup(func() {
		cancel()
		<-pagerDone
		hs.u.jobs.wg.Wait()
		m.Close()
		hs.screen.Fini()
	})
	hs.settle()
	return hs
}

// TestPointsModel: the model runs engine.Points: the report is the
// reference point's (14 frames, 2 flows) with 2 points and 2 hops, the
// index holds both points' 28 frames, and the hop's numbers are those of
// the report (see the top of the file).
func TestPointsModel(t *testing.T) {
	hs := newPointsHarness(t, 120, 40, twoPoints(true))
	s := hs.u.snap
	r := s.Report
	if r.Capture.Packets != 14 || len(r.Flows) != 2 || s.Index.Len() != 28 {
		t.Fatalf("capture %d frames, %d flows, index %d; want 14, 2, 28", r.Capture.Packets, len(r.Flows), s.Index.Len())
	}
	if len(r.Points) != 2 || len(r.Hops) != 2 {
		t.Fatalf("%d points, %d hops; want 2, 2", len(r.Points), len(r.Hops))
	}
	h := r.Hops[0]
	got := fmt.Sprint(h.From, h.To, h.Flow, h.Matched, h.Lost, h.UnseenUpstream, h.Delay.P50Ns, h.Delay.P99Ns, h.Delay.MaxNs)
	if want := fmt.Sprint("up", "down", "10.0.0.1>10.0.0.2:qp0x000022", 6, 1, 1, 2100, 2200, 2200); got != want {
		t.Errorf("hop 1 = %s, want %s", got, want)
	}
	if len(s.PointNames) != 2 || len(hs.u.top) != 7 || hs.u.top[6] != hs.u.points {
		t.Errorf("points %v, %d tabs; want the Points view as tab 7", s.PointNames, len(hs.u.top))
	}
}

// TestPointsLostFrames: Enter on the up>down hop lists its one lost frame
// in the packets view: PSN 103, up's frame 7. With down as the reference
// the lost frame is still up's (a frame of `from`, found in up's own frame
// list): then up is file 2, and the frame is "2:7".
func TestPointsLostFrames(t *testing.T) {
	for _, tt := range []struct {
		upFirst bool
		file    int // up's file index
	}{{true, 0}, {false, 1}} {
		t.Run(fmt.Sprint("upFirst=", tt.upFirst), func(t *testing.T) {
			hs := newPointsHarness(t, 120, 40, twoPoints(tt.upFirst))
			hs.key(tcell.KeyRune, '7')
			row := 0
			for i, hop := range hs.u.snap.Report.Hops {
				if hop.From == "up" && hop.Lost == 1 {
					row = i
				}
			}
			for range row {
				hs.key(tcell.KeyDown, 0)
			}
			hs.key(tcell.KeyEnter, 0)
			v := hs.u.packets
			if hs.u.current() != v || v.rows.len() != 1 {
				t.Fatalf("view %s, %d rows; want Packets with 1 row:\n%s", hs.u.current().Name(), v.rows.len(), hs.text())
			}
			pos := v.rows.pos(0)
			file, _ := hs.u.snap.Index.At(pos)
			if file != tt.file || hs.u.snap.Index.Frame(pos) != 7 || v.selectedPos() != pos {
				t.Errorf("lost frame at file %d frame %d (selected %d), want file %d frame 7",
					file, hs.u.snap.Index.Frame(pos), v.selectedPos(), tt.file)
			}
			hs.contains("PSN=103")
			hs.contains("lost up>down 10.0.0.1>10.0.0.2:qp0x000022")
			// Esc leaves the list: every frame again.
			hs.key(tcell.KeyEscape, 0)
			if v.rows.len() != 28 || v.fixed != nil {
				t.Errorf("after Esc %d rows, want 28", v.rows.len())
			}
		})
	}
}

// TestPointsNoLoss: Enter on the ACKs' hop (lost 0) says so and stays.
func TestPointsNoLoss(t *testing.T) {
	hs := newPointsHarness(t, 120, 40, twoPoints(true))
	hs.key(tcell.KeyRune, '7')
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyEnter, 0)
	if hs.u.current() != hs.u.points {
		t.Fatalf("view %s, want Points", hs.u.current().Name())
	}
	hs.contains("no frame was lost between down and up")
}

// TestPointsSort: s steps through the columns (Flow, From, To, Matched...):
// four times is Matched, descending: the ACKs' hop (7 matched) before the
// writes' (6); r reverses. A filter keeps the hops whose words match.
func TestPointsSort(t *testing.T) {
	hs := newPointsHarness(t, 120, 40, twoPoints(true))
	hs.key(tcell.KeyRune, '7')
	v := hs.u.points
	if fmt.Sprint(v.rows) != "[0 1]" {
		t.Fatalf("rows %v, want the report's order [0 1]", v.rows)
	}
	hs.keys("ssss")
	if v.sortCol != 3 || !v.desc || fmt.Sprint(v.rows) != "[1 0]" {
		t.Errorf("sort %d desc %v rows %v, want Matched descending [1 0]", v.sortCol, v.desc, v.rows)
	}
	hs.keys("r")
	if fmt.Sprint(v.rows) != "[0 1]" {
		t.Errorf("reversed rows %v, want [0 1]", v.rows)
	}
	v.SetFilter("qp0x000011", true)
	hs.settle()
	if fmt.Sprint(v.rows) != "[1]" {
		t.Errorf("filtered rows %v, want [1]", v.rows)
	}
}

// TestPointsResolveHopLoss: the events view's hop_loss event says what was
// lost where, and opens the lost frame too (Pager.Resolve looks among
// `from`'s frames).
func TestPointsResolveHopLoss(t *testing.T) {
	hs := newPointsHarness(t, 120, 40, twoPoints(false)) // down is the reference: the frame is up's
	s := hs.u.snap
	for i := range s.Report.Events {
		ev := &s.Report.Events[i]
		if ev.Kind != "hop_loss" {
			continue
		}
		if got, want := eventDetail(ev, 0), "RC_RDMA_WRITE_ONLY PSN 103 lost between up and down"; got != want {
			t.Errorf("event detail %q, want %q", got, want)
		}
		hs.u.openEvent(i)
		hs.settle()
		if hs.u.current() != hs.u.packets || hs.u.packets.selectedPos() < 0 {
			t.Fatalf("Enter on the hop_loss event: view %s", hs.u.current().Name())
		}
		if sel := hs.u.packets.selectedPos(); s.Index.Frame(sel) != 7 {
			t.Errorf("selected frame %d, want up's 7", s.Index.Frame(sel))
		}
		pos, err := hs.u.pager.Resolve(s, ev)
		if err != nil {
			t.Fatal(err)
		}
		if file, _ := s.Index.At(pos); file != 1 || s.Index.Frame(pos) != 7 {
			t.Errorf("hop_loss resolved to file %d frame %d, want up (file 1) frame 7", file, s.Index.Frame(pos))
		}
		return
	}
	t.Fatal("no hop_loss event")
}

// TestPointsScreens: golden screens of the Points view, and of the packets
// view listing the lost frame, at 80x24 and 120x40.
func TestPointsScreens(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		suffix := ""
		if sz != [2]int{120, 40} {
			suffix = fmt.Sprintf("_%dx%d", sz[0], sz[1])
		}
		t.Run("points"+suffix, func(t *testing.T) {
			hs := newPointsHarness(t, sz[0], sz[1], twoPoints(true))
			hs.key(tcell.KeyRune, '7')
			hs.golden("points" + suffix)
			hs.key(tcell.KeyEnter, 0)
			hs.golden("points_lost" + suffix)
		})
	}
}

// TestPointsHelp: the help lists the Points view's keys with --point (the
// tables drive it), and without --point there is no Points tab.
func TestPointsHelp(t *testing.T) {
	hs := newPointsHarness(t, 120, 40, twoPoints(true))
	if !strings.Contains(hs.u.helpContent(), "list the hop's lost frames in the packets view") {
		t.Error("the help does not list the Points view's Enter")
	}
	plain := newHarness(t, 120, 40, lossNAK(t))
	if plain.u.points != nil || len(plain.u.top) != 6 {
		t.Errorf("without points: %d tabs, points view %v", len(plain.u.top), plain.u.points != nil)
	}
}

// TestPointsLatencySeries: with capture points the reference point's
// flows get their latency series, as without points. TwoPoints' up point
// has 7 WRITEs on qp0x000022, each ACKed (TestPointsModel's flows), so its
// request flow has ack samples and a series; the reverse flow has none.
func TestPointsLatencySeries(t *testing.T) {
	m, err := Open(Config{Points: twoPoints(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Start(context.Background())
	<-m.Done()
	s := m.Snapshot()
	var withAck []string
	for i, f := range s.Report.Flows {
		if i < len(s.FlowMarks) && s.FlowMarks[i] != nil && s.FlowMarks[i].AckMaxNs != nil {
			withAck = append(withAck, f.ID)
		}
	}
	if len(withAck) != 1 || withAck[0] != "10.0.0.1>10.0.0.2:qp0x000022" {
		t.Errorf("flows with an ack latency series: %v, want the request flow only", withAck)
	}
}
