//go:build !linux

package main

// Elsewhere the holder of a lock or a port is not looked up: a busy data
// directory is found when the server opens it, and a busy port is named
// without its holder.

func lockHeld(string) (bool, int) { return false, 0 }

func processName(int) string { return "" }

func listenerPid(string) int { return 0 }
