package main

import (
	"fmt"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// record is one stored document, decoded, with its _id's key (keyenc.go). A read decodes a fresh
// copy, so a document handed to a reply stays as it was read.
type record struct {
	id  []byte
	doc bsonkit.Doc
	// kept: with a fieldSel, the document of the fields the find keeps, as BSON (its answer).
	kept []byte
}

// Collection is one collection's catalog entry: its key prefix, indexes and document count. Its
// documents and index entries are in Pebble (engine.go); the store's lock guards it.
type Collection struct {
	db      *Database
	name    string
	prefix  []byte
	indexes []*Index
	count   int64
	dropped bool
}

func newCollection(db *Database, name string) *Collection {
	c := &Collection{db: db, name: name, prefix: collPrefix(db.name, name)}
	id, _ := newIndex(bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}})
	id.unique = true
	c.indexes = []*Index{id}
	return c
}

func (c *Collection) ns() string { return c.db.name + "." + c.name }

func (c *Collection) store() *Store { return c.db.store }

func (c *Collection) index(name string) *Index {
	for _, ix := range c.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

func idKeyOf(doc bsonkit.Doc) []byte { return appendKey(nil, bsonkit.Get(doc, "_id"), false) }

// load reads the document stored under an _id key, or nil.
func (c *Collection) load(id []byte) (*record, error) {
	return c.loadFields(id, nil)
}

// loadFields loads a document as `sel` asks (nil: decoded whole).
func (c *Collection) loadFields(id []byte, sel *fieldSel) (*record, error) {
	raw, err := get(c.store().r(), c.docKey(id))
	if raw == nil || err != nil {
		return nil, err
	}
	return decodeRecordFields(id, raw, sel)
}

func decodeRecord(id, raw []byte) (*record, error) {
	return decodeRecordFields(id, raw, nil)
}

// decodeRecordFields decodes a stored document whole (sel nil), or as `sel` asks.
func decodeRecordFields(id, raw []byte, sel *fieldSel) (*record, error) {
	var doc bson.D
	var kept []byte
	var err error
	if sel == nil {
		doc, err = decodeDoc(raw)
	} else {
		doc, kept, err = decodeFields(raw, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("stored document %x: %w", id, err)
	}
	return &record{id: id, doc: &doc, kept: kept}, nil
}

// byIDKey looks a document up by its _id directly.
func (c *Collection) byIDKey(id interface{}) (*record, error) {
	return c.load(appendKey(nil, id, false))
}

// put writes a document's BSON in the command's batch.
func (c *Collection) put(id []byte, doc bsonkit.Doc) error {
	raw, err := encodeDocument(*doc)
	if err != nil {
		return cmdError(2, "BadValue", err.Error())
	}
	if len(raw) > maxBSONSize {
		return cmdError(10334, "BSONObjectTooLarge", fmt.Sprintf("object to insert too large: %d bytes", len(raw)))
	}
	return c.store().batch.Set(c.docKey(id), raw, nil)
}

// insert adds a new document (with an _id) after checking every unique index.
func (c *Collection) insert(doc bsonkit.Doc) error {
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		*doc = append(bson.D{{Key: "_id", Value: primitive.NewObjectID()}}, *doc...)
	}
	if isArray(bsonkit.Get(doc, "_id")) {
		return cmdError(2, "BadValue", "can't use an array for _id")
	}
	id := idKeyOf(doc)
	keys, err := c.checkUnique(doc, nil)
	if err != nil {
		return err
	}
	if err := c.put(id, doc); err != nil {
		return err
	}
	for i, ix := range c.indexes {
		if err := c.addEntries(ix, keys[i].enc, id); err != nil {
			return err
		}
	}
	c.count++
	c.store().changed(c)
	return nil
}

// checkUnique computes the document's keys in every index and refuses a duplicate in a unique
// one (other than the document self itself, when it is stored already).
func (c *Collection) checkUnique(doc bsonkit.Doc, self []byte) ([]keySet, error) {
	all := make([]keySet, len(c.indexes))
	for i, ix := range c.indexes {
		keys, present := ix.keysOf(doc)
		if ix.skips(present) {
			continue
		}
		key, err := c.conflict(ix, keys, self)
		if err != nil {
			return nil, err
		}
		if key != nil {
			return nil, ix.dupKeyError(c.ns(), key)
		}
		all[i] = keys
	}
	return all, nil
}

// addEntries writes a document's entries in an index (none for _id_: the documents are it).
func (c *Collection) addEntries(ix *Index, keys [][]byte, id []byte) error {
	if ix.primary() || len(keys) == 0 {
		return nil
	}
	if len(keys) > 1 && !ix.multi {
		ix.multi = true
		c.store().changed(c)
	}
	base := c.entriesPrefix(ix)
	for _, k := range keys {
		if err := c.store().batch.Set(entryKey(base, k, id), nil, nil); err != nil {
			return err
		}
	}
	return nil
}

func (c *Collection) removeEntries(ix *Index, keys [][]byte, id []byte) error {
	if ix.primary() {
		return nil
	}
	base := c.entriesPrefix(ix)
	for _, k := range keys {
		if err := c.store().batch.Delete(entryKey(base, k, id), nil); err != nil {
			return err
		}
	}
	return nil
}

func entryKey(base, key, id []byte) []byte {
	k := make([]byte, 0, len(base)+len(key)+len(id))
	return append(append(append(k, base...), key...), id...)
}

// replace stores a new version of a document, rewriting only the index entries that changed.
func (c *Collection) replace(old *record, doc bsonkit.Doc) error {
	if bsonkit.Compare(bsonkit.Get(old.doc, "_id"), bsonkit.Get(doc, "_id")) != 0 {
		return cmdError(66, "ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'")
	}
	// Check unique indexes against everything but the old version of this document.
	keys, err := c.checkUnique(doc, old.id)
	if err != nil {
		return err
	}
	if err := c.put(old.id, doc); err != nil {
		return err
	}
	for i, ix := range c.indexes {
		if ix.primary() {
			continue
		}
		oldKeys, present := ix.keysOf(old.doc)
		var before [][]byte
		if !ix.skips(present) {
			before = oldKeys.enc
		}
		gone, added := diffKeys(before, keys[i].enc)
		if err := c.removeEntries(ix, gone, old.id); err != nil {
			return err
		}
		if err := c.addEntries(ix, added, old.id); err != nil {
			return err
		}
	}
	return nil
}

// diffKeys: the keys only in before, and those only in after.
func diffKeys(before, after [][]byte) (gone, added [][]byte) {
	in := func(k []byte, list [][]byte) bool {
		for _, o := range list {
			if string(o) == string(k) {
				return true
			}
		}
		return false
	}
	for _, k := range before {
		if !in(k, after) {
			gone = append(gone, k)
		}
	}
	for _, k := range after {
		if !in(k, before) {
			added = append(added, k)
		}
	}
	return gone, added
}

func (c *Collection) delete(r *record) error {
	for _, ix := range c.indexes {
		keys, present := ix.keysOf(r.doc)
		if ix.skips(present) {
			continue
		}
		if err := c.removeEntries(ix, keys.enc, r.id); err != nil {
			return err
		}
	}
	if err := c.store().batch.Delete(c.docKey(r.id), nil); err != nil {
		return err
	}
	c.count--
	c.store().changed(c)
	return nil
}

// createIndex adds an index and builds it, or does nothing when an equal one exists.
func (c *Collection) createIndex(spec bson.D) (bool, error) {
	ix, err := newIndex(spec)
	if err != nil {
		return false, err
	}
	for _, other := range c.indexes {
		sameKey := bsonkit.Compare(other.keySpec, ix.keySpec) == 0
		if other.name == ix.name || sameKey {
			if sameKey && other.name == ix.name && other.unique == ix.unique && other.sparse == ix.sparse {
				return false, nil
			}
			if other.name == ix.name {
				return false, cmdError(86, "IndexKeySpecsConflict", fmt.Sprintf("An existing index has the same name as the requested index but different options: %s", ix.name))
			}
			return false, cmdError(85, "IndexOptionsConflict", fmt.Sprintf("Index already exists with a different name: %s", other.name))
		}
	}
	if err := ix.build(c); err != nil {
		return false, err
	}
	c.indexes = append(c.indexes, ix)
	c.store().changed(c)
	return true, nil
}

func (c *Collection) dropIndex(name string) error {
	for i, ix := range c.indexes {
		if ix.name == name {
			if ix.isID() {
				return cmdError(72, "InvalidOptions", "cannot drop _id index")
			}
			base := c.entriesPrefix(ix)
			end, _ := successor(base)
			if err := c.store().batch.DeleteRange(base, end, nil); err != nil {
				return err
			}
			c.indexes = append(c.indexes[:i], c.indexes[i+1:]...)
			c.store().changed(c)
			return nil
		}
	}
	return cmdError(27, "IndexNotFound", fmt.Sprintf("index not found with name [%s]", name))
}
