package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rocetrace/rocetrace/analysis"
	"github.com/spf13/pflag"
)

// cnpFlags are the CNP checks' flags (issue 17): --cnp-interval, --cnp-dscp
// and --cnp-pcp, on the commands that analyse (report, export, tui,
// capture). They tune findings only: export accepts them and writes the
// same tables.
type cnpFlags struct {
	interval time.Duration
	dscp     boundedInt
	pcp      boundedInt
}

func (c *cnpFlags) register(fs *pflag.FlagSet) {
	c.dscp = boundedInt{v: analysis.DefaultCNPDSCP, max: 63, name: "DSCP"}
	c.pcp = boundedInt{v: analysis.DefaultCNPPCP, max: 7, name: "VLAN PCP"}
	fs.DurationVar(&c.interval, "cnp-interval", time.Duration(analysis.DefaultCNPIntervalNs),
		"CNPs to one flow closer together than this raise cnp_interval_short (the NIC's min_time_between_cnps)")
	fs.Var(&c.dscp, "cnp-dscp", "DSCP CNPs are expected to use (0-63); others raise cnp_marking")
	fs.Var(&c.pcp, "cnp-pcp", "VLAN PCP tagged CNPs are expected to use (0-7); others raise cnp_marking")
}

// apply sets the CNP options of o.
func (c *cnpFlags) apply(o *analysis.Options) {
	o.CNPIntervalNs = c.interval.Nanoseconds()
	d, p := c.dscp.v, c.pcp.v
	o.CNPDSCP, o.CNPPCP = &d, &p
}

// boundedInt is an int flag in 0..max: another value is a usage error.
type boundedInt struct {
	v, max int
	name   string
}

func (b *boundedInt) String() string { return strconv.Itoa(b.v) }

func (b *boundedInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > b.max {
		return fmt.Errorf("invalid %s %q: want 0 to %d", b.name, s, b.max)
	}
	b.v = n
	return nil
}

func (b *boundedInt) Type() string { return "int" }
