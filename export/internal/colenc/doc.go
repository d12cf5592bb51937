// Package colenc is the columnar Parquet writer under export's
// packets.parquet, latency.parquet and rates.parquet, built on parquet-go's format, encoding and compress
// packages rather than its row writer: the rows are stored by the row side
// (export) as typed values in fixed planes, and this package encodes,
// compresses and writes them. It is internal to export: what it writes is
// export's contract, not an API.
//
// A table is declared once, as a slice of Column (one per leaf column, in
// schema order: where its values and definition levels are stored, and
// how it is encoded); NewLayout checks the declarations against the schema
// of an empty file written by parquet-go from the row type, whose schema
// elements, column orders and created_by the footer repeats.
//
// Files by concern:
//
//	layout.go   column declarations and the schema (Column, Layout)
//	pages.go    the planes a page's rows are stored in (Pages), compaction
//	encoder.go  the Encoder: from Pages to a page per column
//	page.go     page encoding: levels, values, the zstd codec of the pages
//	intdict.go  integer dictionaries (Column.IntDict): lookups, min and max
//	stats.go    statistics: min and max of pages, string ranks
//	chunk.go    column chunks, dictionary pages, page indexes
//	footer.go   the file metadata and trailer
//	worker.go   the encoder goroutine (Pipeline)
//
// Each row stores one typed value per column, and one definition level
// per group of columns that are null together, at its row number in fixed
// planes of a Pages of PageRows (16384) rows (a null's value is left as it
// is, to be dropped later); a full set goes to a worker goroutine, which
// drops the nulls' values, encodes, compresses and keeps one DATA_PAGE_V2
// per column while the next set fills (double buffering), and writes the
// row group's column chunks when the row side ends a row group. Levels
// are RLE. The integer columns of few values (Column.IntDict: lengths,
// ports, QPN, opcode, DSCP/ECN/TTL, VLAN, P_Key, ...) are RLE_DICTIONARY
// with a PLAIN dictionary page per column chunk, their values looked up in
// a table indexed by value, while the chunk's dictionary holds at most
// IntDictMax (4096) values below IntDictDomain (65536); one more, or a
// wider value, and the rest of the chunk falls back (the dictionary page
// keeps the values of the pages before). Other integers, and those of a
// chunk that fell back, are PLAIN or DELTA_BINARY_PACKED, whichever is at
// most half the size (Column.Delta: always delta; Column.RawDelta: delta
// when at least an eighth smaller, stored uncompressed). Strings are
// RLE_DICTIONARY with one dictionary page per row group, whose indexes the
// row side chooses (from enum codes, addresses and flows, without hashing
// strings) and whose entries it hands over in Pages.Dicts. Every column
// chunk has statistics (null_count, min, max; a string column's from its
// dictionary entries' ranks in string order, kept as the dictionary
// grows) and the file a page index (column and offset indexes); an alias
// column's pages (Column.Alias) are copies of another's. zstd runs at its
// fastest level for these pages, with a 256 KiB window (each page is
// compressed alone), and a page the codec does not shrink by an eighth is
// stored uncompressed (the column's next pages are then not tried for a
// while). The footer is written by Encoder.WriteFooter once the worker is
// done. Memory does not grow with the rows, a row costs no allocation,
// and the file's bytes depend only on the rows, in order, not on timing.
package colenc
