// Package plan is the serializable form of a planned query fragment:
// resolved, typed expressions and stages as plain data, with no closures
// and no run state, so a plan can be encoded on one node and built into
// operators on another (FORMAT.md describes the encoding). The core
// package compiles APL text into these nodes and builds its operators
// from them; this package only holds, encodes and checks them.
package plan
