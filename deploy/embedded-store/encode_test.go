package main

import (
	"bytes"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// The direct encoder writes the bytes the driver's encoder writes, for every kind of value.
func TestEncodeDocumentAsDriver(t *testing.T) {
	inner, _ := bson.Marshal(bson.D{{Key: "x", Value: int32(1)}})
	dec, _ := primitive.ParseDecimal128("12.5")
	d := bson.D{
		{Key: "_id", Value: "1:2"},
		{Key: "i32", Value: int32(-7)},
		{Key: "i64", Value: int64(1) << 40},
		{Key: "f", Value: 2.5},
		{Key: "nan", Value: math.NaN()},
		{Key: "negzero", Value: math.Copysign(0, -1)},
		{Key: "t", Value: true},
		{Key: "n", Value: nil},
		{Key: "date", Value: primitive.DateTime(1_700_000_000_000)},
		{Key: "doc", Value: bson.D{{Key: "a", Value: bson.A{"x", int32(2), bson.D{{Key: "b", Value: false}}, bson.A{}}}}},
		{Key: "raw", Value: bson.Raw(inner)},
		{Key: "oid", Value: primitive.NewObjectID()},
		{Key: "bin", Value: primitive.Binary{Subtype: 0, Data: []byte{1, 2}}},
		{Key: "re", Value: primitive.Regex{Pattern: "^a", Options: "i"}},
		{Key: "dec", Value: dec},
		{Key: "ts", Value: primitive.Timestamp{T: 1, I: 2}},
		{Key: "min", Value: primitive.MinKey{}},
		{Key: "max", Value: primitive.MaxKey{}},
		{Key: "undef", Value: primitive.Undefined{}},
		{Key: "ünïcode", Value: "ü\u2028"},
	}
	want, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeDocument(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("encodings differ:\n driver %x\n direct %x", want, got)
	}
	reply := bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{bson.Raw(want), bson.Raw(inner)}}, {Key: "id", Value: int64(0)}}}, {Key: "ok", Value: 1.0}}
	wantReply, _ := bson.Marshal(reply)
	gotReply, err := encodeReply(reply)
	if err != nil || !bytes.Equal(wantReply, gotReply) {
		t.Fatalf("reply encodings differ (%v)", err)
	}
}
