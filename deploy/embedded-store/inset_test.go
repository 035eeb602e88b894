package main

import (
	"testing"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// A long $in or $nin list matches exactly the documents lungo's own matcher matches.
func TestInSetMatchesAsLungo(t *testing.T) {
	list := bson.A{}
	for i := int64(0); i < 40; i += 2 {
		list = append(list, i)
	}
	list = append(list, "x", 7.5)
	docs := []bson.D{
		{{Key: "a", Value: int32(4)}},
		{{Key: "a", Value: 4.0}},
		{{Key: "a", Value: int64(5)}},
		{{Key: "a", Value: 7.5}},
		{{Key: "a", Value: "x"}},
		{{Key: "a", Value: "y"}},
		{{Key: "a", Value: nil}},
		{{Key: "b", Value: int32(4)}},
		{{Key: "a", Value: bson.A{int32(1), int32(3), int32(6)}}},
		{{Key: "a", Value: bson.A{int32(1), int32(3)}}},
		{{Key: "a", Value: bson.A{}}},
		{{Key: "a", Value: bson.A{bson.D{{Key: "c", Value: int32(2)}}, bson.D{{Key: "c", Value: int32(3)}}}}},
		{{Key: "a", Value: bson.D{{Key: "c", Value: int32(8)}}}},
		{{Key: "a", Value: primitive.NewDecimal128(0, 10)}},
		{{Key: "a", Value: mustDecimal("6")}},
		{{Key: "a", Value: true}},
	}
	for _, op := range []string{"$in", "$nin"} {
		for _, path := range []string{"a", "a.c"} {
			plain := bson.D{{Key: path, Value: bson.D{{Key: op, Value: list}}}}
			prepared, err := prepareFilter(&plain)
			if err != nil {
				t.Fatal(err)
			}
			if _, isSet := (*prepared)[0].Value.(bson.D)[0].Value.(*inSet); !isSet {
				t.Fatalf("%s list of %d was not made a set", op, len(list))
			}
			for _, d := range docs {
				doc := d
				want, err1 := mongokit.Match(bsonkit.Doc(&doc), bsonkit.Doc(&plain))
				got, err2 := mongokit.Match(bsonkit.Doc(&doc), prepared)
				if err1 != nil || err2 != nil || want != got {
					t.Errorf("%s %s on %v: lungo %v (%v), set %v (%v)", path, op, d, want, err1, got, err2)
				}
			}
		}
	}
}

func mustDecimal(s string) primitive.Decimal128 {
	d, err := primitive.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}
