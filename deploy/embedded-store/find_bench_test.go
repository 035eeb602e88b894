package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// BenchmarkMessagePage: the reads of a GET /messages page, 100 newest of a topic in a channel of
// 50,000 messages, each with its user row, as the messages service makes them (go test -bench .).
func BenchmarkMessagePage(b *testing.B) {
	store, err := openVerified(b.TempDir(), 64<<20, slog.New(slog.NewTextHandler(io.Discard, nil)), true)
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{store: store, cursors: newCursors(), started: time.Now()}
	must := func(reply bson.D) {
		if ok, _ := field(reply, "ok").(float64); ok != 1 {
			b.Fatalf("%v", reply)
		}
	}
	must(s.run("m", bson.D{{Key: "createIndexes", Value: "messages"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "channel_id", Value: int32(1)}, {Key: "topic_key", Value: int32(1)}, {Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "channel_topic"}},
	}}}))
	must(s.run("m", bson.D{{Key: "createIndexes", Value: "user_messages"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "user_id", Value: int32(1)}, {Key: "message_id", Value: int32(1)}}}, {Key: "name", Value: "user_message"}},
	}}}))
	const n = 50_000
	for off := 0; off < n; off += 5000 {
		msgs, rows := bson.A{}, bson.A{}
		for id := off + 1; id <= off+5000; id++ {
			topic := fmt.Sprintf("topic-%d", id%5)
			words := bson.A{}
			for _, w := range strings.Fields(fmt.Sprintf("message %d lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor %s", id, topic)) {
				words = append(words, w)
			}
			msgs = append(msgs, bson.D{
				{Key: "_id", Value: int32(id)}, {Key: "realm_id", Value: int32(1)}, {Key: "sender_id", Value: int32(1)}, {Key: "type", Value: "stream"},
				{Key: "recipient_id", Value: int32(3)}, {Key: "channel_id", Value: int32(3)}, {Key: "topic", Value: topic}, {Key: "topic_key", Value: topic},
				{Key: "dm_user_ids", Value: bson.A{}}, {Key: "content", Value: fmt.Sprintf("message %d lorem ipsum dolor sit amet", id)},
				{Key: "rendered_content", Value: fmt.Sprintf("<p>message %d lorem ipsum dolor sit amet</p>", id)}, {Key: "timestamp", Value: int32(1_700_000_000 + id)},
				{Key: "client", Value: "bench"}, {Key: "is_me_message", Value: false}, {Key: "has_link", Value: false}, {Key: "has_image", Value: false},
				{Key: "has_attachment", Value: false}, {Key: "search_words", Value: words}, {Key: "topic_words", Value: bson.A{topic}}, {Key: "words", Value: words},
				{Key: "is_resolve_notice", Value: false}, {Key: "edit_history", Value: bson.A{}}, {Key: "last_edit_timestamp", Value: nil}, {Key: "last_moved_timestamp", Value: nil},
			})
			rows = append(rows, bson.D{{Key: "_id", Value: fmt.Sprintf("1:%d", id)}, {Key: "user_id", Value: int32(1)}, {Key: "message_id", Value: int32(id)}, {Key: "flags", Value: bson.A{"read"}},
				{Key: "channel_id", Value: int32(3)}, {Key: "topic_key", Value: topic}, {Key: "recipient_id", Value: int32(3)}, {Key: "sender_id", Value: int32(1)}})
		}
		must(s.run("m", bson.D{{Key: "insert", Value: "messages"}, {Key: "documents", Value: msgs}}))
		must(s.run("m", bson.D{{Key: "insert", Value: "user_messages"}, {Key: "documents", Value: rows}}))
	}
	view := bson.D{}
	for _, f := range []string{"_id", "sender_id", "type", "recipient_id", "channel_id", "topic", "dm_user_ids", "content", "rendered_content", "timestamp", "client", "is_me_message", "edit_history", "last_edit_timestamp", "last_moved_timestamp", "has_submessages"} {
		view = append(view, bson.E{Key: f, Value: int32(1)})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page := s.run("m", bson.D{{Key: "find", Value: "messages"}, {Key: "filter", Value: bson.D{{Key: "channel_id", Value: int32(3)}, {Key: "topic_key", Value: "topic-0"}, {Key: "_id", Value: bson.D{{Key: "$lt", Value: int64(1e16)}}}}},
			{Key: "projection", Value: view}, {Key: "sort", Value: bson.D{{Key: "_id", Value: int32(-1)}}}, {Key: "limit", Value: int32(100)}})
		must(page)
		ids := bson.A{}
		for _, d := range field(field(page, "cursor").(bson.D), "firstBatch").(bson.A) {
			ids = append(ids, d.(bson.Raw).Lookup("_id").Int32())
		}
		if len(ids) != 100 {
			b.Fatalf("%d messages", len(ids))
		}
		must(s.run("m", bson.D{{Key: "find", Value: "user_messages"}, {Key: "filter", Value: bson.D{{Key: "user_id", Value: int32(1)}, {Key: "message_id", Value: bson.D{{Key: "$in", Value: ids}}}}},
			{Key: "projection", Value: bson.D{{Key: "message_id", Value: int32(1)}, {Key: "flags", Value: int32(1)}}}}))
	}
}
