//go:build linux

package capture_test

import "os/exec"

func runIP(args ...string) ([]byte, error) { return exec.Command("ip", args...).CombinedOutput() }
