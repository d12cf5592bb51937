//go:build unix

package pcapio

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenFIFOOnce: a FIFO whose writer writes its capture and closes at
// once is read whole. The file is opened once: opened a second time (after a
// first open, fstat and close), the FIFO has no writer any more and the open
// blocks forever.
func TestOpenFIFOOnce(t *testing.T) {
	data := AppendPcapHeader(nil, PcapHeader{Snaplen: 65535, LinkType: LinkTypeEthernet, Nanos: true})
	for i := range 3 {
		data = AppendPcapRecord(data, true, int64(i+1)*1000, payload(0, i, 60), 60)
	}
	for _, tc := range []struct {
		name string
		open func(string, int) (*Reader, error)
	}{
		{"OpenFile", OpenFile},
		{"OpenFileMapped", OpenFileMapped},
	} {
		for round := range 3 {
			path := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			go func() {
				w, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				_, _ = w.Write(data)
				_ = w.Close()
			}()
			type result struct {
				n   int
				err error
			}
			done := make(chan result, 1)
			go func() {
				r, err := tc.open(path, 0)
				if err != nil {
					done <- result{0, err}
					return
				}
				defer r.Close()
				recs, err := readAll(t, r)
				done <- result{len(recs), err}
			}()
			select {
			case res := <-done:
				if res.err != nil || res.n != 3 {
					t.Errorf("%s round %d: %d records, %v; want 3", tc.name, round, res.n, res.err)
				}
			case <-time.After(20 * time.Second): // a hang, not a timing check
				t.Fatalf("%s round %d: the open or the read hangs", tc.name, round)
			}
		}
	}
}
