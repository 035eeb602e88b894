package main

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// decodeFields gives the named fields as decodeDoc gives them, in the document's order.
func TestDecodeFieldsAsDecodeDoc(t *testing.T) {
	doc := bson.D{
		{Key: "_id", Value: int32(7)},
		{Key: "words", Value: bson.A{"a", "b", bson.D{{Key: "x", Value: 1.5}}}},
		{Key: "topic", Value: "t"},
		{Key: "edit_history", Value: bson.A{bson.D{{Key: "user_id", Value: int64(3)}}}},
		{Key: "none", Value: nil},
	}
	raw, err := encodeDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := decodeDoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{{}, {"_id"}, {"topic", "_id"}, {"edit_history", "none", "missing"}, {"_id", "words", "topic", "edit_history", "none"}} {
		fields := map[string]struct{}{}
		for _, n := range names {
			fields[n] = struct{}{}
		}
		want := bson.D{}
		for _, e := range whole {
			if _, ok := fields[e.Key]; ok {
				want = append(want, e)
			}
		}
		got, err := decodeFields(raw, fields)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %v, want %v", names, got, want)
		}
	}
	if _, err := decodeFields(raw[:len(raw)-3], map[string]struct{}{"_id": {}}); err == nil {
		t.Error("a truncated document decoded")
	}
}

// A find decodes the fields its projection keeps and those its filter and sort read; an
// operator that may read any field decodes the whole document.
func TestFieldsOf(t *testing.T) {
	keep := map[string]struct{}{"content": {}}
	cases := []struct {
		filter bson.D
		sort   bson.D
		want   []string
	}{
		{bson.D{{Key: "channel_id", Value: 1}, {Key: "topic_key", Value: "x"}}, bson.D{{Key: "_id", Value: -1}}, []string{"_id", "content", "channel_id", "topic_key"}},
		{bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a.b", Value: 1}}, bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "c", Value: 2}}}}}}}}, bson.D{{Key: "d.e", Value: 1}}, []string{"_id", "content", "a", "c", "d"}},
		{bson.D{{Key: "$expr", Value: bson.D{}}}, nil, nil},
		{bson.D{{Key: "$where", Value: "true"}}, nil, nil},
	}
	for _, tc := range cases {
		o := findOpts{filter: &tc.filter, fields: keep}
		if tc.sort != nil {
			o.sort = &tc.sort
		}
		got := fieldsOf(o)
		if tc.want == nil {
			if got != nil {
				t.Errorf("%v: got %v, want every field", tc.filter, got)
			}
			continue
		}
		want := map[string]struct{}{}
		for _, f := range tc.want {
			want[f] = struct{}{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %v, want %v", tc.filter, got, want)
		}
	}
	if fieldsOf(findOpts{filter: &bson.D{}}) != nil {
		t.Error("no projection: not every field")
	}
}
