package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/bson"
)

// indexField is one field of an index key pattern.
type indexField struct {
	path string
	desc bool
}

// keySet is a document's keys in one index: the values (for error messages) and their encodings.
type keySet struct {
	values [][]interface{}
	enc    [][]byte
}

// Index is a key pattern's entries in Pebble: P 'i' <name> 0x00 <key> <_id key>, one per key of
// each document (keyenc.go); a document whose indexed field holds an array has one entry per
// element (a multikey index, as in MongoDB). The _id_ index has no entries: the documents, keyed
// by their _id, are it.
type Index struct {
	name    string
	fields  []indexField
	unique  bool
	sparse  bool
	spec    bson.D // as given to createIndexes, for listIndexes and the catalog
	multi   bool   // some document produced more than one entry
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

func (ix *Index) encode(values []interface{}) []byte {
	b := make([]byte, 0, 16*len(values))
	for i, f := range ix.fields {
		b = appendKey(b, values[i], f.desc)
	}
	return b
}

func (ix *Index) isID() bool { return len(ix.fields) == 1 && ix.fields[0].path == "_id" }

// primary: the _id_ index, whose entries are the documents' keys.
func (ix *Index) primary() bool { return ix.name == "_id_" }

// split cuts an index entry (after the index's prefix) into its key and its document's _id key.
func (ix *Index) split(entry []byte) (key, id []byte) {
	if ix.primary() {
		return entry, entry
	}
	n := 0
	for _, f := range ix.fields {
		if n >= len(entry) {
			break
		}
		n += keyLen(entry[n:], f.desc)
	}
	if n > len(entry) {
		n = len(entry)
	}
	return entry[:n], entry[n:]
}

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

// conflict returns a key of ks that another document than self already holds in a unique
// index (one seek per key), or nil.
func (c *Collection) conflict(ix *Index, ks keySet, self []byte) ([]interface{}, error) {
	if !ix.unique {
		return nil, nil
	}
	r := c.store().r()
	for i, k := range ks.enc {
		if ix.primary() {
			if bytes.Equal(k, self) {
				continue
			}
			raw, err := get(r, c.docKey(k))
			if err != nil {
				return nil, err
			}
			if raw != nil {
				return ks.values[i], nil
			}
			continue
		}
		lower := entryKey(c.entriesPrefix(ix), k, nil)
		upper, _ := successor(lower)
		it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			return nil, err
		}
		found := false
		for ok := it.First(); ok && !found; ok = it.Next() {
			found = !bytes.Equal(it.Key()[len(lower):], self)
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return nil, err
		}
		if found {
			return ks.values[i], nil
		}
	}
	return nil, nil
}

// build writes a new index's entries for the collection's documents, in the command's batch,
// checking unique keys first (sorted, so a duplicate is two neighbours).
func (ix *Index) build(c *Collection) error {
	type pending struct {
		key, id []byte
		values  []interface{}
	}
	var entries []pending
	err := c.scanDocs(false, func(r *record) (bool, error) {
		ks, present := ix.keysOf(r.doc)
		if ix.skips(present) {
			return true, nil
		}
		if len(ks.enc) > 1 {
			ix.multi = true
		}
		for i, k := range ks.enc {
			entries = append(entries, pending{key: k, id: r.id, values: ks.values[i]})
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if ix.unique {
		slices.SortFunc(entries, func(a, b pending) int { return bytes.Compare(a.key, b.key) })
		for n := 1; n < len(entries); n++ {
			if bytes.Equal(entries[n-1].key, entries[n].key) && !bytes.Equal(entries[n-1].id, entries[n].id) {
				return ix.dupKeyError(c.ns(), entries[n].values)
			}
		}
	}
	base := c.entriesPrefix(ix)
	for _, e := range entries {
		if err := c.store().batch.Set(entryKey(base, e.key, e.id), nil, nil); err != nil {
			return err
		}
	}
	return nil
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
