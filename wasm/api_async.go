//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall/js"
	"time"

	json "github.com/segmentio/encoding/json"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/wasm/session"
)

// Files read in place (session/place.go) are read while a query runs,
// through the page's File.slice, which only answers through a promise. A
// call that waits for a promise must not hold the JavaScript event loop,
// so these calls return a promise themselves and do their work on a
// goroutine: while it waits for a read or a helper's answer, Go hands
// the event loop back, and cancel() can reach it.

// async is the state the promise-returning calls share.
type async struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

// asyncFuncs are the members of the aplite object that return promises.
func (a *api) asyncFuncs() map[string]jsFunc {
	return map[string]jsFunc{
		// openFile(fileName, size, read) -> {dataset, format, inPlace,
		// bytes, fields}; read(from, to) returns a promise of a Uint8Array.
		"openFile": a.promised(a.openFile),
		// queryAsync(apl, options?, id?) -> the tabular result, as query;
		// cancel(id) stops it.
		"queryAsync": a.promised(a.queryAsync),
		// runFragment(fragmentJSON, id?) -> a Uint8Array, the answer of a
		// helper; cancel(id) stops it.
		"runFragment": a.promisedBytes(a.runFragment),
		"cancel":      guard(a.cancel),
		// rowsRead() -> the rows the running query has decoded from files
		// read in place, for progress; callable while it waits on a read.
		"rowsRead": guard(func([]js.Value) (any, error) { return a.s.RowsRead(), nil }),
		// inMemory(apl) -> true when this engine keeps every column the
		// query reads of its share of the files read in place: the query
		// reads nothing, so the console shows no partial answer first.
		"inMemory": guard(func(args []js.Value) (any, error) {
			if len(args) < 1 || args[0].Type() != js.TypeString {
				return nil, errors.New("inMemory(apl) needs the APL text")
			}
			return a.s.InMemory(args[0].String()), nil
		}),
		// fill(dataset, piece, nodes, id?) -> {}: decodes every field of
		// this engine's piece of a file read in place, while the page is
		// idle; cancel(id) stops it, keeping what it decoded.
		"fill": a.promised(a.fill),
		// setHelpers(n, run): run(helper, fragmentJSON) returns a promise
		// of a helper's runFragment answer; helpers are "1".."n".
		"setHelpers": guard(a.setHelpers),
	}
}

// promised wraps f as a call that returns a promise of its JSON answer.
func (a *api) promised(f func(args []js.Value) (any, error)) jsFunc {
	return a.promisedBytes(func(args []js.Value) (any, error) {
		v, err := f(args)
		return encode(v, err), nil
	})
}

// promisedBytes wraps f as a call that returns a promise of f's value: a
// Uint8Array for []byte, or the JSON error answer.
func (a *api) promisedBytes(f func(args []js.Value) (any, error)) jsFunc {
	return func(_ js.Value, args []js.Value) any {
		var handler js.Func
		handler = js.FuncOf(func(_ js.Value, p []js.Value) any {
			resolve := p[0]
			go func() {
				var v any
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("internal error: %v", r)
						}
					}()
					v, err = f(args)
				}()
				if err != nil {
					resolve.Invoke(encode(nil, err))
					return
				}
				if b, ok := v.([]byte); ok {
					arr := js.Global().Get("Uint8Array").New(len(b))
					js.CopyBytesToJS(arr, b)
					v = arr
				}
				resolve.Invoke(v)
			}()
			return nil
		})
		defer handler.Release()
		return js.Global().Get("Promise").New(handler)
	}
}

// await waits for a promise on this goroutine, or for ctx to end.
//
// Its callbacks release themselves when the promise settles, never
// before: when ctx ends first (a cancelled query whose helpers the worker
// stops), the promise still settles later, and JavaScript then called a
// released function ("call to released function" in the console after a
// Cancel).
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	var ok, fail js.Func
	release := func() { // OK while the function runs (syscall/js)
		ok.Release()
		fail.Release()
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		v := js.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- settled{v: v}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		msg := "rejected"
		if len(args) > 0 {
			if m := args[0].Get("message"); m.Type() == js.TypeString {
				msg = m.String()
			} else {
				msg = args[0].String()
			}
		}
		ch <- settled{err: errors.New(msg)}
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case s := <-ch:
		return s.v, s.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

// readFunc reads a file through the page's read(from, to) promise; a
// read the query's end (a Cancel) abandons settles unheard.
func readFunc(read js.Value) session.ReadFunc {
	return func(ctx context.Context, off int64, dst []byte) (int, error) {
		v, err := await(ctx, read.Invoke(float64(off), float64(off+int64(len(dst)))))
		if err != nil {
			return 0, err
		}
		if !v.InstanceOf(js.Global().Get("Uint8Array")) {
			return 0, errors.New("read did not answer a Uint8Array")
		}
		return js.CopyBytesToGo(dst, v), nil
	}
}

// openFile(fileName, size, read, {helper}?): with helper set, the file is
// only attached for the fragments of another engine (AttachFile).
func (a *api) openFile(args []js.Value) (any, error) {
	if len(args) < 3 || args[2].Type() != js.TypeFunction {
		return nil, errors.New("openFile(fileName, size, read) needs the file name, its size and a read function")
	}
	if len(args) > 3 && args[3].Type() == js.TypeObject && args[3].Get("helper").Truthy() {
		return a.s.AttachFile(args[0].String(), int64(args[1].Float()), readFunc(args[2]), time.Time{})
	}
	return a.s.OpenFile(args[0].String(), int64(args[1].Float()), readFunc(args[2]), time.Time{})
}

func (a *api) fill(args []js.Value) (any, error) {
	if len(args) < 3 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeNumber || args[2].Type() != js.TypeNumber {
		return nil, errors.New("fill(dataset, piece, nodes, id?) needs the dataset, the engine's piece and the number of engines")
	}
	ctx, done := a.cancellable(args, 3)
	defer done()
	return struct{}{}, a.s.Fill(ctx, args[0].String(), args[1].Int(), args[2].Int())
}

func (a *api) queryAsync(args []js.Value) (any, error) {
	ctx, done := a.cancellable(args, 2)
	defer done()
	return a.queryWith(ctx, args)
}

// cancellable is the context of a call that args[i], when given, names
// for cancel(id); done ends it.
func (a *api) cancellable(args []js.Value, i int) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	if len(args) <= i || args[i].Type() == js.TypeUndefined {
		return ctx, cancel
	}
	id := args[i].String()
	a.async.mu.Lock()
	a.async.cancels[id] = cancel
	a.async.mu.Unlock()
	return ctx, func() {
		cancel()
		a.async.mu.Lock()
		delete(a.async.cancels, id)
		a.async.mu.Unlock()
	}
}

// cancel(id) stops the queryAsync or runFragment started with that id,
// if it runs.
func (a *api) cancel(args []js.Value) (any, error) {
	if len(args) < 1 {
		return nil, errors.New("cancel(id) needs the query's id")
	}
	a.async.mu.Lock()
	c := a.async.cancels[args[0].String()]
	a.async.mu.Unlock()
	if c != nil {
		c()
	}
	return map[string]bool{"cancelled": c != nil}, nil
}

// runFragment(fragmentJSON, id?): cancel(id) stops it. A helper's
// fragment is cancelled rather than its Web Worker ended: the soak of
// issue 26 saw reads of the same File hang in the other engines after a
// Cancel had terminated helpers in the middle of a read.
func (a *api) runFragment(args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil, errors.New("runFragment(fragmentJSON, id?) needs the fragment")
	}
	ctx, done := a.cancellable(args, 1)
	defer done()
	return a.s.RunFragment(ctx, []byte(args[0].String()))
}

// setHelpers(n, run): the engines this one spreads scans of files read
// in place over; n 0 scans here alone.
func (a *api) setHelpers(args []js.Value) (any, error) {
	if len(args) < 2 || args[1].Type() != js.TypeFunction {
		return nil, errors.New("setHelpers(n, run) needs a count and a run function")
	}
	n, run := args[0].Int(), args[1]
	if n <= 0 {
		a.s.SetHelpers(nil)
		return struct{}{}, nil
	}
	nodes := []string{"self"}
	for i := 1; i <= n; i++ {
		nodes = append(nodes, strconv.Itoa(i))
	}
	a.s.SetHelpers(&db.Distribution{Nodes: nodes, Self: "self", Run: func(ctx context.Context, node string, f *db.Fragment) ([]byte, error) {
		frag, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		v, err := await(ctx, run.Invoke(node, string(frag)))
		if err != nil {
			return nil, err
		}
		if v.Type() == js.TypeString { // the helper's error answer
			var e struct{ Error session.Error }
			if json.Unmarshal([]byte(v.String()), &e) != nil || e.Error.Message == "" {
				return nil, fmt.Errorf("helper %s answered %.200q", node, v.String())
			}
			return nil, errors.New(e.Error.Message)
		}
		b := make([]byte, v.Get("length").Int())
		js.CopyBytesToGo(b, v)
		return b, nil
	}})
	return map[string]int{"helpers": n}, nil
}
