package main

import (
	"reflect"
	"testing"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// A projection that only names top-level fields to keep gives what lungo's projection gives.
func TestSimpleInclusionAsLungo(t *testing.T) {
	docs := []bson.D{
		{{Key: "_id", Value: "1:2"}, {Key: "a", Value: int32(1)}, {Key: "b", Value: bson.A{"x"}}, {Key: "c", Value: bson.D{{Key: "d", Value: true}}}},
		{{Key: "_id", Value: int32(7)}, {Key: "c", Value: nil}},
		{{Key: "_id", Value: int32(8)}},
	}
	projections := []bson.D{
		{{Key: "a", Value: int32(1)}},
		{{Key: "_id", Value: int32(0)}, {Key: "a", Value: int32(1)}, {Key: "c", Value: true}},
		{{Key: "b", Value: 1.0}, {Key: "_id", Value: false}},
		{{Key: "c", Value: int64(1)}, {Key: "missing", Value: int32(1)}},
	}
	for _, p := range projections {
		fields, keepID, ok := simpleInclusion(p)
		if !ok {
			t.Fatalf("%v: not taken as a simple inclusion", p)
		}
		for _, d := range docs {
			doc := d
			want, err := mongokit.ProjectList(bsonkit.List{bsonkit.Doc(&doc)}, bsonkit.Doc(&p))
			if err != nil {
				t.Fatal(err)
			}
			got := include(bsonkit.Doc(&doc), fields, keepID)
			if !reflect.DeepEqual(*want[0], *got) {
				t.Errorf("%v on %v: lungo %v, ours %v", p, d, *want[0], *got)
			}
		}
	}
	for _, p := range []bson.D{
		{{Key: "a", Value: int32(0)}},
		{{Key: "_id", Value: int32(0)}},
		{{Key: "a.b", Value: int32(1)}},
		{{Key: "a", Value: bson.D{{Key: "$slice", Value: int32(1)}}}},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(0)}},
	} {
		if _, _, ok := simpleInclusion(p); ok {
			t.Errorf("%v taken as a simple inclusion", p)
		}
	}
}
