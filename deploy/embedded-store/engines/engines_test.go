package engines

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// Both engines store the same layout and answer the same reads: a document by _id, an index
// prefix in order and in reverse, an entry's _id split off its key, deletes in a batch.
func TestLayoutOnBothEngines(t *testing.T) {
	ix := IndexSpec{Name: "user_id_1_flags_1_message_id_1", Fields: []string{"user_id", "flags", "message_id"}}
	for _, name := range []string{"pebble", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			e, err := Open(name, dir, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			coll := CollName("chat", "user_messages")
			var b Batch
			for m := int32(1); m <= 10; m++ {
				flags := bson.A{}
				if m%2 == 0 {
					flags = bson.A{"read", "starred", "read"}
				}
				raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: m}, {Key: "user_id", Value: int32(7)}, {Key: "message_id", Value: m}, {Key: "flags", Value: flags}})
				id := IDKey(m)
				b.PutDoc(coll, id, raw)
				keys, _ := ix.Keys(raw)
				if want := map[bool]int{true: 2, false: 1}[m%2 == 0]; len(keys) != want {
					t.Fatalf("message %d: %d keys, want %d", m, len(keys), want)
				}
				for _, k := range keys {
					b.PutEntry(coll, ix.Name, k, id)
				}
			}
			if err := e.Apply(&b, true); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if e, err = Open(name, dir, 1<<20); err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			raw, err := e.Get(coll, IDKey(int32(4)))
			if err != nil || raw == nil || bson.Raw(raw).Lookup("message_id").Int32() != 4 {
				t.Fatalf("get 4: %v %v", raw, err)
			}
			if raw, _ := e.Get(coll, IDKey(int32(11))); raw != nil {
				t.Fatal("a missing _id was found")
			}
			read := appendKey(appendKey(nil, int32(7), false), "read", false)
			var got []int32
			err = e.Scan(coll, ix.Name, read, true, func(entry []byte) bool {
				_, id := SplitEntry(entry, []bool{false, false, false})
				var v interface{}
				if raw, _ := e.Get(coll, id); raw != nil {
					v = bson.Raw(raw).Lookup("_id").Int32()
				}
				got = append(got, v.(int32))
				return len(got) < 3
			})
			if err != nil || len(got) != 3 || got[0] != 10 || got[1] != 8 || got[2] != 6 {
				t.Fatalf("newest 3 read: %v %v", got, err)
			}
			// Delete 10's entries and document in one batch: the scan no longer sees it.
			b = Batch{}
			raw, _ = e.Get(coll, IDKey(int32(10)))
			keys, _ := ix.Keys(raw)
			for _, k := range keys {
				b.DelEntry(coll, ix.Name, k, IDKey(int32(10)))
			}
			b.DelDoc(coll, IDKey(int32(10)))
			if err := e.Apply(&b, true); err != nil {
				t.Fatal(err)
			}
			n := 0
			_ = e.Scan(coll, ix.Name, appendKey(nil, int32(7), false), false, func(entry []byte) bool {
				if bytes.HasSuffix(entry, IDKey(int32(10))) {
					t.Fatal("a deleted entry is still there")
				}
				n++
				return true
			})
			if n != 5+4*2 { // odd rows: one entry (no flags); even rows: read and starred
				t.Fatalf("%d entries for user 7, want 13", n)
			}
		})
	}
}
