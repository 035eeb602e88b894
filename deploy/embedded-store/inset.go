package main

import (
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Long $in and $nin lists: lungo compares a document's value with each listed value in turn, so
// {_id: {$in: <20,000 IDs>}} cost 20,000 comparisons per document (over 4 s for 20,000
// documents). prepareCondition turns a list of more than inSetMin numbers and strings into an
// inSet, answered with one map lookup; the index key encoding makes 5 and 5.0 one key, as
// MongoDB's comparison does. Shorter lists, and lists holding other kinds of values, keep lungo's
// own matcher.

const inSetMin = 16

type inSet struct {
	values bson.A // as the filter listed them (the planner's equality bounds)
	keys   map[string]struct{}
}

// setKey is the value's key when it is a number or a string (the kinds an inSet holds).
func setKey(v interface{}) (string, bool) {
	switch v.(type) {
	case int32, int64, float64, string, primitive.Symbol:
		return string(appendValue(nil, v)), true
	}
	return "", false
}

func newInSet(arr bson.A) *inSet {
	if len(arr) <= inSetMin {
		return nil
	}
	keys := make(map[string]struct{}, len(arr))
	for _, v := range arr {
		k, ok := setKey(v)
		if !ok {
			return nil
		}
		keys[k] = struct{}{}
	}
	return &inSet{values: arr, keys: keys}
}

func (s *inSet) has(v interface{}) bool {
	if _, isDecimal := v.(primitive.Decimal128); isDecimal {
		// No exact key for a decimal: compared with each value, as lungo does.
		for _, item := range s.values {
			if bsonkit.Compare(v, item) == 0 {
				return true
			}
		}
		return false
	}
	k, ok := setKey(v)
	if !ok {
		return false
	}
	_, found := s.keys[k]
	return found
}

var lungoIn, lungoNin = mongokit.ExpressionQueryOperators["$in"], mongokit.ExpressionQueryOperators["$nin"]

func init() {
	mongokit.ExpressionQueryOperators["$in"] = matchIn
	mongokit.ExpressionQueryOperators["$nin"] = matchNin
}

// matchIn matches as lungo's $in does: an array field matches when one of its elements is listed
// (the array as a whole equals no listed number or string); a missing field matches no number or
// string.
func matchIn(ctx mongokit.Context, doc bsonkit.Doc, name, path string, v interface{}) error {
	set, isSet := v.(*inSet)
	if !isSet {
		return lungoIn(ctx, doc, name, path, v)
	}
	value, multi := bsonkit.All(doc, path, true, true)
	if arr, isArr := value.(bson.A); isArr {
		for _, item := range arr {
			if set.has(item) {
				return nil
			}
		}
		return mongokit.ErrNotMatched
	}
	if !multi && set.has(value) {
		return nil
	}
	return mongokit.ErrNotMatched
}

func matchNin(ctx mongokit.Context, doc bsonkit.Doc, name, path string, v interface{}) error {
	if _, isSet := v.(*inSet); !isSet {
		return lungoNin(ctx, doc, name, path, v)
	}
	switch err := matchIn(ctx, doc, name, path, v); err {
	case nil:
		return mongokit.ErrNotMatched
	case mongokit.ErrNotMatched:
		return nil
	default:
		return err
	}
}
