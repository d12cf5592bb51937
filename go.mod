module github.com/rocetrace/rocetrace

go 1.26

require (
	github.com/google/gopacket v1.1.19
	github.com/spf13/pflag v1.1.0
)
