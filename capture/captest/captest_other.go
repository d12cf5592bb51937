//go:build !linux

// Package captest helps live-capture tests (network namespaces, veth
// pairs, frame injection). Live capture is Linux-only: here every helper
// skips or fails.
package captest

import (
	"errors"
	"os"
	"testing"
)

// Pair is two network namespaces joined by a veth pair.
type Pair struct {
	NS   [2]string
	Veth [2]string
}

var errLinuxOnly = errors.New("network namespaces are Linux-only")

// Available says why namespace tests cannot run here.
func Available() string { return "live capture is Linux-only" }

// NewPair skips t (fails it when ROCETRACE_REQUIRE_LIVE is set).
func NewPair(t testing.TB, mtu int) *Pair {
	if os.Getenv("ROCETRACE_REQUIRE_LIVE") != "" {
		t.Fatal("ROCETRACE_REQUIRE_LIVE is set but " + Available())
	}
	t.Skip(Available())
	return nil
}

// Do fails.
func Do(ns string, fn func() error) error { return errLinuxOnly }

// Injector sends raw frames (not on this system).
type Injector struct{}

// OpenInjector fails.
func OpenInjector(ns, iface string) (*Injector, error) { return nil, errLinuxOnly }

// Send fails.
func (in *Injector) Send(frame []byte) error { return errLinuxOnly }

// SendBatch fails.
func (in *Injector) SendBatch(frames [][]byte) error { return errLinuxOnly }

// Replay fails.
func (in *Injector) Replay(frames [][]byte, tsNs []int64) error { return errLinuxOnly }

// Close does nothing.
func (in *Injector) Close() error { return nil }

// DropNetRaw fails.
func DropNetRaw() error { return errLinuxOnly }
