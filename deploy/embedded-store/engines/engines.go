// Package engines is the embedded store's storage layer on a real engine (issue #29): the same
// key layout over Pebble (an LSM tree) and over bbolt (a copy-on-write B+tree), behind one small
// interface, measured by cmd/enginebench on the messages service's workload. The store does not
// import it yet; this comment is the design the migration follows.
//
// # Keys
//
// Every collection has a prefix P = <db> 0x00 <coll> 0x00 (MongoDB forbids NUL in both names).
//
//	P 'd' <_id key>                          -> the document, raw BSON as the client sent it
//	P 'i' <index name> 0x00 <key> <_id key>  -> empty
//	0x00 "catalog" ...                       -> collections and their index specs (BSON)
//
// <_id key> and <key> are keyenc.go's encodings, which sort as MongoDB orders values and are
// self-delimiting, so an index key ends where keyLen says and the _id after it needs no length.
// Consequences:
//   - The documents, ordered by <_id key>, are the _id index: no separate _id_ entries. Natural
//     order becomes _id order (MongoDB promises no natural order; today's is insertion order).
//   - An index entry names its document by _id, so a covered scan (count, distinct on an index
//     field, the ids of a topic's newest rows) reads no document; otherwise one point Get each.
//   - A unique index is checked by one seek to P 'i' name 0x00 <key> (any entry there but the
//     document's own is a duplicate); a multikey document has one entry per distinct element.
//   - A reverse range (the 100 newest of a topic) is an iterator from the prefix's end, backwards,
//     stopping at the limit: cost proportional to the rows returned, not to the collection.
//   - Dropping a collection or an index deletes one prefix (Pebble's DeleteRange: one tombstone;
//     in bbolt, one bucket: there the prefix is a bucket path, P -> "d" | "i"+name, not a key).
//
// # Writes
//
// A write command (insert, update, delete, findAndModify, and a multi-document updateMany or bulk
// insert) computes every change under the store's write lock, as now: for each document the new
// BSON under P 'd', and the difference of its index entries (keys of the old version minus those
// of the new are deleted, the new ones set; an unchanged key is not touched, so marking 5,000
// rows read rewrites 5,000 documents and 10,000 entries of the flags index only). All of it goes
// into one engine batch (Pebble: one Batch committed with Sync; bbolt: one read-write
// transaction), so the command is all-or-nothing across a crash, and the reply is sent after the
// commit returns. A command that fails half-way (a duplicate key in the middle of an ordered
// insert) commits what MongoDB would have kept, the documents before it, in one batch.
//
// # Reads and the cache
//
// Reads take the store's read lock and read the engine directly (Pebble: an iterator or Get on
// the DB, which sees every committed batch; bbolt: a read transaction). Memory is bounded by the
// engine's cache, not by the data: Pebble's block cache (default 64 MiB, configurable) holds
// compressed-then-decoded blocks; bbolt has none of its own and reads through mmap, so its pages
// are the kernel's page cache and count in the process's RSS as file pages (reclaimable, but
// visible). On top, a small LRU of decoded documents by <_id key> (a few thousand entries,
// invalidated by the batch that writes the key) saves re-decoding the hot rows of a channel.
//
// # Start
//
// Opening is reading the engine's manifest (Pebble: MANIFEST + replaying the WAL tail not yet
// flushed, at most a memtable or two; bbolt: the meta page, then the freelist), then the catalog:
// no documents are read, so start time does not grow with history. The next command's _id or
// counter comes from the data (counters are documents), not from a replayed sequence.
//
// # Damage and crashes
//
//   - Pebble: each sstable block and the WAL's chunks carry a CRC32C; the MANIFEST is a log of
//     checksummed records naming every live table. A flipped byte in a table is found when that
//     block is read (and by a full check: reading every key, or the level checks), a missing
//     table at open, a truncated one when its footer is read. A torn record at the end of the
//     last WAL is the crash case and is dropped (its batch was never acknowledged, since commits
//     are synced); damage anywhere before it, or in the MANIFEST, refuses to open.
//   - bbolt: two meta pages with a checksum each (a torn meta falls back to the other, which is the
//     previous commit); data pages carry no checksum, so a flipped byte in a page is only found by
//     tx.Check (the page structure) or by BSON validation of the document, not by the engine.
//   - A crash leaves the last synced batch in place and nothing of a batch that was not committed
//     (Pebble: the WAL record of a batch is atomic; bbolt: the meta page is the commit point).
package engines

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"

	"go.mongodb.org/mongo-driver/bson"
)

// Op is one change of a batch: a document (Index "") or an index entry.
type Op struct {
	Coll  string // <db> 0x00 <coll>
	Index string // "" for the document itself
	Key   []byte // the <_id key>, or an index's <key><_id key>
	Value []byte // raw BSON for a document, nil for an index entry
	Del   bool
}

// Batch is what one write command changes, applied atomically by Engine.Apply.
type Batch struct{ Ops []Op }

func (b *Batch) PutDoc(coll string, id, raw []byte) {
	b.Ops = append(b.Ops, Op{Coll: coll, Key: id, Value: raw})
}
func (b *Batch) DelDoc(coll string, id []byte) {
	b.Ops = append(b.Ops, Op{Coll: coll, Key: id, Del: true})
}
func (b *Batch) PutEntry(coll, index string, key, id []byte) {
	b.Ops = append(b.Ops, Op{Coll: coll, Index: index, Key: concat(key, id)})
}
func (b *Batch) DelEntry(coll, index string, key, id []byte) {
	b.Ops = append(b.Ops, Op{Coll: coll, Index: index, Key: concat(key, id), Del: true})
}

// Engine is the part of an embedded key-value engine the store needs.
type Engine interface {
	Name() string
	// Apply commits a batch atomically; with sync it is on disk when Apply returns.
	Apply(b *Batch, sync bool) error
	// Get returns a copy of a document's BSON, or nil.
	Get(coll string, id []byte) ([]byte, error)
	// Scan calls fn for the entries of an index whose key starts with prefix, in order or in
	// reverse, with the entry's key (index key then _id key), until fn returns false.
	Scan(coll, index string, prefix []byte, reverse bool, fn func(entry []byte) bool) error
	// ScanEach walks the entries of each prefix in turn, forwards, with one iterator (an $in
	// list on leading fields): fn returns false to go on to the next prefix. Index "": the
	// documents, by prefixes of their _id keys.
	ScanEach(coll, index string, prefixes [][]byte, fn func(i int, entry []byte) bool) error
	Close() error
}

func concat(a, b []byte) []byte {
	k := make([]byte, 0, len(a)+len(b))
	return append(append(k, a...), b...)
}

// prefixEnd is the smallest key after every key starting with p (nil: no end).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// CollName is a collection's part of every key: <db> 0x00 <coll>.
func CollName(db, coll string) string { return db + "\x00" + coll }

// IDKey is the encoding of an _id in keys: MongoDB's order, self-delimiting.
func IDKey(id interface{}) []byte { return appendKey(nil, id, false) }

// SplitEntry returns the _id key at the end of an index entry whose key has n fields.
func SplitEntry(entry []byte, fields []bool) (key, id []byte) {
	at := 0
	for _, desc := range fields {
		at += keyLen(entry[at:], desc)
	}
	return entry[:at], entry[at:]
}

// IndexSpec is an index's fields, in order (desc for -1), and its name.
type IndexSpec struct {
	Name   string
	Fields []string
	Desc   []bool
	Unique bool
	Sparse bool
}

// Keys computes a document's entries in an index as the store does (index.go keysOf): one per
// distinct element of an array field (one array field per index, as in MongoDB), an empty
// array as itself, a missing field as null; present reports whether any field was there.
func (ix *IndexSpec) Keys(doc bson.Raw) (keys [][]byte, present bool) {
	keys = [][]byte{nil}
	for i, f := range ix.Fields {
		desc := i < len(ix.Desc) && ix.Desc[i]
		v, err := doc.LookupErr(f)
		var vals []interface{}
		if err != nil {
			vals = []interface{}{nil}
		} else {
			present = true
			var x interface{}
			_ = bson.UnmarshalValue(v.Type, v.Value, &x)
			if arr, ok := x.(bson.A); ok {
				if len(arr) == 0 {
					vals = []interface{}{bson.A{}} // as index.go: the document stays in the index
				}
				seen := map[string]bool{}
				for _, e := range arr {
					k := string(appendKey(nil, e, false))
					if !seen[k] {
						seen[k] = true
						vals = append(vals, e)
					}
				}
			} else {
				vals = []interface{}{x}
			}
		}
		next := make([][]byte, 0, len(keys)*len(vals))
		for _, k := range keys {
			for _, v := range vals {
				next = append(next, appendKey(bytes.Clone(k), v, desc))
			}
		}
		keys = next
	}
	return keys, present
}

// DiskSize is the bytes of every file under dir.
func DiskSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// Open opens (creating it if needed) the named engine's database in dir.
func Open(name, dir string, cacheBytes int64) (Engine, error) {
	switch name {
	case "pebble":
		return OpenPebble(dir, cacheBytes)
	case "bbolt":
		return OpenBolt(dir)
	}
	return nil, fmt.Errorf("unknown engine %q (pebble or bbolt)", name)
}
