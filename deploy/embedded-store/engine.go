package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// The data lives in Pebble (github.com/cockroachdb/pebble, CockroachDB's LSM engine), chosen by
// measurement over bbolt (docs/embedded-store.md, "The storage engine"). One keyspace, one prefix per collection,
// P = <db> 0x00 <coll> 0x00 (MongoDB forbids NUL in both names):
//
//	P 'd' <_id key>                          -> the document, raw BSON
//	P 'i' <index name> 0x00 <key> <_id key>  -> empty
//	0x00 "catalog" 0x00 <db> 0x00 <coll>      -> the collection's index specs, multikey flags, count
//
// Keys are keyenc.go's encodings, which sort as MongoDB orders values and are self-delimiting, so
// the documents in key order are the _id index, an entry's _id is what follows its key, a unique
// check is one seek and "the 100 newest of a topic" is a reverse iterator stopped at 100.

var catalogPrefix = []byte("\x00catalog\x00")

func collPrefix(db, coll string) []byte {
	p := make([]byte, 0, len(db)+len(coll)+2)
	p = append(append(p, db...), 0)
	return append(append(p, coll...), 0)
}

func catalogKey(db, coll string) []byte {
	return append(append([]byte{}, catalogPrefix...), collPrefix(db, coll)[:len(db)+1+len(coll)]...)
}

func (c *Collection) docsPrefix() []byte { return append(append([]byte{}, c.prefix...), 'd') }

func (c *Collection) docKey(id []byte) []byte { return append(c.docsPrefix(), id...) }

// entriesPrefix is where an index's entries start; the _id_ index's are the documents themselves.
func (c *Collection) entriesPrefix(ix *Index) []byte {
	if ix.primary() {
		return c.docsPrefix()
	}
	p := append(append([]byte{}, c.prefix...), 'i')
	return append(append(p, ix.name...), 0)
}

// reader is what a command reads through: the database, or during a write command its batch
// (an indexed batch reads its own writes over the database's).
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func (s *Store) r() reader {
	if s.batch != nil {
		return s.batch
	}
	return s.pdb
}

// get reads one key's value (a copy), or nil when it is absent.
func get(r reader, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, v...) // non-nil: present, even when empty (an index entry)
	return out, closer.Close()
}

// engineOptions are Pebble's settings for the store: a block cache of cacheBytes (the store's
// memory is bounded by it), 16 MiB memtables (a crash replays at most two from the WAL), Pebble's
// own log through ours.
func engineOptions(cacheBytes int64, log *slog.Logger) *pebble.Options {
	opts := &pebble.Options{
		Cache:        pebble.NewCache(cacheBytes),
		MemTableSize: 16 << 20,
		Logger:       engineLogger{log},
		// Pinned, not FormatNewest, so a newer Pebble never upgrades a data directory by itself.
		// This one writes the log's synced offsets (logtail.go tells damage from a write cut
		// short by them) and checksums each table's footer.
		FormatMajorVersion: pebble.FormatTableFormatV6,
	}
	// A damaged block found while running (a read or a compaction): stop, naming the file, in
	// one line rather than Pebble's stack trace; the supervisor's restart then refuses to start
	// on it (verify.go) until it is repaired.
	opts.EventListener = &pebble.EventListener{DataCorruption: func(info pebble.DataCorruptionInfo) {
		log.Error(fmt.Sprintf("engine: stopping: %s is damaged (%v); check it with store-check, salvage it with store-repair", info.Path, info.Details))
		os.Exit(1)
	}}
	opts.EnsureDefaults()
	return opts
}

// engineLogger passes Pebble's errors on as ours; its info lines (flushes, compactions) are noise.
type engineLogger struct{ log *slog.Logger }

func (engineLogger) Infof(string, ...interface{}) {}
func (l engineLogger) Errorf(format string, args ...interface{}) {
	l.log.Error("engine: " + fmt.Sprintf(format, args...))
}
func (l engineLogger) Fatalf(format string, args ...interface{}) {
	l.log.Error("engine: " + fmt.Sprintf(format, args...))
	os.Exit(1)
}

// successor is the smallest key after every key that starts with b; none (true) when b is empty
// or all 0xFF.
func successor(b []byte) ([]byte, bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			out := append([]byte{}, b[:i+1]...)
			out[i]++
			return out, false
		}
	}
	return nil, true
}
