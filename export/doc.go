// Package export writes an analysis as Parquet tables that notebooks
// (pandas, Polars), DuckDB, Spark and Trino read as they are.
//
// Four tables, with the JSON names of docs/interface.md as column names
// (every column is described in docs/parquet.md):
//
//	packets.parquet  one row per RoCE, CNP, PFC and PAUSE frame (PacketRow)
//	flows.parquet    one row per flow of the report (FlowRow)
//	events.parquet   one row per event; each kind's fields nullable (EventRow)
//	pfc.parquet      one row per (source MAC, priority) (PFCRow)
//
// packets.parquet is written while the capture is decoded (Export.Packet),
// by a columnar writer of its own built on parquet-go's format, encoding and
// compress packages (packets.go, colwriter.go): each frame stores one typed
// value per column, and one definition level per group of columns that are
// null together, at its row number in fixed planes of a page set of
// pageRows (16384) rows (a null's value is left as it is, to be dropped
// later); a full page set goes to a worker goroutine, which drops the
// nulls' values, encodes, compresses and keeps one DATA_PAGE_V2 per column
// while the next set fills (double buffering), and writes the row group's
// column chunks every DefaultRowGroupRows rows (--row-group-rows). Levels
// are RLE. The integer columns of few values (intDictColumns: lengths,
// ports, QPN, opcode, DSCP/ECN/TTL, VLAN, P_Key, ...) are RLE_DICTIONARY
// with a PLAIN dictionary page per column chunk, their values looked up in
// a table indexed by value, while the chunk's dictionary holds at most 256
// values below 65536; one more, or a wider value, and the rest of the
// chunk falls back (the dictionary page keeps the values of the pages
// before). Other integers, and those of a chunk that fell back, are PLAIN
// or DELTA_BINARY_PACKED, whichever is at most half the size (frame, ts_ns
// and ts always delta). Strings are RLE_DICTIONARY with one dictionary page
// per row group, whose indexes come from enum codes, addresses and flows
// without hashing strings. Every column chunk has statistics
// (null_count, min, max; a string column's from its dictionary entries'
// ranks in string order, kept as the dictionary grows) and the file a page
// index (column and offset indexes); ts's pages are copies of ts_ns's. zstd runs at its fastest level for these pages, and a page the
// codec does not shrink by an eighth is stored uncompressed (the column's
// next pages are then not tried for a while). The schema, key/value
// metadata and created_by are the ones parquet-go writes for PacketRow.
// Memory does not grow with the capture, a row costs no allocation, and the
// file's bytes depend only on the rows, not on timing. The other three
// tables come from the analysis.Report once the capture has been read,
// through the generic batched Writer[T], concurrently.
//
// Every file is written under a temporary name (".NAME.tmp-*" in the
// target directory) and renamed into place only once all four are
// complete; Abort removes the temporary files. Existing files are replaced
// only with Options.Force.
//
// Layouts: FilePaths gives the contract's DIR/<table>.parquet; PartitionPaths
// gives a hive-style dataset DIR/<table>/capture=<name>/part-0.parquet, so
// that many captures exported into one DIR form one dataset per table.
package export
