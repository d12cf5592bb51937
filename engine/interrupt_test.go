package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/rocetrace/rocetrace/pcapio"
)

// errCountdown is a context whose Err reports cancellation from its
// (n+1)-th call on (the reading looks at it every 1024 records).
type errCountdown struct {
	context.Context
	n atomic.Int64
}

func (c *errCountdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestInterrupted: where an interrupted reading says it stopped. The
// capture: a 24-byte header, then 3000 records of 16+60 bytes.
func TestInterrupted(t *testing.T) {
	data := pcapio.AppendPcapHeader(nil, pcapio.PcapHeader{Snaplen: 65535, LinkType: pcapio.LinkTypeEthernet, Nanos: true})
	frame := make([]byte, 60)
	for i := range 3000 {
		data = pcapio.AppendPcapRecord(data, true, int64(i+1)*1000, frame, 60)
	}
	path := filepath.Join(t.TempDir(), "c.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name        string
		openCtx     context.Context
		looks       int64 // -1: not cancelled
		interrupted bool
		records     int
		off         int64
		msg         string
	}{
		{"whole", context.Background(), -1, false, 3000, 24 + 3000*76, ""},
		{"before the first record", context.Background(), 0, true, 0, 24,
			"interrupted after 0 frames (" + path + ", byte offset 24)"},
		{"after 1024 records", context.Background(), 1, true, 1024, 24 + 1024*76,
			"interrupted after 1024 frames (" + path + ", byte offset 77848)"},
		{"while opening", cancelled, 0, true, 0, 0,
			"interrupted after 0 frames (" + path + ", byte offset 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := OpenContext(tc.openCtx, []string{path})
			defer in.Close()
			var ctx context.Context = context.Background()
			if tc.looks >= 0 {
				c := &errCountdown{Context: context.Background()}
				c.n.Store(tc.looks)
				ctx = c
			}
			n := 0
			_ = in.Each(ctx, func(*pcapio.Record) error { n++; return nil })
			file, off := in.Stopped()
			if in.Interrupted() != tc.interrupted || n != tc.records || file != path || off != tc.off {
				t.Errorf("interrupted %v, %d records, stopped at %s %d; want %v, %d, %d",
					in.Interrupted(), n, file, off, tc.interrupted, tc.records, tc.off)
			}
			if tc.interrupted {
				if got := in.Interruption(int64(n)); got != tc.msg {
					t.Errorf("message %q, want %q", got, tc.msg)
				}
			}
			if len(in.Errors()) != 0 {
				t.Errorf("errors %v", in.Errors())
			}
		})
	}
}
