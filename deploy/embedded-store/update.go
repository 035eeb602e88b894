package main

import (
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Applying an update statement's document to a collection: operators (lungo's, as MongoDB) or a
// replacement, and the document an upsert inserts. The update commands are writes.go's.

// update applies an update document (operators, or a replacement) to a copy of the record's
// document and stores it; it reports whether the document changed.
func (c *Collection) update(r *record, query, update bsonkit.Doc, arrayFilters bsonkit.List) (bsonkit.Doc, bool, error) {
	doc := bsonkit.Clone(r.doc)
	if isOperatorUpdate(update) {
		if _, err := mongokit.Apply(doc, query, update, false, arrayFilters); err != nil {
			return nil, false, cmdError(9, "FailedToParse", err.Error())
		}
	} else {
		doc = replacement(r.doc, update)
	}
	if bsonkit.Compare(*doc, *r.doc) == 0 {
		return r.doc, false, nil
	}
	if err := c.replace(r, doc); err != nil {
		return nil, false, err
	}
	return doc, true, nil
}

// upsert inserts the document an update with upsert:true creates when nothing matched.
func (c *Collection) upsert(query, update bsonkit.Doc, arrayFilters bsonkit.List) (bsonkit.Doc, error) {
	var doc bsonkit.Doc
	if isOperatorUpdate(update) {
		base, err := mongokit.Extract(query)
		if err != nil {
			return nil, cmdError(2, "BadValue", err.Error())
		}
		doc = base
		if _, err := mongokit.Apply(doc, query, update, true, arrayFilters); err != nil {
			return nil, cmdError(9, "FailedToParse", err.Error())
		}
	} else {
		doc = bsonkit.Clone(update)
		if id := bsonkit.Get(doc, "_id"); id == bsonkit.Missing {
			if base, err := mongokit.Extract(query); err == nil {
				if qid := bsonkit.Get(base, "_id"); qid != bsonkit.Missing {
					*doc = append(bson.D{{Key: "_id", Value: qid}}, *doc...)
				}
			}
		}
	}
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		*doc = append(bson.D{{Key: "_id", Value: primitive.NewObjectID()}}, *doc...)
	} else {
		moveIDFirst(doc)
	}
	if err := c.insert(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func isOperatorUpdate(update bsonkit.Doc) bool {
	return len(*update) > 0 && len((*update)[0].Key) > 0 && (*update)[0].Key[0] == '$'
}

func replacement(old, repl bsonkit.Doc) bsonkit.Doc {
	doc := bson.D{{Key: "_id", Value: bsonkit.Get(old, "_id")}}
	for _, e := range *bsonkit.Clone(repl) {
		if e.Key == "_id" {
			doc[0].Value = e.Value
			continue
		}
		doc = append(doc, e)
	}
	return &doc
}

func moveIDFirst(doc bsonkit.Doc) {
	for i, e := range *doc {
		if e.Key == "_id" {
			if i > 0 {
				d := append(bson.D{e}, (*doc)[:i]...)
				*doc = append(d, (*doc)[i+1:]...)
			}
			return
		}
	}
}
