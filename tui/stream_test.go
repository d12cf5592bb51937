//go:build unix

package tui

import (
	"context"
	"testing"
	"time"

	"github.com/rocetrace/rocetrace/pcapio"
)

// firstRecords returns the pcap file header and the first n records of
// the capture at path.
func firstRecords(t *testing.T, path string, n int) []byte {
	t.Helper()
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data := pcapio.AppendPcapHeader(nil, pcapio.PcapHeader{Snaplen: 65535, LinkType: pcapio.LinkTypeEthernet, Nanos: true})
	var rec pcapio.Record
	for range n {
		if err := r.Next(&rec); err != nil {
			t.Fatal(err)
		}
		data = pcapio.AppendPcapRecord(data, true, rec.TsNs, rec.Data, rec.Len)
	}
	return data
}

// TestStreamShowsFramesWhileWriterStalls: `tcpdump -w - | rocetrace tui -`
// between two packets: the writer of a FIFO wrote 5 records and stays
// open. The model's snapshot shows the 5 frames while loading goes on
// (not once 256 have come or the stream ends); once the writer closes,
// loading ends with the same 5. The wait is bounded only to fail instead
// of hanging: not a timing check.
func TestStreamShowsFramesWhileWriterStalls(t *testing.T) {
	const frames = 5
	data := firstRecords(t, lossNAK(t), frames)
	fifo := mkfifo(t)
	wrote := stallingWriter(t, fifo, data) // 5 records, then it stalls
	m, err := Open(Config{Paths: []string{fifo}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := <-wrote
	if w == nil {
		t.FailNow()
	}
	defer w.Close() // on failure: before m.Close
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.Start(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := m.Snapshot()
		if s.Progress.Frames == frames && s.Index.Len() == frames && s.ReportFrames == frames {
			if s.Progress.Done {
				t.Fatal("loading done while the writer is open")
			}
			if s.Report == nil || s.Report.Capture.Packets != frames {
				t.Fatalf("the report of %d frames counts %+v", frames, s.Report)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s (the writer is still open): the snapshot shows %d frames (index %d), "+
				"its report %d, want %d", s.Progress.Frames, s.Index.Len(), s.ReportFrames, frames)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	<-m.Done()
	if s := m.Snapshot(); !s.Progress.Done || s.Progress.Canceled || s.Progress.Frames != frames || s.Report == nil ||
		s.Report.Capture.Packets != frames || len(s.Errors) != 0 {
		t.Errorf("final snapshot: progress %+v, errors %v; want done with %d frames", s.Progress, s.Errors, frames)
	}
}
