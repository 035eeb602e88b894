package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Store is every database, on Pebble, behind one lock: a write command holds it exclusively from
// its first read to its commit, so each command is atomic (a findAndModify $inc from many clients
// never loses a count); reads share it. The catalog (databases, collections, their indexes and
// counts) is kept in memory too, read at open.
type Store struct {
	mu    sync.RWMutex
	dbs   map[string]*Database
	pdb   *pebble.DB
	batch *pebble.Batch            // the running write command's (under mu held alone)
	dirty map[*Collection]struct{} // collections whose catalog entry the command changed
	sync  bool                     // commit with pebble.Sync (off only while migrating or repairing)
}

type Database struct {
	store *Store
	name  string
	colls map[string]*Collection
}

func (s *Store) db(name string, create bool) *Database {
	d := s.dbs[name]
	if d == nil && create {
		d = &Database{store: s, name: name, colls: map[string]*Collection{}}
		s.dbs[name] = d
	}
	return d
}

func (s *Store) dbNames() []string {
	names := make([]string, 0, len(s.dbs))
	for n, d := range s.dbs {
		if len(d.colls) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// begin starts a write command: its changes go into one indexed batch, read back by its own reads.
func (s *Store) begin() {
	s.batch = s.pdb.NewIndexedBatch()
	s.dirty = map[*Collection]struct{}{}
}

// commit writes the command's batch and the catalog entries it changed as one Pebble batch,
// synced before the reply: all of the command is on disk, or (after a crash) none of it.
func (s *Store) commit() error {
	b := s.batch
	s.batch = nil
	defer b.Close()
	for c := range s.dirty {
		if c.dropped {
			continue
		}
		raw, err := bson.Marshal(c.catalogEntry())
		if err != nil {
			return err
		}
		if err := b.Set(catalogKey(c.db.name, c.name), raw, nil); err != nil {
			return err
		}
	}
	s.dirty = nil
	if b.Empty() {
		return nil
	}
	opt := pebble.NoSync
	if s.sync {
		opt = pebble.Sync
	}
	return b.Commit(opt)
}

func (s *Store) changed(c *Collection) { s.dirty[c] = struct{}{} }

func (s *Store) dropDatabase(name string) error {
	d := s.dbs[name]
	if d == nil {
		return nil
	}
	for _, n := range d.collNames() {
		if err := d.drop(n); err != nil {
			return err
		}
	}
	delete(s.dbs, name)
	return nil
}

func (d *Database) coll(name string, create bool) *Collection {
	c := d.colls[name]
	if c == nil && create {
		c = newCollection(d, name)
		d.colls[name] = c
		d.store.changed(c)
	}
	return c
}

func (d *Database) collNames() []string {
	names := make([]string, 0, len(d.colls))
	for n := range d.colls {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// drop deletes a collection: its documents and index entries (one range tombstone) and its
// catalog entry, in the command's batch.
func (d *Database) drop(name string) error {
	c := d.colls[name]
	if c == nil {
		return nil
	}
	end, _ := successor(c.prefix)
	if err := d.store.batch.DeleteRange(c.prefix, end, nil); err != nil {
		return err
	}
	if err := d.store.batch.Delete(catalogKey(d.name, name), nil); err != nil {
		return err
	}
	c.dropped = true
	delete(d.colls, name)
	return nil
}

// idKey is a map key equal for equal _id values (1, 1.0 and int64 1 are one _id, as in MongoDB).
func idKey(v interface{}) string {
	switch t := v.(type) {
	case int32:
		return "n" + strconv.FormatInt(int64(t), 10)
	case int64:
		return "n" + strconv.FormatInt(t, 10)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<62 {
			return "n" + strconv.FormatInt(int64(t), 10)
		}
		return "f" + strconv.FormatFloat(t, 'g', -1, 64)
	case string:
		return "s" + t
	case primitive.ObjectID:
		return "o" + hex.EncodeToString(t[:])
	case nil:
		return "z"
	}
	raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return fmt.Sprintf("?%v", v)
	}
	return "x" + string(raw)
}

func truthy(v interface{}) bool {
	switch t := v.(type) {
	case bool:
		return t
	case nil:
		return false
	}
	if n, ok := number(v); ok {
		return n != 0
	}
	return true
}

func number(v interface{}) (float64, bool) {
	switch t := v.(type) {
	case int32:
		return float64(t), true
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

func intOf(v interface{}) int {
	n, _ := number(v)
	return int(n)
}

// CommandError is a MongoDB error reply: {ok: 0, errmsg, code, codeName}.
type CommandError struct {
	code     int32
	codeName string
	msg      string
	extra    bson.D
}

func (e *CommandError) Error() string { return e.msg }

func cmdError(code int32, name, msg string) *CommandError {
	return &CommandError{code: code, codeName: name, msg: msg}
}

func (e *CommandError) reply() bson.D {
	d := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: e.msg}, {Key: "code", Value: e.code}, {Key: "codeName", Value: e.codeName}}
	return append(d, e.extra...)
}

// writeError is the entry of a write command's writeErrors list.
func (e *CommandError) writeError(index int) bson.D {
	d := bson.D{{Key: "index", Value: int32(index)}, {Key: "code", Value: e.code}, {Key: "errmsg", Value: e.msg}}
	return append(d, e.extra...)
}
