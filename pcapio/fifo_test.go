//go:build unix

package pcapio

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
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

// TestOnWait: a FIFO whose writer wrote 3 records and stalls: Next returns
// them, then OnWait's function is called (the next read would block), with
// the 3 records returned; once the writer writes 2 more and closes, Next
// returns them and io.EOF. Plain and gzip (the wait is seen beneath the
// decompressor). A regular file never calls it.
func TestOnWait(t *testing.T) {
	rec := func(data []byte, i int) []byte {
		return AppendPcapRecord(data, true, int64(i+1)*1000, payload(0, i, 60), 60)
	}
	head := AppendPcapHeader(nil, PcapHeader{Snaplen: 65535, LinkType: LinkTypeEthernet, Nanos: true})
	for i := range 3 {
		head = rec(head, i)
	}
	var tail []byte
	for i := 3; i < 5; i++ {
		tail = rec(tail, i)
	}
	for _, gz := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		more := make(chan struct{})
		go func() { // the writer: 3 records, a stall until told, 2 more
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			var w io.Writer = f
			var z *gzip.Writer
			if gz {
				z = gzip.NewWriter(f)
				w = z
			}
			_, _ = w.Write(head)
			if z != nil {
				_ = z.Flush()
			}
			<-more
			_, _ = w.Write(tail)
			if z != nil {
				_ = z.Close()
			}
		}()
		r, err := OpenFile(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got, waits, atWait int
		r.OnWait(func() {
			if waits++; waits == 1 {
				atWait = got
				close(more)
			}
		})
		done := make(chan error, 1)
		go func() {
			var rc Record
			for {
				if err := r.Next(&rc); err != nil {
					done <- err
					return
				}
				got++
			}
		}()
		select {
		case err := <-done:
			if err != io.EOF || got != 5 || waits == 0 || atWait != 3 {
				t.Errorf("gzip %v: %d records, %v; %d waits, the first after %d records; want 5, EOF, the first wait after 3",
					gz, got, err, waits, atWait)
			}
		case <-time.After(20 * time.Second): // a hang, not a timing check
			t.Fatalf("gzip %v: the reading hangs (no wait reported?)", gz)
		}
		r.Close()
	}

	path := filepath.Join(t.TempDir(), "c.pcap")
	if err := os.WriteFile(path, append(head, tail...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(string, int) (*Reader, error){OpenFile, OpenFileMapped} {
		r, err := open(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		waits := 0
		r.OnWait(func() { waits++ })
		recs, err := readAll(t, r)
		if err != nil || len(recs) != 5 || waits != 0 {
			t.Errorf("regular file: %d records, %v, %d waits; want 5, no wait", len(recs), err, waits)
		}
		r.Close()
	}
}
