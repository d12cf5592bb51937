package export

import (
	"fmt"
	"strings"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rocetrace/rocetrace/flows"
)

// TableLatency is the name of the latency table (latency.parquet).
const TableLatency = "latency"

// LatencyRow is one row of latency.parquet: one response-latency sample
// ("latency" in docs/interface.md). flow is the request flow, psn the
// request's PSN, ts the response's time.
type LatencyRow struct {
	Flow         string `parquet:"flow,dict"`
	Kind         string `parquet:"kind,dict"`
	PSN          uint32 `parquet:"psn"`
	RequestTsNs  int64  `parquet:"request_ts_ns"`
	ResponseTsNs int64  `parquet:"response_ts_ns"`
	LatencyNs    int64  `parquet:"latency_ns"`
	Ts           int64  `parquet:"ts,timestamp(nanosecond:utc)"`
}

// latencyTable streams latency.parquet: rows are written as the flow table
// takes the samples (Export.Latency, the table's flows.Config.LatencySink),
// so no sample is kept in memory beyond the writer's batch and row group.
type latencyTable struct {
	af  *atomicFile
	w   *Writer[LatencyRow]
	err error // the first error: later samples are dropped, Finish returns it
}

// latencyRowGroupRows bounds latency.parquet's row groups: its writer
// lives while the capture is read, next to packets.parquet's, and
// parquet-go holds a whole row group in memory (at most 32768 rows, ~2 MB,
// instead of DefaultRowGroupRows).
const latencyRowGroupRows = 32 << 10

// latencyZstdWindow is the zstd window of latency.parquet's pages: zstd's
// fastest level with a 256 KiB window (as packets.parquet's pages,
// export/internal/colenc) instead of parquet-go's default encoder, whose
// 8 MiB window costs a 16 MiB history buffer for the whole export.
const latencyZstdWindow = 256 << 10

// smallZstd is a zstd codec with a small window (see latencyZstdWindow).
type smallZstd struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

// Encode compresses src into dst[:0].
func (c *smallZstd) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func openLatency(path string, opts Options) (*latencyTable, error) {
	wo := writerOptions(TableLatency, opts)
	if wo.RowGroupRows <= 0 || wo.RowGroupRows > latencyRowGroupRows {
		wo.RowGroupRows = latencyRowGroupRows
	}
	if c := strings.ToLower(opts.Compression); c == "" || c == "zstd" {
		enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithEncoderConcurrency(1),
			kzstd.WithWindowSize(latencyZstdWindow), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
		if err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
		wo.Codec = &smallZstd{enc: enc}
	}
	af, err := createAtomic(path, opts)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter[LatencyRow](af, wo)
	if err != nil {
		af.abort()
		return nil, err
	}
	return &latencyTable{af: af, w: w}, nil
}

// Latency adds one latency sample to latency.parquet. Use it as the flow
// table's flows.Config.LatencySink; a write error is kept and returned by
// Finish.
func (e *Export) Latency(s flows.LatencySample) {
	l := e.lat
	if l == nil || l.err != nil {
		return
	}
	r, err := l.w.Next()
	if err != nil {
		l.err = fmt.Errorf("writing %s: %w", e.paths.Latency, err)
		return
	}
	*r = LatencyRow{
		Flow: s.Flow.ID(), Kind: s.Kind.String(), PSN: uint32(s.PSN),
		RequestTsNs: s.RequestTsNs, ResponseTsNs: s.ResponseTsNs, LatencyNs: s.LatencyNs(), Ts: s.ResponseTsNs,
	}
}

// finishLatency completes latency.parquet (not yet renamed into place) and
// adds it to e.temps.
func (e *Export) finishLatency() (Written, error) {
	l := e.lat
	if l.err != nil {
		return Written{}, l.err
	}
	if err := l.w.Close(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Latency, err)
	}
	if err := l.af.finish(); err != nil {
		return Written{}, fmt.Errorf("writing %s: %w", e.paths.Latency, err)
	}
	e.temps = append(e.temps, l.af)
	e.lat = nil // in e.temps now
	return Written{TableLatency, e.paths.Latency, l.w.Rows(), l.af.size}, nil
}
