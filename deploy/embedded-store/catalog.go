package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/bson"
)

// The catalog: one entry per collection (catalogKey), read whole at open, so a start reads no
// document and costs the same whatever the history. A write command rewrites the entries of the
// collections it changed (their count, a new index, a multikey flag) in its own batch, so the
// catalog always agrees with the data.

func (c *Collection) catalogEntry() bson.D {
	specs := bson.A{}
	multi := bson.A{}
	for _, ix := range c.indexes {
		if !ix.primary() {
			specs = append(specs, ix.spec)
		}
		if ix.multi {
			multi = append(multi, ix.name)
		}
	}
	return bson.D{{Key: "indexes", Value: specs}, {Key: "multikey", Value: multi}, {Key: "count", Value: c.count}}
}

// openStore opens (or creates) the Pebble database in dir for writing and reads its catalog.
func openStore(dir string, cacheBytes int64, log *slog.Logger) (*Store, error) {
	pdb, err := openEngine(dir, cacheBytes, log, false)
	if err != nil {
		return nil, err
	}
	// Start on a new log: the engine opens a new directory's first log, or the log it replayed
	// after a crash, before it raises the directory's format to the one that writes synced
	// offsets (logtail.go reads them). Whatever was replayed is written into tables, checked at
	// every start (verify.go).
	if err := pdb.Flush(); err != nil {
		_ = pdb.Close()
		return nil, err
	}
	return storeOn(pdb)
}

// openEngine opens the engine in dir. Read-only, it replays the log in memory, compacts
// nothing and writes nothing.
func openEngine(dir string, cacheBytes int64, log *slog.Logger, readOnly bool) (*pebble.DB, error) {
	opts := engineOptions(cacheBytes, log)
	defer opts.Cache.Unref()
	opts.ReadOnly = readOnly
	return pebble.Open(dir, opts)
}

// storeOn reads the catalog of an open engine (closing it if that fails).
func storeOn(pdb *pebble.DB) (*Store, error) {
	s := &Store{dbs: map[string]*Database{}, pdb: pdb, sync: true}
	if err := s.loadCatalog(); err != nil {
		_ = pdb.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) loadCatalog() error {
	end, _ := successor(catalogPrefix)
	it, err := s.pdb.NewIter(&pebble.IterOptions{LowerBound: catalogPrefix, UpperBound: end})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		name := it.Key()[len(catalogPrefix):]
		sep := bytes.IndexByte(name, 0)
		if sep < 0 {
			_ = it.Close()
			return fmt.Errorf("catalog: bad key %q", it.Key())
		}
		if err := s.loadCollection(string(name[:sep]), string(name[sep+1:]), it.Value()); err != nil {
			_ = it.Close()
			return fmt.Errorf("catalog of %s.%s: %w", name[:sep], name[sep+1:], err)
		}
	}
	return errors.Join(it.Error(), it.Close())
}

func (s *Store) loadCollection(dbName, collName string, raw []byte) error {
	entry, err := decodeDoc(append([]byte(nil), raw...))
	if err != nil {
		return err
	}
	d := s.db(dbName, true)
	c := newCollection(d, collName)
	d.colls[collName] = c
	m := entry.Map()
	specs, _ := m["indexes"].(bson.A)
	for _, sp := range specs {
		spec, isDoc := sp.(bson.D)
		if !isDoc {
			return errors.New("an index spec is not a document")
		}
		ix, err := newIndex(spec)
		if err != nil {
			return err
		}
		c.indexes = append(c.indexes, ix)
	}
	multi, _ := m["multikey"].(bson.A)
	for _, n := range multi {
		if name, isStr := n.(string); isStr && c.index(name) != nil {
			c.index(name).multi = true
		}
	}
	c.count, _ = m["count"].(int64)
	return nil
}

// close writes the memtable out, so the next open has no log to replay, and closes the engine.
func (s *Store) close() error {
	return errors.Join(s.pdb.Flush(), s.pdb.Close())
}
