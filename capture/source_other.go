//go:build !linux

package capture

import (
	"fmt"
	"io"

	"github.com/rocetrace/rocetrace/pcapio"
)

// Source is a live capture. On this system there is none: Open always
// returns ErrNotSupported.
type Source struct{}

var _ pcapio.RecordSource = (*Source)(nil)

// Open returns ErrNotSupported: live capture is Linux-only.
func Open(iface string, opts Options) (*Source, error) {
	return nil, fmt.Errorf("capture on %s: %w", iface, ErrNotSupported)
}

// Interface returns "".
func (s *Source) Interface() string { return "" }

// Filter returns "".
func (s *Source) Filter() string { return "" }

// HardwareTimestamping returns false.
func (s *Source) HardwareTimestamping() bool { return false }

// LinkType returns Ethernet.
func (s *Source) LinkType() pcapio.LinkType { return pcapio.LinkTypeEthernet }

// Next returns io.EOF.
func (s *Source) Next(rec *pcapio.Record) error { return io.EOF }

// Stop does nothing.
func (s *Source) Stop() {}

// Stats returns zeros.
func (s *Source) Stats() Stats { return Stats{} }

// Close does nothing.
func (s *Source) Close() error { return nil }
