// Code copied from ../keyenc.go (package main of the store) so this package can encode index keys
// exactly as the store does; keyenc_sync_test.go fails when the two differ. The migration moves
// the original into a package both import and deletes this copy.

package engines

import (
	"encoding/binary"
	"math"
	"strconv"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Index keys are encoded as bytes that sort as MongoDB orders their values (BSON comparison
// order: null, numbers, strings, documents, arrays, binary, ObjectId, booleans, dates,
// timestamps, regular expressions), so an index compares keys with one bytes.Compare. Each
// value's encoding is self-delimiting; a descending field's bytes are inverted.

const (
	classMin       = 0x00 // MinKey
	classNull      = 0x10
	classNumber    = 0x20
	classString    = 0x30
	classDocument  = 0x40
	classArray     = 0x50
	classBinary    = 0x60
	classObjectID  = 0x70
	classBool      = 0x80
	classDate      = 0x90
	classTimestamp = 0xA0
	classRegex     = 0xB0
	classMax       = 0xFF // MaxKey
)

// appendKey appends the encoding of one value of an index field.
func appendKey(b []byte, v interface{}, desc bool) []byte {
	start := len(b)
	b = appendValue(b, v)
	if desc {
		for i := start; i < len(b); i++ {
			b[i] = ^b[i]
		}
	}
	return b
}

func appendValue(b []byte, v interface{}) []byte {
	switch t := v.(type) {
	case nil, primitive.Null, primitive.Undefined:
		return append(b, classNull)
	case int32:
		return appendNumber(b, float64(t), int64(t))
	case int64:
		return appendNumber(b, float64(t), t)
	case float64:
		return appendNumber(b, t, 0)
	case primitive.Decimal128:
		f, err := strconv.ParseFloat(t.String(), 64)
		if err != nil {
			f = math.NaN()
		}
		return appendNumber(b, f, 0)
	case string:
		return appendString(append(b, classString), t)
	case primitive.Symbol:
		return appendString(append(b, classString), string(t))
	case primitive.ObjectID:
		return append(append(b, classObjectID), t[:]...)
	case bool:
		if t {
			return append(b, classBool, 1)
		}
		return append(b, classBool, 0)
	case primitive.DateTime:
		return binary.BigEndian.AppendUint64(append(b, classDate), uint64(int64(t))^(1<<63))
	case primitive.Timestamp:
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(append(b, classTimestamp), t.T), t.I)
	case bson.D:
		return appendOpaque(append(b, classDocument), t)
	case bson.A:
		return appendOpaque(append(b, classArray), t)
	case primitive.Binary:
		return appendOpaque(append(b, classBinary), t)
	case primitive.Regex:
		return appendOpaque(append(b, classRegex), t)
	case primitive.MinKey:
		return append(b, classMin)
	case primitive.MaxKey:
		return append(b, classMax)
	}
	return appendOpaque(append(b, classRegex), v)
}

// appendNumber: int32, int64 and double share one order (5 == 5.0), as a sortable double; a
// double of 2^53 or more may stand for several integers, so the exact integer follows it then.
func appendNumber(b []byte, f float64, exact int64) []byte {
	b = append(b, classNumber)
	if math.IsNaN(f) {
		return append(b, 0, 0, 0, 0, 0, 0, 0, 0) // NaN sorts below every number, as in MongoDB
	}
	if f == 0 {
		f = 0 // -0 == 0
	}
	bits := math.Float64bits(f)
	if f >= 0 {
		bits |= 1 << 63
	} else {
		bits = ^bits
	}
	b = binary.BigEndian.AppendUint64(b, bits)
	if bigNumber(f) {
		if exact == 0 && math.Abs(f) < 1<<63 {
			exact = int64(f)
		}
		b = binary.BigEndian.AppendUint64(b, uint64(exact)^(1<<63))
	}
	return b
}

func bigNumber(f float64) bool { return math.Abs(f) >= 1<<53 }

// numberLen is the length of a number's encoding from the sortable double after its class byte.
func numberLen(bits uint64) int {
	if bits&(1<<63) != 0 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	if bigNumber(math.Float64frombits(bits)) {
		return 17
	}
	return 9
}

// appendString: the bytes, each 0x00 escaped as 0x00 0xFF, then 0x00 0x01, so a prefix sorts
// first ("a" < "ab") and the encoding ends where it says.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xFF)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, 0, 1)
}

// appendOpaque encodes values no index here orders by (documents, arrays, binary data) by their
// BSON bytes, with their length first: equal values get equal keys, in a stable order.
func appendOpaque(b []byte, v interface{}) []byte {
	raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		raw = []byte(err.Error())
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(raw)))
	return append(b, raw...)
}

// keyLen is the length of the value encoding at the start of b (inverted when desc).
func keyLen(b []byte, desc bool) int {
	at := func(i int) byte {
		if desc {
			return ^b[i]
		}
		return b[i]
	}
	switch at(0) {
	case classMin, classMax, classNull:
		return 1
	case classNumber:
		var bits uint64
		for i := 1; i <= 8; i++ {
			bits = bits<<8 | uint64(at(i))
		}
		return numberLen(bits)
	case classString:
		i := 1
		for {
			if at(i) == 0 {
				if at(i+1) == 1 {
					return i + 2
				}
				i += 2
				continue
			}
			i++
		}
	case classObjectID:
		return 13
	case classBool:
		return 2
	case classDate, classTimestamp:
		return 9
	}
	n := uint32(at(1))<<24 | uint32(at(2))<<16 | uint32(at(3))<<8 | uint32(at(4))
	return 5 + int(n)
}
