package main

import (
	"reflect"
	"testing"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
)

func TestGroupByDocumentWithAccumulators(t *testing.T) {
	rows := []bson.D{
		{{Key: "c", Value: int32(1)}, {Key: "t", Value: "a"}, {Key: "m", Value: int32(5)}},
		{{Key: "c", Value: int32(1)}, {Key: "t", Value: "b"}, {Key: "m", Value: int32(6)}},
		{{Key: "c", Value: int32(1)}, {Key: "t", Value: "a"}, {Key: "m", Value: int32(3)}},
		{{Key: "c", Value: nil}, {Key: "m", Value: int32(9)}},
	}
	docs := bsonkit.List{}
	for i := range rows {
		docs = append(docs, &rows[i])
	}
	spec := bson.D{
		{Key: "_id", Value: bson.D{{Key: "c", Value: "$c"}, {Key: "t", Value: "$t"}}},
		{Key: "ids", Value: bson.D{{Key: "$push", Value: "$m"}}},
		{Key: "low", Value: bson.D{{Key: "$min", Value: "$m"}}},
		{Key: "high", Value: bson.D{{Key: "$max", Value: "$m"}}},
		{Key: "first", Value: bson.D{{Key: "$first", Value: "$m"}}},
		{Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}},
	}
	out, err := group(spec, docs)
	if err != nil {
		t.Fatal(err)
	}
	want := []bson.D{
		{{Key: "_id", Value: bson.D{{Key: "c", Value: int32(1)}, {Key: "t", Value: "a"}}}, {Key: "ids", Value: bson.A{int32(5), int32(3)}}, {Key: "low", Value: int32(3)}, {Key: "high", Value: int32(5)}, {Key: "first", Value: int32(5)}, {Key: "n", Value: int32(2)}},
		{{Key: "_id", Value: bson.D{{Key: "c", Value: int32(1)}, {Key: "t", Value: "b"}}}, {Key: "ids", Value: bson.A{int32(6)}}, {Key: "low", Value: int32(6)}, {Key: "high", Value: int32(6)}, {Key: "first", Value: int32(6)}, {Key: "n", Value: int32(1)}},
		{{Key: "_id", Value: bson.D{{Key: "c", Value: nil}, {Key: "t", Value: nil}}}, {Key: "ids", Value: bson.A{int32(9)}}, {Key: "low", Value: int32(9)}, {Key: "high", Value: int32(9)}, {Key: "first", Value: int32(9)}, {Key: "n", Value: int32(1)}},
	}
	if len(out) != len(want) {
		t.Fatalf("%d groups, want %d: %v", len(out), len(want), out)
	}
	for i := range want {
		if !reflect.DeepEqual(*out[i], want[i]) {
			t.Errorf("group %d: %v, want %v", i, *out[i], want[i])
		}
	}
}
