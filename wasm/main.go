//go:build js && wasm

// Command wasm is aplite's engine for the browser: built with GOOS=js
// GOARCH=wasm, it installs a global `aplite` object whose functions load
// text as named in-memory datasets and answer APL over them (see
// README.md for the JavaScript API). Every function answers a JSON string,
// so the JavaScript side parses one value per call instead of walking Go
// objects through syscall/js.
package main

import (
	"syscall/js"
)

func main() {
	api := newAPI()
	obj := js.Global().Get("Object").New()
	for name, f := range api.funcs() {
		obj.Set(name, js.FuncOf(f))
	}
	for name, f := range api.asyncFuncs() {
		obj.Set(name, js.FuncOf(f))
	}
	js.Global().Set("aplite", obj)
	if cb := js.Global().Get("onApliteReady"); cb.Type() == js.TypeFunction {
		cb.Invoke(obj)
	}
	select {} // keep the functions alive for the life of the page
}
