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
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	wal "github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"go.mongodb.org/mongo-driver/bson"
)

// repairStore salvages a damaged engine directory into a new one. It does not trust the manifest
// (it may be what is damaged): it reads every table file and every log file in the directory on
// its own, each as far as it reads, keeps each key's newest version (by sequence number; range
// deletions of dropped collections and indexes applied), and then rebuilds a store from the
// catalog entries and documents found, through the store's own inserts: the index entries are
// built anew, so none is trusted either. It reports each unreadable file or part, each document
// that does not decode or breaks a unique index, and each collection's count against its catalog.
func repairStore(engine, dest string, out io.Writer, log *slog.Logger) bool {
	v := newVersions()
	lost := 0
	say := func(format string, args ...interface{}) { fmt.Fprintf(out, format+"\n", args...) }
	files, err := os.ReadDir(engine)
	if err != nil {
		say("%v", err)
		return false
	}
	for _, f := range files {
		path := filepath.Join(engine, f.Name())
		var err error
		switch {
		case strings.HasSuffix(f.Name(), ".sst"):
			err = v.readTable(path)
		case strings.HasSuffix(f.Name(), ".log"):
			err = v.readLog(path)
		default:
			continue
		}
		if err != nil {
			lost++
			say("lost: %s: %v (read %d keys of it)", path, err, v.lastFileKeys)
		}
	}
	s, err := openStore(dest, 8<<20, log)
	if err != nil {
		say("%v", err)
		return false
	}
	s.sync = false
	docs, dropped := v.rebuild(s, say)
	lost += dropped
	if err := s.close(); err != nil {
		say("%v", err)
		return false
	}
	say("salvaged %d documents into %s; %d problems", docs, filepath.Dir(dest), lost)
	return lost == 0
}

type version struct {
	seq   uint64
	del   bool
	value []byte
}

type rangeDel struct {
	start, end []byte
	seq        uint64
}

// versions is the newest version of each catalog entry and document read so far (index entries
// are rebuilt, so they are not kept).
type versions struct {
	keys         map[string]version
	dels         []rangeDel
	lastFileKeys int
}

func newVersions() *versions { return &versions{keys: map[string]version{}} }

func (v *versions) add(key []byte, seq uint64, del bool, value []byte) {
	if !bytes.HasPrefix(key, catalogPrefix) {
		if _, _, rest, ok := splitDataKey(key); !ok || rest[0] != 'd' {
			return
		}
	}
	v.lastFileKeys++
	if old, seen := v.keys[string(key)]; seen && old.seq > seq {
		return
	}
	v.keys[string(key)] = version{seq: seq, del: del, value: append([]byte(nil), value...)}
}

// readTable reads a table's point keys and range deletions, until its end or its first damage.
func (v *versions) readTable(path string) error {
	v.lastFileKeys = 0
	f, err := vfs.Default.Open(path)
	if err != nil {
		return err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return err
	}
	opts := &pebble.Options{}
	opts.EnsureDefaults()
	r, err := sstable.NewReader(context.Background(), readable, opts.MakeReaderOptions())
	if err != nil {
		readable.Close()
		return fmt.Errorf("unreadable table: %w", err)
	}
	defer r.Close()
	if rd, err := r.NewRawRangeDelIter(context.Background(), sstable.NoFragmentTransforms, sstable.NoReadEnv); err != nil {
		return err
	} else if rd != nil {
		span, err := rd.First()
		for ; span != nil && err == nil; span, err = rd.Next() {
			for _, k := range span.Keys {
				v.dels = append(v.dels, rangeDel{start: append([]byte(nil), span.Start...), end: append([]byte(nil), span.End...), seq: uint64(k.SeqNum())})
			}
		}
		rd.Close()
		if err != nil {
			return err
		}
	}
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.TableBlobContext{})
	if err != nil {
		return err
	}
	for kv := it.First(); kv != nil; kv = it.Next() {
		value, _, err := kv.Value(nil)
		if err != nil {
			it.Close()
			return err
		}
		kind := kv.Kind()
		del := kind == pebble.InternalKeyKindDelete || kind == pebble.InternalKeyKindSingleDelete || kind == pebble.InternalKeyKindDeleteSized
		v.add(kv.K.UserKey, uint64(kv.SeqNum()), del, value)
	}
	return errors.Join(it.Error(), it.Close())
}

// readLog reads a write-ahead log's batches, until its end or its first damaged record.
func (v *versions) readLog(path string) error {
	v.lastFileKeys = 0
	num, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path), ".log"), 10, 64)
	if err != nil {
		return nil // not one of the engine's logs
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var damaged []string
	for from := 0; from < len(raw); {
		stop, err := v.readLogFrom(raw[from:], num)
		if err == nil {
			break
		}
		if !unreadableRecord(err) {
			return err
		}
		at := int64(from) + stop
		synced, ok := syncedPast(raw, at, uint32(num))
		if !ok {
			// How a log ends after a crash in the middle of a write (never acknowledged), or a log
			// kept for reuse: Pebble itself reads it so (logtail.go).
			break
		}
		// Acknowledged records are past the damage: read on from the next block, where chunks
		// start afresh (the records between are lost).
		from = (int(at)/logBlockSize + 1) * logBlockSize
		damaged = append(damaged, fmt.Sprintf("damaged record at offset %d though the log was synced to %d, read on from offset %d", at, synced, from))
	}
	if len(damaged) > 0 {
		return errors.New(strings.Join(damaged, "; "))
	}
	return nil
}

// unreadableRecord: a log record that fails its checksum or ends early (the reader may wrap
// the error with where a flipped bit was).
func unreadableRecord(err error) bool {
	return errors.Is(err, wal.ErrInvalidChunk) || errors.Is(err, wal.ErrZeroedChunk) || errors.Is(err, wal.ErrUnexpectedEOF)
}

// readLogFrom reads the log's records in raw (which starts on a block boundary) until the
// first it cannot read, answering that one's offset in raw and why (nil at a clean end).
func (v *versions) readLogFrom(raw []byte, num uint64) (int64, error) {
	return readLogRecords(raw, num, func(repr []byte) error {
		if len(repr) < 12 {
			return nil
		}
		seq := uint64(batchrepr.ReadSeqNum(repr))
		br := batchrepr.Read(repr)
		for i := uint64(0); ; i++ {
			kind, key, value, ok, err := br.Next()
			if err != nil || !ok {
				return err
			}
			switch kind {
			case pebble.InternalKeyKindSet:
				v.add(key, seq+i, false, value)
			case pebble.InternalKeyKindDelete, pebble.InternalKeyKindSingleDelete, pebble.InternalKeyKindDeleteSized:
				v.add(key, seq+i, true, nil)
			case pebble.InternalKeyKindRangeDelete:
				v.dels = append(v.dels, rangeDel{start: append([]byte(nil), key...), end: append([]byte(nil), value...), seq: seq + i})
			}
		}
	})
}

// live is a key's newest version unless a newer range deletion covers it.
func (v *versions) live(key string) ([]byte, bool) {
	ver := v.keys[key]
	if ver.del {
		return nil, false
	}
	for _, d := range v.dels {
		if d.seq > ver.seq && key >= string(d.start) && key < string(d.end) {
			return nil, false
		}
	}
	return ver.value, true
}

// rebuild writes the salvaged catalog and documents into s; it returns the documents written and
// the problems met.
func (v *versions) rebuild(s *Store, say func(string, ...interface{})) (docs, problems int) {
	keys := make([]string, 0, len(v.keys))
	for k := range v.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the catalog (0x00 ...) first, then each collection's documents
	expected := map[*Collection]int64{}
	found := map[*Collection]int64{}
	s.begin()
	for n, k := range keys {
		value, ok := v.live(k)
		if !ok {
			continue
		}
		if strings.HasPrefix(k, string(catalogPrefix)) {
			name := k[len(catalogPrefix):]
			db, coll, _ := strings.Cut(name, "\x00")
			entry, err := decodeDoc(value)
			if err != nil {
				problems++
				say("lost: the catalog entry of %s.%s (%v): its indexes are not rebuilt", db, coll, err)
				continue
			}
			c := s.db(db, true).coll(coll, true)
			specs, _ := entry.Map()["indexes"].(bson.A)
			for _, sp := range specs {
				if spec, isDoc := sp.(bson.D); isDoc {
					if _, err := c.createIndex(spec); err != nil {
						problems++
						say("lost: index %v of %s: %v", spec, c.ns(), err)
					}
				}
			}
			expected[c], _ = entry.Map()["count"].(int64)
			continue
		}
		db, coll, _, _ := splitDataKey([]byte(k))
		c := s.db(db, true).coll(coll, true)
		doc, err := decodeDoc(value)
		if err == nil {
			err = c.insert(&doc)
		}
		if err != nil {
			problems++
			say("lost: a document of %s (%x): %v", c.ns(), k, err)
			continue
		}
		docs++
		found[c]++
		if n%5_000 == 0 {
			if err := s.commit(); err != nil {
				say("%v", err)
				return docs, problems + 1
			}
			s.begin()
		}
	}
	if err := s.commit(); err != nil {
		say("%v", err)
		problems++
	}
	for c, want := range expected {
		if found[c] < want {
			problems++
			say("lost: %d of the %d documents of %s", want-found[c], want, c.ns())
		}
	}
	return docs, problems
}
