// Package deps holds the import rules of the module's packages, checked
// by its test (in the style of the Go tree's go/build deps_test.go): data
// flows one way, capture -> decode -> flows -> analysis -> report / tui /
// export, and no package reaches back up. It has no code of its own.
package deps
