package main

import (
	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// flowID returns the flow id of a RoCE packet, or "" when it has none.
func flowID(p *decode.Packet) string {
	k, ok := flows.KeyOf(p)
	if !ok {
		return ""
	}
	return k.String()
}
