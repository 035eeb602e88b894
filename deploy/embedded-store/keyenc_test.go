package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Encoded keys must sort exactly as MongoDB orders the values, both ways, and say where they end.
func TestKeyOrder(t *testing.T) {
	oid := primitive.NewObjectID()
	values := []interface{}{
		nil, math.Inf(-1), int64(-1 << 60), int32(-5), -4.5, int32(0), 0.5, int32(1), int64(2), 2.5, float64(1 << 53), int64(1<<53 + 1), int64(1 << 62), math.Inf(1),
		"", "\x00", "\x00a", "a", "a\x00", "ab", "b", "é",
		bson.D{{Key: "a", Value: int32(1)}}, bson.A{}, primitive.Binary{Data: []byte{1}}, oid,
		false, true, primitive.DateTime(-5), primitive.DateTime(7), primitive.Timestamp{T: 1, I: 2},
	}
	for _, desc := range []bool{false, true} {
		for _, a := range values {
			for _, b := range values {
				want := bsonkit.Compare(a, b)
				if desc {
					want = -want
				}
				ka, kb := appendKey(nil, a, desc), appendKey(nil, b, desc)
				got := bytes.Compare(ka, kb)
				if sign(got) != sign(want) {
					t.Errorf("desc=%v: %v vs %v: encoded order %d, MongoDB's %d", desc, a, b, got, want)
				}
				if n := keyLen(append(ka, 0x42), desc); n != len(ka) {
					t.Errorf("desc=%v: %v: keyLen %d, encoded %d bytes", desc, a, n, len(ka))
				}
			}
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Numbers of different types that are equal get one key: 5, 5.0 and int64 5 are one _id.
func TestEqualNumbersShareAKey(t *testing.T) {
	for _, v := range []interface{}{int64(5), 5.0} {
		if !bytes.Equal(appendKey(nil, int32(5), false), appendKey(nil, v, false)) {
			t.Errorf("%T 5 encodes differently from int32 5", v)
		}
	}
	if idKey(int32(5)) != idKey(5.0) || idKey(int64(5)) != idKey(int32(5)) {
		t.Error("idKey differs for equal numbers")
	}
}
