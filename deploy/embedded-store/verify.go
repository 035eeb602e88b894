package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/cockroachdb/pebble/v2"
	wal "github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Damage is refused, never read around: the store starts only on an engine directory whose
// every table is there, of the size the manifest gives, with every block's checksum right
// (Pebble checksums each block of a table, each chunk of its log and of its manifest). A start
// therefore reads every table once (about a second per few hundred MB, from the page cache);
// decision: that is the price of never serving from, nor compacting over, a damaged file
// (Pebble alone finds a flipped byte only when that block is read, maybe months later). The
// error names the file and what is wrong; the node logs it at error level.

// openVerified opens the engine directory after checking it is whole; not writable, it stays
// read-only (store-check changes nothing). The check runs on a read-only open, which starts no
// compaction: a writable open compacts at once, and a compaction reading a damaged block would
// stop the process before the check could name it.
func openVerified(dir string, cacheBytes int64, log *slog.Logger, writable bool) (*Store, error) {
	exists, err := checkPresent(dir)
	if err != nil {
		return nil, err
	}
	if !exists && !writable {
		return nil, fmt.Errorf("%s holds no store", dir)
	}
	if exists {
		warning, err := checkLogTail(dir)
		if err != nil {
			return nil, fmt.Errorf("refusing to start: %w", err)
		}
		if warning != "" {
			log.Warn(warning)
		}
		ro, err := openEngine(dir, cacheBytes, log, true)
		if err != nil {
			return nil, fmt.Errorf("refusing to start: %w", explainOpenError(dir, err))
		}
		if err := verifyTables(ro, dir); err != nil {
			_ = ro.Close()
			return nil, fmt.Errorf("refusing to start: %w", err)
		}
		if !writable {
			return storeOn(ro)
		}
		_ = ro.Close()
	}
	s, err := openStore(dir, cacheBytes, log)
	if err != nil {
		return nil, fmt.Errorf("refusing to start: %w", explainOpenError(dir, err))
	}
	return s, nil
}

// checkPresent refuses a directory holding engine files but no manifest to open them by:
// Pebble would otherwise start a new, empty database there.
// It answers whether the directory holds an engine at all (a new one is made otherwise).
func checkPresent(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	desc, err := pebble.Peek(dir, vfs.Default)
	if err != nil {
		return false, fmt.Errorf("refusing to start: %s: %w", dir, err)
	}
	if !desc.Exists {
		return false, fmt.Errorf("refusing to start: %s holds engine files but its manifest or the marker naming it (marker.manifest.*) is missing", dir)
	}
	if _, err := os.Stat(desc.ManifestFilename); err != nil {
		return false, fmt.Errorf("refusing to start: %s: the manifest is missing", desc.ManifestFilename)
	}
	if err := checkManifest(desc.ManifestFilename); err != nil {
		return false, fmt.Errorf("refusing to start: %s: %w", desc.ManifestFilename, err)
	}
	return true, nil
}

// checkManifest reads every record of the manifest (the list of tables). Pebble stops reading
// it at the first record whose checksum is wrong, as at a write cut short, and would open
// without the tables the rest lists; here a bad record with anything but zeros after it is damage.
func checkManifest(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rr := wal.NewReader(bytes.NewReader(raw), 0)
	for records := 0; ; records++ {
		start := rr.Offset()
		r, err := rr.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			continue
		}
		if wal.IsInvalidRecord(err) && start <= int64(len(raw)) && allZero(raw[start:]) {
			return nil // a tail the engine had not written yet
		}
		return fmt.Errorf("damaged record after %d good ones (%v)", records, err)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// verifyTables checks every live table: present, of its recorded size, every block's checksum.
func verifyTables(db *pebble.DB, dir string) error {
	levels, err := db.SSTables()
	if err != nil {
		return err
	}
	opts := &pebble.Options{}
	opts.EnsureDefaults()
	readerOpts := opts.MakeReaderOptions()
	for _, level := range levels {
		for _, t := range level {
			path := filepath.Join(dir, fmt.Sprintf("%06d.sst", t.BackingSSTNum))
			if err := verifyTable(path, t.Size, readerOpts); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}

func verifyTable(path string, size uint64, o sstable.ReaderOptions) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("missing (the manifest lists it)")
	} else if err != nil {
		return err
	}
	if uint64(info.Size()) != size {
		return fmt.Errorf("%d bytes where the manifest says %d (cut short or appended to)", info.Size(), size)
	}
	f, err := vfs.Default.Open(path)
	if err != nil {
		return err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return err
	}
	r, err := sstable.NewReader(context.Background(), readable, o)
	if err != nil {
		readable.Close()
		return fmt.Errorf("unreadable table: %w", err)
	}
	defer r.Close()
	if err := r.ValidateBlockChecksums(); err != nil {
		return fmt.Errorf("damaged block: %w", err)
	}
	return nil
}

var (
	missingTable = regexp.MustCompile(`(\d{6}): file \d+ \(type sstable\) unknown to the objstorage provider: file does not exist`)
	sizeMismatch = regexp.MustCompile(`object size mismatch \((.*?)\): (\d+) \(disk\) != (\d+) \(MANIFEST\)`)
)

// explainOpenError says Pebble's own findings at open (it checks that the manifest's tables are
// there, of their size) as verifyTables says its: the file, then what is wrong with it.
func explainOpenError(dir string, err error) error {
	msg := err.Error()
	if m := missingTable.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: missing (the manifest lists it)", filepath.Join(dir, m[1]+".sst"))
	}
	if m := sizeMismatch.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: %s bytes where the manifest says %s (cut short or appended to)", m[1], m[2], m[3])
	}
	return fmt.Errorf("%s: %w", dir, err)
}
