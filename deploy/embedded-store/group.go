package main

import (
	"fmt"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
)

// The $group stage of aggregate.

// group runs $group: an _id that is a constant, a "$field", or a document of those; and the
// accumulators $sum, $push, $min, $max and $first of a "$field" (or, for $sum, a constant).
func group(spec interface{}, docs bsonkit.List) (bsonkit.List, error) {
	g, isDoc := spec.(bson.D)
	if !isDoc {
		return nil, cmdError(15947, "Location15947", "a group's fields must be specified in an object")
	}
	type field struct {
		name, op string
		arg      interface{}
	}
	var idSpec interface{}
	var fields []field
	for _, e := range g {
		if e.Key == "_id" {
			idSpec = e.Value
			continue
		}
		op, isDoc := e.Value.(bson.D)
		if !isDoc || len(op) != 1 {
			return nil, cmdError(40234, "Location40234", fmt.Sprintf("The field '%s' must be an accumulator object", e.Key))
		}
		switch op[0].Key {
		case "$sum", "$push", "$min", "$max", "$first":
		default:
			return nil, cmdError(15952, "Location15952", fmt.Sprintf("unsupported accumulator %s for %s (the embedded store runs $sum, $push, $min, $max and $first)", op[0].Key, e.Key))
		}
		fields = append(fields, field{name: e.Key, op: op[0].Key, arg: op[0].Value})
	}
	type acc struct {
		id     interface{}
		sums   map[string]float64
		ints   map[string]bool
		values map[string]interface{} // $push (bson.A), $min, $max, $first
	}
	var order []*acc
	groups := map[string]*acc{}
	for _, doc := range docs {
		id := evalGroupValue(doc, idSpec)
		if d, isDoc := idSpec.(bson.D); isDoc {
			parts := make(bson.D, len(d))
			for i, e := range d {
				parts[i] = bson.E{Key: e.Key, Value: evalGroupValue(doc, e.Value)}
			}
			id = parts
		}
		k := groupKey(id)
		a := groups[k]
		if a == nil {
			a = &acc{id: id, sums: map[string]float64{}, ints: map[string]bool{}, values: map[string]interface{}{}}
			groups[k] = a
			order = append(order, a)
		}
		for _, f := range fields {
			v := evalGroupValue(doc, f.arg)
			switch f.op {
			case "$sum":
				if n, isNum := number(v); isNum {
					a.sums[f.name] += n
				}
				if _, isDouble := v.(float64); !isDouble {
					a.ints[f.name] = true
				}
			case "$push":
				list, _ := a.values[f.name].(bson.A)
				a.values[f.name] = append(list, v)
			case "$first":
				if _, set := a.values[f.name]; !set {
					a.values[f.name] = v
				}
			case "$min", "$max":
				if v == nil {
					continue // null and missing values are ignored, as in MongoDB
				}
				cur, set := a.values[f.name]
				c := 0
				if set {
					c = bsonkit.Compare(v, cur)
				}
				if !set || (f.op == "$min" && c < 0) || (f.op == "$max" && c > 0) {
					a.values[f.name] = v
				}
			}
		}
	}
	out := make(bsonkit.List, 0, len(order))
	for _, a := range order {
		d := bson.D{{Key: "_id", Value: a.id}}
		for _, f := range fields {
			switch {
			case f.op != "$sum":
				v := a.values[f.name]
				if v == nil && f.op == "$push" {
					v = bson.A{}
				}
				d = append(d, bson.E{Key: f.name, Value: v})
			case a.ints[f.name]:
				d = append(d, bson.E{Key: f.name, Value: int32(a.sums[f.name])})
			default:
				d = append(d, bson.E{Key: f.name, Value: a.sums[f.name]})
			}
		}
		out = append(out, &d)
	}
	return out, nil
}

// groupKey: a document _id of numbers, strings and nulls as their index key encodings (cheaper
// than encoding the document per row; values that compare equal get one key, as in MongoDB), any
// other _id as idKey.
func groupKey(id interface{}) string {
	d, isDoc := id.(bson.D)
	if !isDoc {
		return idKey(id)
	}
	key := []byte{classDocument}
	for _, e := range d {
		switch e.Value.(type) {
		case nil, int32, int64, float64, string:
			key = appendString(key, e.Key)
			key = appendValue(key, e.Value)
		default:
			return idKey(id)
		}
	}
	return string(key)
}

// evalGroupValue is a "$field" path's value in the document (null when missing), or the constant.
func evalGroupValue(doc bsonkit.Doc, spec interface{}) interface{} {
	if path, isStr := spec.(string); isStr && strings.HasPrefix(path, "$") {
		v := bsonkit.Get(doc, path[1:])
		if v == bsonkit.Missing {
			return nil
		}
		return v
	}
	return spec
}
