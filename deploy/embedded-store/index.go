package main

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
)

// indexField is one field of an index key pattern.
type indexField struct {
	path string
	desc bool
}

// entry is one key of one document in an index, encoded (keyenc.go); a document whose indexed
// field holds an array has one entry per element (a multikey index, as in MongoDB).
type entry struct {
	key []byte
	doc *record
}

// keySet is a document's keys in one index: the values (for error messages) and their encodings.
type keySet struct {
	values [][]interface{}
	enc    [][]byte
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
	ix.tree = btree.NewBTreeGOptions(func(a, b entry) bool { return compareEntries(a, b) < 0 }, btree.Options{NoLocks: true})
	return ix, nil
}

// fieldValue is bsonkit.All for an index field, with a quick path for a top-level name.
func fieldValue(doc bsonkit.Doc, path string) (interface{}, bool) {
	if strings.IndexByte(path, '.') >= 0 {
		return bsonkit.All(doc, path, true, true)
	}
	for _, e := range *doc {
		if e.Key == path {
			return e.Value, false
		}
	}
	return bsonkit.Missing, false
}

// compareEntries orders by key, then by insertion sequence.
func compareEntries(a, b entry) int {
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.doc.seq, b.doc.seq)
}

func (ix *Index) encode(values []interface{}) []byte {
	b := make([]byte, 0, 16*len(values))
	for i, f := range ix.fields {
		b = appendKey(b, values[i], f.desc)
	}
	return b
}

func (ix *Index) isID() bool { return len(ix.fields) == 1 && ix.fields[0].path == "_id" }

// keysOf lists a document's keys in this index: the cartesian product of its fields' values,
// each array contributing its elements. A missing field is null, as in MongoDB.
func (ix *Index) keysOf(doc bsonkit.Doc) (ks keySet, present bool) {
	keys := [][]interface{}{{}}
	for _, f := range ix.fields {
		var values []interface{}
		v, multi := fieldValue(doc, f.path)
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
	ks.values = keys
	ks.enc = make([][]byte, len(keys))
	for i, k := range keys {
		ks.enc[i] = ix.encode(k)
	}
	return ks, present
}

func isArray(v interface{}) bool { _, ok := v.(bson.A); return ok }

func uniqueValues(arr bson.A) []interface{} {
	out := make([]interface{}, 0, len(arr))
	seen := make(map[string]struct{}, len(arr))
	var others []interface{} // values without an exact key (documents, decimals): compared in turn
outer:
	for _, v := range arr {
		if k, ok := setKey(v); ok {
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
		} else {
			for _, o := range others {
				if bsonkit.Compare(o, v) == 0 {
					continue outer
				}
			}
			others = append(others, v)
		}
		out = append(out, v)
	}
	return out
}

// conflict returns the document already holding one of the keys in a unique index, other than
// doc itself, and that key; or nil.
func (ix *Index) conflict(ks keySet, doc *record) (*record, []interface{}) {
	if !ix.unique {
		return nil, nil
	}
	for i, k := range ks.enc {
		var found *record
		ix.tree.Ascend(entry{key: k, doc: &record{seq: 0}}, func(e entry) bool {
			if !bytes.Equal(e.key, k) {
				return false
			}
			if e.doc != doc {
				found = e.doc
				return false
			}
			return true
		})
		if found != nil {
			return found, ks.values[i]
		}
	}
	return nil, nil
}

// build fills an empty index with the collection's documents at once: sorted, then loaded into
// the tree in order, much faster than one insertion at a time. It checks unique keys.
func (ix *Index) build(c *Collection) error {
	var entries []entry
	c.natural.Scan(func(r *record) bool {
		ks, present := ix.keysOf(r.doc)
		if ix.skips(present) {
			return true
		}
		if len(ks.enc) > 1 {
			ix.multi = true
		}
		for _, k := range ks.enc {
			entries = append(entries, entry{key: k, doc: r})
		}
		return true
	})
	slices.SortFunc(entries, compareEntries)
	for n, e := range entries {
		if ix.unique && n > 0 && bytes.Equal(entries[n-1].key, e.key) && entries[n-1].doc != e.doc {
			ix.tree.Clear()
			ks, _ := ix.keysOf(e.doc.doc)
			for i, k := range ks.enc {
				if bytes.Equal(k, e.key) {
					return ix.dupKeyError(c.ns(), ks.values[i])
				}
			}
			return ix.dupKeyError(c.ns(), ks.values[0])
		}
		ix.tree.Load(e)
	}
	return nil
}

func (ix *Index) add(ks keySet, doc *record) {
	if len(ks.enc) > 1 {
		ix.multi = true
	}
	for _, k := range ks.enc {
		ix.tree.Set(entry{key: k, doc: doc})
	}
}

func (ix *Index) remove(ks keySet, doc *record) {
	for _, k := range ks.enc {
		ix.tree.Delete(entry{key: k, doc: doc})
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
