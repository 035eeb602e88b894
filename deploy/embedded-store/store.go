package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Store is every database, in memory, behind one lock: a write command holds it exclusively from
// its first read to its journal write, so each command is atomic (a findAndModify $inc from many
// clients never loses a count); reads share it.
type Store struct {
	mu      sync.RWMutex
	dbs     map[string]*Database
	seq     uint64
	journal *Journal
	loading bool // replaying the journal: documents only, indexes built after (buildIndexes)
	names   map[string]string
}

// intern makes a stored document's field names share one copy per name: every document of a
// collection repeats the same few names, and each decoded document brings its own copies.
func (s *Store) intern(doc bsonkit.Doc) {
	if s.names == nil {
		s.names = map[string]string{}
	}
	for i, e := range *doc {
		if name, ok := s.names[e.Key]; ok {
			(*doc)[i].Key = name
		} else if len(s.names) < 100_000 {
			s.names[e.Key] = e.Key
		}
	}
}

type Database struct {
	store *Store
	name  string
	colls map[string]*Collection
}

func newStore() *Store { return &Store{dbs: map[string]*Database{}} }

// buildIndexes builds every collection's indexes once the journal has loaded.
func (s *Store) buildIndexes() error {
	s.loading = false
	// Each index is built on its own, so they are built side by side, one per core.
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	slots := make(chan struct{}, runtime.NumCPU())
	for _, d := range s.dbs {
		for _, c := range d.colls {
			for _, ix := range c.indexes {
				wg.Add(1)
				slots <- struct{}{}
				go func() {
					defer func() { <-slots; wg.Done() }()
					ix.tree.Clear()
					if err := ix.build(c); err != nil {
						select {
						case errs <- fmt.Errorf("%s: index %s: %w", c.ns(), ix.name, err):
						default:
						}
					}
				}()
			}
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func (s *Store) nextSeq() uint64 {
	s.seq++
	return s.seq
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
	for n := range s.dbs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Store) dropDatabase(name string) {
	if _, ok := s.dbs[name]; ok {
		delete(s.dbs, name)
		s.journal.dropDatabase(name)
	}
}

func (d *Database) coll(name string, create bool) *Collection {
	c := d.colls[name]
	if c == nil && create {
		c = newCollection(d, name)
		d.colls[name] = c
		d.store.journal.create(c)
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

func (d *Database) drop(name string) bool {
	if _, ok := d.colls[name]; !ok {
		return false
	}
	delete(d.colls, name)
	d.store.journal.dropCollection(d.name, name)
	return true
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
