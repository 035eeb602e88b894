package main

import (
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// Projection of found documents: plain inclusions directly, anything else through lungo.

func project(list []*record, projection bsonkit.Doc) (bsonkit.List, error) {
	docs := make(bsonkit.List, len(list))
	for i, r := range list {
		docs[i] = r.doc
	}
	if projection == nil || len(*projection) == 0 {
		return docs, nil
	}
	if fields, keepID, ok := simpleInclusion(*projection); ok {
		out := make(bsonkit.List, len(docs))
		for i, d := range docs {
			if list[i].kept != nil {
				out[i] = encoded(list[i].kept)
			} else {
				out[i] = include(d, fields, keepID)
			}
		}
		return out, nil
	}
	out, err := mongokit.ProjectList(docs, projection)
	if err != nil {
		return nil, cmdError(2, "BadValue", err.Error())
	}
	return out, nil
}

// simpleInclusion reads a projection that only names top-level fields to keep ({a: 1, b: 1},
// with _id: 0 or 1): the common case, answered without lungo's general projection, which costs
// ten times as much. ok is false for anything else (paths, exclusions, operators, expressions).
func simpleInclusion(projection bson.D) (fields map[string]struct{}, keepID, ok bool) {
	fields, keepID = map[string]struct{}{}, true
	for _, e := range projection {
		if e.Key == "" || strings.ContainsAny(e.Key, ".$") {
			return nil, false, false
		}
		var on bool
		switch v := e.Value.(type) {
		case bool:
			on = v
		case int32, int64, float64:
			n, _ := number(v)
			on = n != 0
		default:
			return nil, false, false
		}
		if e.Key == "_id" {
			keepID = on
			continue
		}
		if !on {
			return nil, false, false
		}
		fields[e.Key] = struct{}{}
	}
	return fields, keepID, len(fields) > 0
}

// encodedKey marks a document already encoded (a find's kept fields, copied as stored): no BSON
// key can hold a NUL byte, so no document has it.
const encodedKey = "\x00encoded"

// encoded wraps a document's BSON for a cursor's batch (take), which sends it as it is.
func encoded(raw []byte) bsonkit.Doc {
	return &bson.D{{Key: encodedKey, Value: bson.Raw(raw)}}
}

// encodedBytes is an encoded document's BSON, if it is one.
func encodedBytes(d bsonkit.Doc) (bson.Raw, bool) {
	if len(*d) != 1 || (*d)[0].Key != encodedKey {
		return nil, false
	}
	raw, ok := (*d)[0].Value.(bson.Raw)
	return raw, ok
}

// include keeps the document's fields that are named (and _id), in the document's order.
func include(doc bsonkit.Doc, fields map[string]struct{}, keepID bool) bsonkit.Doc {
	out := make(bson.D, 0, len(fields)+1)
	for _, e := range *doc {
		if _, named := fields[e.Key]; named || (keepID && e.Key == "_id") {
			out = append(out, e)
		}
	}
	return &out
}
