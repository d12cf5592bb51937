package pcapio

// RecordSource yields capture records one at a time: a Reader, a Merger or
// a live capture. Next returns io.EOF at the end; the record's Data is valid
// until the next call.
type RecordSource interface {
	Next(rec *Record) error
}

var (
	_ RecordSource = (*Reader)(nil)
	_ RecordSource = (*Merger)(nil)
)
