package decode_test

import (
	"path/filepath"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/testenv"
	"github.com/rocetrace/rocetrace/pcapio"
)

// TestCMFromRealCapture reads the CM REQ and REP of rdma_cm's connection
// in rxe_tut_rdma_cm_connect.pcap. Expected values read by hand from
// `tshark -x` of frames 1 and 2: REQ LocalCommID 0x64c0c56d, LocalQPN 0x3d
// (CM data bytes 32-34); REP LocalCommID 0x8988f456, RemoteCommID
// 0x64c0c56d, LocalQPN 0x3b (bytes 12-14).
func TestCMFromRealCapture(t *testing.T) {
	path := filepath.Join(testenv.SharedPcapsDir(t), "rxe_tut_rdma_cm_connect.pcap")
	r, err := pcapio.OpenFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := decode.NewDecoder(decode.Config{})
	var rec pcapio.Record
	var p decode.Packet
	var got []decode.CMFields
	for r.Next(&rec) == nil {
		d.DecodeRecord(&rec, &p)
		if p.CM.Attr != 0 {
			got = append(got, p.CM)
		}
	}
	if len(got) < 2 {
		t.Fatalf("found %d CM messages, want REQ and REP", len(got))
	}
	want := []decode.CMFields{
		{Attr: decode.CMAttrREQ, LocalCommID: 0x64c0c56d, LocalQPN: 0x3d},
		{Attr: decode.CMAttrREP, LocalCommID: 0x8988f456, RemoteCommID: 0x64c0c56d, LocalQPN: 0x3b},
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("CM message %d: %+v, want %+v", i, got[i], w)
		}
	}
}
