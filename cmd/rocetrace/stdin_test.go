//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// compressGzip and compressZstd compress b whole (one gzip member, one zstd
// frame).
func compressGzip(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func compressZstd(t *testing.T, b []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// recordOffsets returns the byte offsets of the records of the capture at
// path (those of the plain file).
func recordOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var offs []int64
	var rec pcapio.Record
	for r.Next(&rec) == nil {
		offs = append(offs, rec.Offset)
	}
	return offs
}

// runBin runs the built command with stdin and returns exit status, stdout
// and stderr.
func runBin(t *testing.T, bin string, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		// A pipe written as tcpdump -w - writes it: in pieces, then closed.
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = pr
		go func() {
			for b := stdin; len(b) > 0; {
				n := min(len(b), 1000)
				if _, err := pw.Write(b[:n]); err != nil {
					break
				}
				b = b[n:]
			}
			pw.Close()
		}()
		defer pr.Close()
	}
	err := cmd.Run()
	return exitStatus(t, err), stdout.String(), stderr.String()
}

// TestStdinAndCompressed: standard input (`-`, a pipe), gzip and zstd files
// (told by magic, whatever their name) and compressed standard input give
// byte-for-byte the report and the packets of the plain file, but for the
// file name, which is "-" for standard input.
func TestStdinAndCompressed(t *testing.T) {
	bin := buildRocetrace(t)
	dir := t.TempDir()
	plainPath := writeCapture(t, mixedScenario(), synth.Pcapng)
	plain, err := os.ReadFile(plainPath)
	if err != nil {
		t.Fatal(err)
	}
	gz, zs := compressGzip(t, plain), compressZstd(t, plain)
	gzPath := filepath.Join(dir, "c.pcapng.gz")
	zsPath := filepath.Join(dir, "c.pcap") // zstd under a misleading name
	if err := os.WriteFile(gzPath, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zsPath, zs, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report", "--json"}, {"report"}, {"packets", "--json"}, {"packets", "-V"}} {
		code, want, errOut := runBin(t, bin, nil, append(args, plainPath)...)
		if code != 0 || want == "" {
			t.Fatalf("%v plain: exit %d %s", args, code, errOut)
		}
		for _, tc := range []struct {
			name  string
			stdin []byte
			path  string
		}{
			{"stdin", plain, "-"},
			{"gzip file", nil, gzPath},
			{"zstd file", nil, zsPath},
			{"gzip stdin", gz, "-"},
			{"zstd stdin", zs, "-"},
		} {
			code, got, errOut := runBin(t, bin, tc.stdin, append(args, tc.path)...)
			if code != 0 {
				t.Errorf("%v %s: exit %d: %s", args, tc.name, code, errOut)
				continue
			}
			// The same bytes once the names are the same; JSON quotes
			// them, the text names them as given.
			want := want
			if tc.path == "-" {
				want = strings.ReplaceAll(want, plainPath, "-")
			} else {
				got = strings.ReplaceAll(got, tc.path, plainPath)
			}
			if got != want {
				t.Errorf("%v %s: output differs from the plain file's\ngot:\n%.600s\nwant:\n%.600s", args, tc.name, got, want)
			}
		}
	}
	code, out, _ := runBin(t, bin, plain, "packets", "--json", "-")
	if code != 0 || !strings.Contains(out, `"file":"-"`) {
		t.Errorf("packets --json -: exit %d, no \"file\":\"-\" in %.300s", code, out)
	}
	code, out, _ = runBin(t, bin, plain, "report", "--json", "-")
	if code != 0 || !strings.Contains(out, `"files": [`) || !strings.Contains(out, `"-"`) {
		t.Errorf("report --json -: exit %d, capture.files lacks \"-\": %.300s", code, out)
	}
}

// TestCompressedDamageCLI: a truncated .gz and a damaged zstd stream on
// stdin exit 1 after analysing every record before the damage; stderr
// names the file ("-" for stdin) and the offset in the decompressed stream.
func TestCompressedDamageCLI(t *testing.T) {
	bin := buildRocetrace(t)
	dir := t.TempDir()
	plainPath := writeCapture(t, mixedScenario(), synth.PcapNanos)
	plain, err := os.ReadFile(plainPath)
	if err != nil {
		t.Fatal(err)
	}
	offs := recordOffsets(t, plainPath)
	const k = 10 // records before the damage
	if len(offs) <= k {
		t.Fatalf("%d records", len(offs))
	}
	// The first k records in one gzip member, then a second member cut
	// right after its 10-byte header: records 1..k are whole, record k+1
	// starts at offs[k] of the decompressed stream.
	rest := compressGzip(t, plain[offs[k]:])
	truncGz := append(compressGzip(t, plain[:offs[k]]), rest[:10]...)
	truncPath := filepath.Join(dir, "cut.pcap.gz")
	if err := os.WriteFile(truncPath, truncGz, 0o644); err != nil {
		t.Fatal(err)
	}
	// The same first k records as a plain file: the analysis to expect.
	firstPath := filepath.Join(dir, "first.pcap")
	if err := os.WriteFile(firstPath, plain[:offs[k]], 0o644); err != nil {
		t.Fatal(err)
	}
	// zstd: the first k records in one frame, then a frame whose magic is
	// damaged.
	badFrame := compressZstd(t, plain[offs[k]:])
	badFrame[0] ^= 0xFF
	badZst := append(compressZstd(t, plain[:offs[k]]), badFrame...)

	_, want, _ := runBin(t, bin, nil, "report", "--json", firstPath)
	for _, tc := range []struct {
		name, path string
		stdin      []byte
	}{
		{"truncated gz file", truncPath, nil},
		{"truncated gz on stdin", "-", truncGz},
		{"damaged zstd on stdin", "-", badZst},
	} {
		code, got, errOut := runBin(t, bin, tc.stdin, "report", "--json", tc.path)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.name, code)
		}
		wantErr := tc.path + ": damaged record at byte offset " + itoa(offs[k]) + ": decompressing: "
		if !strings.Contains(errOut, "rocetrace: "+wantErr) {
			t.Errorf("%s: stderr %q, want it to contain %q", tc.name, errOut, wantErr)
		}
		if got = strings.ReplaceAll(got, `"`+tc.path+`"`, `"`+firstPath+`"`); got != want {
			// (JSON quotes names: only the file list and the packet
			// field change.)
			t.Errorf("%s: report differs from that of the first %d records:\n%.500s\nwant\n%.500s", tc.name, k, got, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
