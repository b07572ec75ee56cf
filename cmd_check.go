package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/objstore"
)

// cmdCheck is `aplite check DATA_DIR` and `aplite repair DATA_DIR`: verify
// every checksum of a stopped server's data directory (blocks and WAL),
// with a progress line on a terminal; exit 1 on damage. repair sets the
// damage aside (blocks renamed *.corrupt, damaged WAL bytes moved to
// *.corrupt files, torn tails cut) and says what it did. Damage set aside earlier
// (*.corrupt files) is listed too: its events are gone, but it does not
// fail the check, there being nothing left to repair.
func cmdCheck(name string, args []string) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	storage := ""
	if name == "check" {
		fs.StringVar(&storage, "storage", "", "check a bucket (s3://BUCKET/PREFIX, endpoint and keys from the AWS environment) instead of a data directory")
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: aplite %s DATA_DIR\n", name)
		if name == "check" {
			fmt.Fprintf(fs.Output(), "       aplite check -storage s3://BUCKET/PREFIX\n\n")
			fmt.Fprintln(fs.Output(), "Verifies every block and WAL checksum of a stopped server's data directory, or every catalog and block of a bucket; exit 1 on damage.")
			fs.PrintDefaults()
		} else {
			fmt.Fprintln(fs.Output())
			fmt.Fprintln(fs.Output(), "Sets damaged blocks aside (renamed *.corrupt) and damaged WAL records (moved to *.corrupt files, keeping the intact records after them), then reports what it did.")
		}
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if (storage == "") != (fs.NArg() == 1) {
		fs.Usage()
		return 2
	}
	st, _ := os.Stderr.Stat()
	tty := st != nil && st.Mode()&os.ModeCharDevice != 0
	progress := func(i, n int, file string) {
		if tty {
			fmt.Fprintf(os.Stderr, "\r\033[K%s: %d/%d %s", name, i, n, file)
		}
	}
	run := db.Check
	if name == "repair" {
		run = db.Repair
	}
	if storage != "" {
		run = func(_ string, progress db.CheckProgress) ([]db.Problem, error) { return checkBucket(storage, progress) }
	}
	probs, err := run(fs.Arg(0), progress)
	if tty {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "aplite %s: %v\n", name, err)
		return 1
	}
	damaged, repaired := 0, 0
	for _, p := range probs {
		what, done := "damaged:", ""
		switch {
		case p.SetAside:
			what = "lost:" // reported so the loss is not forgotten; nothing to repair
		case p.Torn:
			what = "torn tail (a crash mid-write; unacknowledged events only):"
		default:
			damaged++
		}
		if name == "repair" && !p.SetAside {
			done = " -> set aside"
			repaired++
		}
		fmt.Printf("%s: %s %s%s\n", p.File, what, p.Reason, done)
	}
	switch {
	case name == "repair":
		fmt.Printf("repair: %d problem(s) set aside\n", repaired)
		return 0
	case damaged > 0:
		fmt.Printf("check: %d damaged file(s)\n", damaged)
		return 1
	}
	if lost := len(probs) - damaged; lost > 0 {
		fmt.Printf("check: every checksum is valid (%d problem(s) listed above: torn tails or damage set aside earlier)\n", lost)
		return 0
	}
	fmt.Println("check: every checksum is valid")
	return 0
}

// checkBucket runs db.CheckObjects on the bucket of -storage, read
// directly: a check must see the objects, not a cache of them.
func checkBucket(url string, progress db.CheckProgress) ([]db.Problem, error) {
	cfg, err := objstore.ParseURL(url)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	bucket, err := objstore.NewS3(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return db.CheckObjects(ctx, bucket, progress)
}
