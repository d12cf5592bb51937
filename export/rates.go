package export

import (
	"cmp"
	"fmt"
	"strings"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rocetrace/rocetrace/flows"
)

// TableRates is the name of rates.parquet's table.
const TableRates = "rates"

// RateRow is one row of rates.parquet: one flow's counters over one
// non-empty window of --bin (flows.RateWindow), ts_ns being the window's
// start (ts the same instant as TIMESTAMP(NANOS, UTC)). A flow's rows add up
// to its row of flows.parquet (packets, bytes, payload_bytes, ecn_ce, cnps,
// cnps_received).
type RateRow struct {
	Flow         string `parquet:"flow,dict"`
	TsNs         int64  `parquet:"ts_ns,delta"`
	Ts           int64  `parquet:"ts,timestamp(nanosecond:utc),delta"`
	Packets      int64  `parquet:"packets"`
	Bytes        int64  `parquet:"bytes"`
	PayloadBytes int64  `parquet:"payload_bytes"`
	ECNCE        int64  `parquet:"ecn_ce"`
	CNPs         int64  `parquet:"cnps"`
	CNPsReceived int64  `parquet:"cnps_received"`
}

// rateTable is rates.parquet while windows stream in.
type rateTable struct {
	af  *atomicFile
	w   *Writer[RateRow]
	err error // the first write error
}

// openRates creates rates.parquet's temporary file and writer. Unlike the
// other small tables it is written while packets.parquet is: with zstd its
// pages are compressed with a 256 KiB window (rateZstd), which keeps the
// export's peak memory close to what it was without the table.
func openRates(path string, opts Options) (*rateTable, error) {
	af, err := createAtomic(path, opts)
	if err != nil {
		return nil, err
	}
	wo := writerOptions(TableRates, opts)
	wo.RowGroupRows = min(cmp.Or(max(opts.RowGroupRows, 0), DefaultRowGroupRows), rateRowGroupRows)
	if c := strings.ToLower(opts.Compression); c == "" || c == "zstd" {
		if wo.Codec, err = newRateZstd(); err != nil {
			af.abort()
			return nil, err
		}
	}
	w, err := NewWriter[RateRow](af, wo)
	if err != nil {
		af.abort()
		return nil, err
	}
	return &rateTable{af: af, w: w}, nil
}

// rateRowGroupRows bounds rates.parquet's row groups: parquet-go holds a
// row group's pages until it is complete, and this table's writer lives
// while packets.parquet is written (40k-flow export: 185-191 -> 178-181 MB
// peak RSS). --row-group-rows below it applies.
const rateRowGroupRows = 16 * 1024

// rateZstd is parquet-go's zstd codec with the encoder of the packets'
// pages (export/internal/colenc: pageZstd): the fastest level and a 256 KiB
// window instead of the level's 8 MiB one, whose 16 MiB history buffer
// would stay live for the whole read of the capture.
type rateZstd struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

func newRateZstd() (*rateZstd, error) {
	enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithEncoderConcurrency(1),
		kzstd.WithWindowSize(256<<10), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return &rateZstd{enc: enc}, nil
}

// Encode compresses src into dst[:0].
func (c *rateZstd) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// Rate adds one closed rate window to rates.parquet: it is the flow
// table's sink (flows.Config.RateSink), called while the capture is read
// and at flows.Table.Finish. It does not allocate per row (rows are batched
// in a reused buffer); a write error is kept and returned by Finish.
func (e *Export) Rate(w flows.RateWindow) {
	rt := e.rates
	if rt.err != nil {
		return
	}
	r, err := rt.w.Next()
	if err != nil {
		rt.err = fmt.Errorf("writing %s: %w", e.paths.Rates, err)
		return
	}
	*r = RateRow{
		Flow: w.Flow.ID(), TsNs: w.StartNs, Ts: w.StartNs,
		Packets: w.Packets, Bytes: w.Bytes, PayloadBytes: w.PayloadBytes,
		ECNCE: w.ECNCE, CNPs: w.CNPs, CNPsReceived: w.CNPsReceived,
	}
}

// finishRates completes rates.parquet (not yet renamed) and adds it to the
// files Finish renames, last.
func (e *Export) finishRates() (Written, error) {
	rt := e.rates
	if rt.err != nil {
		return Written{}, rt.err
	}
	if err := rt.w.Close(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Rates, err)
	}
	if err := rt.af.finish(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Rates, err)
	}
	e.temps = append(e.temps, rt.af)
	return Written{TableRates, e.paths.Rates, rt.w.Rows(), rt.af.size}, nil
}
