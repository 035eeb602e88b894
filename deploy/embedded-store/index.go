package main

import (
	"fmt"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
)

// bound is a sentinel key below or above every BSON value, used to start and stop range scans.
type bound int8

const (
	minBound bound = -1
	maxBound bound = 1
)

// compareKey orders index keys as MongoDB does (bsonkit's BSON comparison order), with the two
// sentinels at the ends.
func compareKey(a, b interface{}) int {
	ba, aok := a.(bound)
	bb, bok := b.(bound)
	switch {
	case aok && bok:
		return int(ba) - int(bb)
	case aok:
		return int(ba)
	case bok:
		return -int(bb)
	}
	return bsonkit.Compare(a, b)
}

// indexField is one field of an index key pattern.
type indexField struct {
	path string
	desc bool
}

// entry is one key of one document in an index; a document whose indexed field holds an array
// has one entry per element (a multikey index, as in MongoDB).
type entry struct {
	keys []interface{}
	doc  *record
}

// Index is a B-tree over the key pattern, then the document's insertion sequence.
type Index struct {
	name    string
	fields  []indexField
	unique  bool
	sparse  bool
	spec    bson.D // as given to createIndexes, for listIndexes and the journal
	tree    *btree.BTreeG[entry]
	multi   bool // some document produced more than one entry
	keySpec bson.D
}

func newIndex(spec bson.D) (*Index, error) {
	ix := &Index{spec: spec}
	for _, e := range spec {
		switch e.Key {
		case "name":
			ix.name, _ = e.Value.(string)
		case "unique":
			ix.unique = truthy(e.Value)
		case "sparse":
			ix.sparse = truthy(e.Value)
		case "key":
			key, ok := e.Value.(bson.D)
			if !ok || len(key) == 0 {
				return nil, cmdError(67, "CannotCreateIndex", "index key pattern must be a non-empty document")
			}
			ix.keySpec = key
			for _, k := range key {
				n, isNum := number(k.Value)
				if !isNum || n == 0 {
					return nil, cmdError(67, "CannotCreateIndex", fmt.Sprintf("unsupported index type for field %q: only ascending and descending keys are supported", k.Key))
				}
				ix.fields = append(ix.fields, indexField{path: k.Key, desc: n < 0})
			}
		case "partialFilterExpression", "expireAfterSeconds", "collation", "weights", "2dsphereIndexVersion":
			return nil, cmdError(67, "CannotCreateIndex", fmt.Sprintf("index option %q is not supported by the embedded store", e.Key))
		}
	}
	if ix.keySpec == nil {
		return nil, cmdError(67, "CannotCreateIndex", "index spec has no key")
	}
	if ix.name == "" {
		return nil, cmdError(9, "FailedToParse", "index spec has no name")
	}
	fields := ix.fields
	ix.tree = btree.NewBTreeGOptions(func(a, b entry) bool {
		for i, f := range fields {
			c := compareKey(a.keys[i], b.keys[i])
			if f.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return a.doc.seq < b.doc.seq
	}, btree.Options{NoLocks: true})
	return ix, nil
}

func (ix *Index) isID() bool { return len(ix.fields) == 1 && ix.fields[0].path == "_id" }

// keysOf lists a document's keys in this index: the cartesian product of its fields' values,
// each array contributing its elements. A missing field is null, as in MongoDB.
func (ix *Index) keysOf(doc bsonkit.Doc) (keys [][]interface{}, present bool) {
	keys = [][]interface{}{{}}
	for _, f := range ix.fields {
		var values []interface{}
		v, multi := bsonkit.All(doc, f.path, true, true)
		if v != bsonkit.Missing {
			present = true
		}
		switch {
		case v == bsonkit.Missing:
			values = []interface{}{nil}
		case multi || isArray(v):
			arr, _ := v.(bson.A)
			if len(arr) == 0 {
				// An empty array is indexed as itself, so the document is still in the index.
				values = []interface{}{bson.A{}}
			} else {
				values = uniqueValues(arr)
			}
		default:
			values = []interface{}{v}
		}
		next := make([][]interface{}, 0, len(keys)*len(values))
		for _, k := range keys {
			for _, v := range values {
				nk := make([]interface{}, len(k), len(k)+1)
				copy(nk, k)
				next = append(next, append(nk, v))
			}
		}
		keys = next
	}
	return keys, present
}

func isArray(v interface{}) bool { _, ok := v.(bson.A); return ok }

func uniqueValues(arr bson.A) []interface{} {
	out := make([]interface{}, 0, len(arr))
outer:
	for _, v := range arr {
		for _, o := range out {
			if bsonkit.Compare(o, v) == 0 {
				continue outer
			}
		}
		out = append(out, v)
	}
	return out
}

// conflict returns the document already holding one of the keys in a unique index, other than
// doc itself, or nil.
func (ix *Index) conflict(keys [][]interface{}, doc *record) (*record, []interface{}) {
	if !ix.unique {
		return nil, nil
	}
	for _, k := range keys {
		var found *record
		pivot := entry{keys: k, doc: &record{seq: 0}}
		ix.tree.Ascend(pivot, func(e entry) bool {
			if !sameKeys(e.keys, k) {
				return false
			}
			if e.doc != doc {
				found = e.doc
				return false
			}
			return true
		})
		if found != nil {
			return found, k
		}
	}
	return nil, nil
}

func sameKeys(a, b []interface{}) bool {
	for i := range a {
		if compareKey(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

func (ix *Index) add(keys [][]interface{}, doc *record) {
	if len(keys) > 1 {
		ix.multi = true
	}
	for _, k := range keys {
		ix.tree.Set(entry{keys: k, doc: doc})
	}
}

func (ix *Index) remove(keys [][]interface{}, doc *record) {
	for _, k := range keys {
		ix.tree.Delete(entry{keys: k, doc: doc})
	}
}

// skips reports whether a sparse index leaves the document out.
func (ix *Index) skips(present bool) bool { return ix.sparse && !present }

// dupKeyError is MongoDB's E11000 error for a unique index.
func (ix *Index) dupKeyError(ns string, key []interface{}) *CommandError {
	pattern := bson.D{}
	value := bson.D{}
	parts := make([]string, len(ix.fields))
	for i, f := range ix.fields {
		pattern = append(pattern, bson.E{Key: f.path, Value: ix.keySpec[i].Value})
		value = append(value, bson.E{Key: f.path, Value: key[i]})
		parts[i] = fmt.Sprintf("%s: %s", f.path, renderValue(key[i]))
	}
	e := cmdError(11000, "DuplicateKey", fmt.Sprintf("E11000 duplicate key error collection: %s index: %s dup key: { %s }", ns, ix.name, strings.Join(parts, ", ")))
	e.extra = bson.D{{Key: "keyPattern", Value: pattern}, {Key: "keyValue", Value: value}}
	return e
}

func renderValue(v interface{}) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%q", t)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
