// Package deps holds the import rules of the module's packages, checked
// by its test (in the style of the Go tree's go/build deps_test.go): data
// flows one way, pcapio -> decode -> flows -> analysis -> engine -> report /
// tui / export (live capture beside flows, on decode), and no package
// reaches back up. It has no code of its own.
package deps
