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
			out[i] = include(d, fields, keepID)
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
