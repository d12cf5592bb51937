// Package pcapio reads and writes capture files, pcap and pcapng, as
// gopacket's pcapgo does for gopacket, but without allocating per record.
//
// Reading: Reader (reader.go) reads one file, pcap (read.go) or pcapng
// (ngread.go) by its magic number, through one buffer or a memory mapping
// (OpenFileMapped, mmap.go; GuardFaults turns the faults of a mapped file
// that shrinks into errors); Merger (merge.go) merges several readers in
// timestamp order; ReadRecordAt (recordat.go) reads the record at a known
// offset again. Each yields Records, whose Data is valid until the next
// read. A damaged file is read up to the damage, then reported as a
// *DamageError; input that is no capture matches ErrNotCapture. The path
// "-" is standard input, and gzip and zstd files and streams are read
// through their decompressor, told by magic (compress.go); offsets are then
// those of the decompressed stream.
//
// Writing: Writer (write.go) writes pcap and NgWriter (ngwrite.go) pcapng
// with nanosecond timestamps, each record in one Write; the Append
// functions beneath them encode into a byte slice for callers that buffer
// and rotate files themselves (capture.Writer).
package pcapio
