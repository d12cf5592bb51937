// Package export writes an analysis as Parquet tables that notebooks
// (pandas, Polars), DuckDB, Spark and Trino read as they are.
//
// Five tables, with the JSON names of docs/interface.md as column names
// (every column is described in docs/parquet.md):
//
//	packets.parquet  one row per RoCE, CNP, PFC and PAUSE frame (PacketRow)
//	flows.parquet    one row per flow of the report (FlowRow)
//	events.parquet   one row per event; each kind's fields nullable (EventRow)
//	pfc.parquet      one row per (source MAC, priority) (PFCRow)
//	latency.parquet  one row per response-latency sample (LatencyRow)
//	rates.parquet    one row per flow and non-empty window of --bin (RateRow)
//
// packets.parquet is written while the capture is decoded (Export.Packet),
// by a columnar writer of its own (export/internal/colenc, which documents
// the encoding) rather than parquet-go's row writer, with the schema,
// key/value metadata and created_by that parquet-go writes for PacketRow.
// Memory does not grow with the capture, a row costs no allocation, and
// the file's bytes depend only on the rows, not on timing. The other three
// tables come from the analysis.Report once the capture has been read,
// through the generic batched Writer[T] (parquet-go's row writer), one
// after the other, each row converted as it is written. latency.parquet
// and rates.parquet are streamed while the capture is read, by the same
// columnar writer as packets.parquet (colTable, each on an encoder
// goroutine of its own): Export.Latency is the flow table's
// flows.Config.LatencySink, so the samples are never all held in memory,
// and the flow table hands each rate window to Export.Rate (its
// flows.Config.RateSink) as the window closes; Finish completes both.
//
// Every file is written under a temporary name (".NAME.tmp-PID-*" in the
// target directory) and renamed into place only once all of them are
// complete; Abort removes the temporary files. Existing files are replaced
// only with Options.Force. The renames (file.go, commitAll) are all or
// none: a file replaced is kept under a second, temporary name
// (".NAME.tmp-PID-*.old", a hard link where the file system has them) until
// every rename succeeded; an interruption (ctx, looked at before each
// rename) or a failed rename takes back the renames done, putting the
// replaced files back. RemoveTemps removes the temporary files from another
// goroutine while the export runs (cmd/rocetrace's watchdog, before it ends
// the process); it waits for renames in progress.
//
// Layouts: FilePaths gives the contract's DIR/<table>.parquet; PartitionPaths
// gives a hive-style dataset DIR/<table>/capture=<name>/part-0.parquet, so
// that many captures exported into one DIR form one dataset per table.
package export
