package main

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// decodeFields decodes the fields to decode as decodeDoc does, and keeps those to keep as stored,
// both in the document's order.
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
	pick := func(names []string) (map[string]struct{}, bson.D) {
		set, out := map[string]struct{}{}, bson.D{}
		for _, n := range names {
			set[n] = struct{}{}
		}
		for _, e := range whole {
			if _, ok := set[e.Key]; ok {
				out = append(out, e)
			}
		}
		return set, out
	}
	sets := [][]string{{}, {"_id"}, {"topic", "_id"}, {"edit_history", "none", "missing"}, {"_id", "words", "topic", "edit_history", "none"}}
	for _, decodeNames := range sets {
		for _, keepNames := range sets {
			for _, keepID := range []bool{false, true} {
				decode, wantDoc := pick(decodeNames)
				keep, _ := pick(keepNames)
				keptNames := keepNames
				if keepID {
					keptNames = append([]string{"_id"}, keepNames...)
				}
				_, wantKept := pick(keptNames)
				doc, kept, err := decodeFields(raw, &fieldSel{decode: decode, keep: keep, keepID: keepID})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(doc, wantDoc) {
					t.Errorf("decode %v: got %v, want %v", decodeNames, doc, wantDoc)
				}
				keptDoc, err := decodeDoc(kept)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(keptDoc, wantKept) {
					t.Errorf("keep %v (_id %v): got %v, want %v", keepNames, keepID, keptDoc, wantKept)
				}
			}
		}
	}
	if _, _, err := decodeFields(raw[:len(raw)-3], &fieldSel{decode: map[string]struct{}{"_id": {}}}); err == nil {
		t.Error("a truncated document decoded")
	}
}

// A find decodes the fields its filter and sort read, and keeps its projection's; an operator
// that may read any field decodes the whole document.
func TestFieldsOf(t *testing.T) {
	keep := map[string]struct{}{"content": {}}
	cases := []struct {
		filter bson.D
		sort   bson.D
		want   []string
	}{
		{bson.D{{Key: "channel_id", Value: 1}, {Key: "topic_key", Value: "x"}}, bson.D{{Key: "_id", Value: -1}}, []string{"_id", "channel_id", "topic_key"}},
		{bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a.b", Value: 1}}, bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "c", Value: 2}}}}}}}}, bson.D{{Key: "d.e", Value: 1}}, []string{"_id", "a", "c", "d"}},
		{bson.D{{Key: "$expr", Value: bson.D{}}}, nil, nil},
		{bson.D{{Key: "$where", Value: "true"}}, nil, nil},
	}
	for _, tc := range cases {
		o := findOpts{filter: &tc.filter, keep: keep}
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
		if got == nil || !reflect.DeepEqual(got.decode, want) || !reflect.DeepEqual(got.keep, keep) {
			t.Errorf("%v: got %v, want %v", tc.filter, got, want)
		}
	}
	if fieldsOf(findOpts{filter: &bson.D{}}) != nil {
		t.Error("no projection: not every field")
	}
}
