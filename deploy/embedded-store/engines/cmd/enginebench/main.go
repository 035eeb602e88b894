// Command enginebench measures the storage layout of package engines on Pebble and on bbolt with
// the messages service's workload (issue #29): 50,000 messages to a channel of 20 users, so
// 1,000,000 user-message rows, with the indexes services/messages/models declares, then in a
// fresh process (a restart): open time and first answer, GET /messages (a topic's 100 newest of
// a user: a reverse index scan, the rows, the messages), POST /messages to 100 subscribers (one
// synced batch with its unique checks), marking 5,000 messages read (one synced batch), memory
// and disk.
//
//	go run ./cmd/enginebench -engine pebble -dir /tmp/bench-pebble
//	go run ./cmd/enginebench -engine bbolt -dir /tmp/bench-bbolt
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"chat/embedded-store/engines"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

var (
	engineName = flag.String("engine", "pebble", "pebble or bbolt")
	dir        = flag.String("dir", "", "data directory (emptied first by the load phase)")
	messages   = flag.Int("messages", 50_000, "messages in the channel")
	users      = flag.Int("users", 20, "users of the channel (rows = messages * users)")
	topics     = flag.Int("topics", 50, "topics in the channel")
	unread     = flag.Int("unread", 10_000, "the newest messages are unread by all but their sender")
	cacheMiB   = flag.Int64("cache", 64, "Pebble block cache, MiB (bbolt has none: it reads through mmap)")
	phase      = flag.String("phase", "all", "all (load in a child process, then run), load or run")
	gets       = flag.Int("gets", 500, "GET /messages samples")
	posts      = flag.Int("posts", 200, "POST /messages samples")
	readers    = flag.String("readers", "2,3,4", "users who each mark their 5,000 newest messages read")
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the run phase here")
)

var (
	umColl  = engines.CollName("chat", "user_messages")
	msgColl = engines.CollName("chat", "messages")
	asc     = func(fields ...string) engines.IndexSpec {
		name := ""
		for i, f := range fields {
			if i > 0 {
				name += "_"
			}
			name += f + "_1"
		}
		return engines.IndexSpec{Name: name, Fields: fields, Desc: make([]bool, len(fields))}
	}
	// services/messages/models/user-message.ts (the _id index is the documents' own order)
	umIndexes = []engines.IndexSpec{
		withUnique(asc("user_id", "message_id")),
		asc("user_id", "channel_id", "topic_key", "message_id"),
		asc("user_id", "recipient_id", "message_id"),
		asc("message_id"),
		asc("user_id", "flags", "message_id"),
	}
	// services/messages/models/message.ts
	msgIndexes = []engines.IndexSpec{
		asc("channel_id", "_id"),
		asc("channel_id", "topic_key", "_id"),
		asc("recipient_id", "_id"),
		asc("sender_id", "_id"),
		asc("words", "_id"),
		withSparseUnique(asc("idempotency_key")),
	}
)

func withUnique(ix engines.IndexSpec) engines.IndexSpec { ix.Unique = true; return ix }
func withSparseUnique(ix engines.IndexSpec) engines.IndexSpec {
	ix.Unique, ix.Sparse = true, true
	return ix
}

var vocab = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		n := 3 + r.IntN(8)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(b)
	}
	return words
}()

func messageDoc(r *rand.Rand, id, channel, sender int, topic string) bson.D {
	content := make([]string, 30+r.IntN(20))
	for i := range content {
		content[i] = vocab[r.IntN(len(vocab))]
	}
	stems := bson.A{}
	seen := map[string]bool{}
	for _, w := range content {
		if !seen[w] && len(stems) < 12 {
			seen[w] = true
			stems = append(stems, w)
		}
	}
	text := strings.Join(content, " ")
	return bson.D{
		{Key: "_id", Value: int32(id)},
		{Key: "sender_id", Value: int32(sender)},
		{Key: "recipient_id", Value: int32(1000 + channel)},
		{Key: "channel_id", Value: int32(channel)},
		{Key: "topic_key", Value: topic},
		{Key: "subject", Value: topic},
		{Key: "content", Value: text},
		{Key: "rendered_content", Value: "<p>" + text + "</p>"},
		{Key: "date_sent", Value: primitive.NewDateTimeFromTime(time.Unix(1_700_000_000+int64(id), 0))},
		{Key: "words", Value: stems},
		{Key: "idempotency_key", Value: fmt.Sprintf("%016x", r.Uint64())},
		{Key: "has_link", Value: false},
		{Key: "has_image", Value: false},
		{Key: "has_attachment", Value: false},
	}
}

func rowDoc(user, id, channel, sender int, topic string, flags bson.A) bson.D {
	return bson.D{
		{Key: "_id", Value: strconv.Itoa(user) + ":" + strconv.Itoa(id)},
		{Key: "user_id", Value: int32(user)},
		{Key: "message_id", Value: int32(id)},
		{Key: "flags", Value: flags},
		{Key: "channel_id", Value: int32(channel)},
		{Key: "topic_key", Value: topic},
		{Key: "recipient_id", Value: int32(1000 + channel)},
		{Key: "sender_id", Value: int32(sender)},
		{Key: "has_link", Value: false},
		{Key: "has_image", Value: false},
		{Key: "has_attachment", Value: false},
	}
}

// put adds a new document and its index entries to a batch.
func put(b *engines.Batch, coll string, ixs []engines.IndexSpec, doc bson.D) (int, error) {
	raw, err := bson.Marshal(doc)
	if err != nil {
		return 0, err
	}
	id := engines.IDKey(doc[0].Value)
	b.PutDoc(coll, id, raw)
	for i := range ixs {
		keys, present := ixs[i].Keys(raw)
		if ixs[i].Sparse && !present {
			continue
		}
		for _, k := range keys {
			b.PutEntry(coll, ixs[i].Name, k, id)
		}
	}
	return len(raw), nil
}

// taken reports whether an insert would break the _id index or a unique index (as checkUnique).
func taken(e engines.Engine, coll string, ixs []engines.IndexSpec, doc bson.D) (bool, error) {
	raw, _ := bson.Marshal(doc)
	if got, err := e.Get(coll, engines.IDKey(doc[0].Value)); err != nil || got != nil {
		return got != nil, err
	}
	for i := range ixs {
		if !ixs[i].Unique {
			continue
		}
		keys, present := ixs[i].Keys(raw)
		if ixs[i].Sparse && !present {
			continue
		}
		for _, k := range keys {
			found := false
			if err := e.Scan(coll, ixs[i].Name, k, false, func([]byte) bool { found = true; return false }); err != nil || found {
				return found, err
			}
		}
	}
	return false, nil
}

// takenAll is taken for many documents of one insert, each index's keys sought with one iterator.
func takenAll(e engines.Engine, coll string, ixs []engines.IndexSpec, docs []bson.D) (bool, error) {
	found := false
	seek := func(index string, keys [][]byte) error {
		return e.ScanEach(coll, index, keys, func(int, []byte) bool { found = true; return false })
	}
	ids := make([][]byte, len(docs))
	raws := make([]bson.Raw, len(docs))
	for i, d := range docs {
		ids[i] = engines.IDKey(d[0].Value)
		raws[i], _ = bson.Marshal(d)
	}
	if err := e.ScanEach(coll, "", ids, func(int, []byte) bool { found = true; return false }); err != nil || found {
		return found, err
	}
	for i := range ixs {
		if !ixs[i].Unique {
			continue
		}
		var keys [][]byte
		for _, raw := range raws {
			k, present := ixs[i].Keys(raw)
			if !ixs[i].Sparse || present {
				keys = append(keys, k...)
			}
		}
		if err := seek(ixs[i].Name, keys); err != nil || found {
			return found, err
		}
	}
	return false, nil
}

func topicOf(m int) string { return "topic " + strconv.Itoa(m%*topics) }

func load() error {
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	e, err := engines.Open(*engineName, *dir, *cacheMiB<<20)
	if err != nil {
		return err
	}
	if b, ok := e.(*engines.Bolt); ok {
		b.SetNoSync(true)
	}
	r := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	var batch engines.Batch
	var umBytes, msgBytes int
	for m := 1; m <= *messages; m++ {
		sender := 1 + r.IntN(*users)
		topic := topicOf(m)
		n, err := put(&batch, msgColl, msgIndexes, messageDoc(r, m, 1, sender, topic))
		if err != nil {
			return err
		}
		msgBytes += n
		for u := 1; u <= *users; u++ {
			flags := bson.A{"read"}
			if m > *messages-*unread && u != sender {
				flags = bson.A{}
			}
			n, err := put(&batch, umColl, umIndexes, rowDoc(u, m, 1, sender, topic, flags))
			if err != nil {
				return err
			}
			umBytes += n
		}
		if m%100 == 0 || m == *messages {
			if err := e.Apply(&batch, m == *messages); err != nil {
				return err
			}
			batch = engines.Batch{}
		}
	}
	loaded := time.Since(start)
	if b, ok := e.(*engines.Bolt); ok {
		b.SetNoSync(false)
	}
	if err := e.Close(); err != nil {
		return err
	}
	size, _ := engines.DiskSize(*dir)
	rows := *messages * *users
	fmt.Printf("load: %d messages (avg %d B BSON), %d user-message rows (avg %d B BSON), in %.1f s; on disk after close %.0f MB; load process peak RSS %s\n",
		*messages, msgBytes / *messages, rows, umBytes/rows, loaded.Seconds(), float64(size)/1e6, procStatus()["VmHWM"])
	return nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func summary(d []time.Duration) string {
	return fmt.Sprintf("p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)", ms(percentile(d, 0.5)), ms(percentile(d, 0.99)), ms(percentile(d, 1)), len(d))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var fieldsUCTM = []bool{false, false, false, false}

// getMessages is GET /messages for one user and topic: the 100 newest of the topic from the
// { user_id, channel_id, topic_key, message_id } index in reverse, each row (for its flags) and
// each message.
func getMessages(e engines.Engine, user int, topic string) (int, error) {
	prefix := engines.IDKey(int32(user)) // the same encoding as an index field's value
	prefix = append(prefix, engines.IDKey(int32(1))...)
	prefix = append(prefix, engines.IDKey(topic)...)
	var ids [][]byte
	err := e.Scan(umColl, umIndexes[1].Name, prefix, true, func(entry []byte) bool {
		_, id := engines.SplitEntry(entry, fieldsUCTM)
		ids = append(ids, slices.Clone(id))
		return len(ids) < 100
	})
	if err != nil {
		return 0, err
	}
	got := 0
	for _, id := range ids {
		raw, err := e.Get(umColl, id)
		if err != nil || raw == nil {
			return got, fmt.Errorf("row missing: %v", err)
		}
		row := bson.Raw(raw)
		_ = row.Lookup("flags")
		m, err := e.Get(msgColl, engines.IDKey(row.Lookup("message_id").Int32()))
		if err != nil || m == nil {
			return got, fmt.Errorf("message missing: %v", err)
		}
		got++
	}
	return got, nil
}

// markRead is updateMany({user_id, message_id: {$in: ids}}, {$addToSet: {flags: "read"}}): each
// row found through the unique { user_id, message_id } index, rewritten, and only its changed
// index entries replaced, all in one synced batch.
func markRead(e engines.Engine, user int, msgs []int) (int, error) {
	var b engines.Batch
	changed := 0
	prefixes := make([][]byte, len(msgs))
	for i, m := range msgs {
		prefixes[i] = append(engines.IDKey(int32(user)), engines.IDKey(int32(m))...)
	}
	var ids [][]byte
	if err := e.ScanEach(umColl, umIndexes[0].Name, prefixes, func(_ int, entry []byte) bool {
		_, id := engines.SplitEntry(entry, []bool{false, false})
		ids = append(ids, slices.Clone(id))
		return false
	}); err != nil {
		return 0, err
	}
	for _, id := range ids {
		old, err := e.Get(umColl, id)
		if err != nil {
			return 0, err
		}
		var doc bson.D
		if err := bson.Unmarshal(old, &doc); err != nil {
			return 0, err
		}
		for i := range doc {
			if doc[i].Key == "flags" {
				flags, _ := doc[i].Value.(bson.A)
				if slices.Contains(flags, interface{}("read")) {
					continue
				}
				doc[i].Value = append(flags, "read")
				changed++
			}
		}
		raw, err := bson.Marshal(doc)
		if err != nil {
			return 0, err
		}
		if bytes.Equal(old, raw) {
			continue // unchanged: not written, as the store does
		}
		b.PutDoc(umColl, id, raw)
		for i := range umIndexes {
			oldKeys, _ := umIndexes[i].Keys(old)
			newKeys, _ := umIndexes[i].Keys(raw)
			for _, k := range oldKeys {
				if !slices.ContainsFunc(newKeys, func(n []byte) bool { return string(n) == string(k) }) {
					b.DelEntry(umColl, umIndexes[i].Name, k, id)
				}
			}
			for _, k := range newKeys {
				if !slices.ContainsFunc(oldKeys, func(o []byte) bool { return string(o) == string(k) }) {
					b.PutEntry(umColl, umIndexes[i].Name, k, id)
				}
			}
		}
	}
	return changed, e.Apply(&b, true)
}

func run() error {
	size0, _ := engines.DiskSize(*dir)
	start := time.Now()
	e, err := engines.Open(*engineName, *dir, *cacheMiB<<20)
	if err != nil {
		return err
	}
	opened := time.Since(start)
	if _, err := getMessages(e, 1, topicOf(7)); err != nil {
		return err
	}
	first := time.Since(start)
	fmt.Printf("start: open %.1f ms, first GET answered %.1f ms after start (data on disk %.0f MB)\n", ms(opened), ms(first), float64(size0)/1e6)

	r := rand.New(rand.NewPCG(5, 6))
	sample := func(n int) ([]time.Duration, error) {
		var d []time.Duration
		for i := 0; i < n; i++ {
			t := time.Now()
			got, err := getMessages(e, 1+r.IntN(*users), topicOf(r.IntN(*topics)))
			if err != nil {
				return nil, err
			}
			if got != 100 && *messages >= 100**topics {
				return nil, fmt.Errorf("GET returned %d rows", got)
			}
			d = append(d, time.Since(t))
		}
		return d, nil
	}
	d, err := sample(*gets)
	if err != nil {
		return err
	}
	fmt.Printf("GET /messages (100 newest of a topic, rows + messages): %s\n", summary(d))

	// POST /messages to 100 subscribers of channel 2: the message and 100 rows, unique checks
	// before the commit (as checkUnique), then one synced batch.
	var p, commits []time.Duration
	fresh := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7)) // new idempotency keys too
	base := *messages + 1 + int(time.Now().Unix()%100_000)*1000      // a later run on the same data posts new IDs
	for i := 0; i < *posts; i++ {
		m := base + i
		t := time.Now()
		var b engines.Batch
		msg := messageDoc(fresh, m, 2, 1, "post topic")
		if dup, err := taken(e, msgColl, msgIndexes, msg); err != nil || dup {
			return fmt.Errorf("message %d taken: %v", m, err)
		}
		if _, err := put(&b, msgColl, msgIndexes, msg); err != nil {
			return err
		}
		var rows []bson.D
		for u := 1; u <= 100; u++ {
			flags := bson.A{}
			if u == 1 {
				flags = bson.A{"read"}
			}
			row := rowDoc(u, m, 2, 1, "post topic", flags)
			if _, err := put(&b, umColl, umIndexes, row); err != nil {
				return err
			}
			rows = append(rows, row)
		}
		// The rows' unique checks: their _ids, then the unique index, each through one iterator.
		if dup, err := takenAll(e, umColl, umIndexes, rows); err != nil || dup {
			return fmt.Errorf("a row of message %d is taken: %v", m, err)
		}
		c := time.Now()
		if err := e.Apply(&b, true); err != nil {
			return err
		}
		commits = append(commits, time.Since(c))
		p = append(p, time.Since(t))
	}
	fmt.Printf("POST /messages to 100 subscribers (1 + 100 documents, %d index entries, one synced batch): %s; the commit alone: %s\n", 1+len(msgIndexes)+100*len(umIndexes), summary(p), summary(commits))

	for _, f := range strings.Split(*readers, ",") {
		user, _ := strconv.Atoi(f)
		ids := make([]int, 0, 5000)
		for m := *messages; m > 0 && len(ids) < 5000; m-- {
			ids = append(ids, m)
		}
		t := time.Now()
		n, err := markRead(e, user, ids)
		if err != nil {
			return err
		}
		fmt.Printf("mark 5,000 read (user %d, %d rows changed, one synced batch): %.0f ms\n", user, n, ms(time.Since(t)))
	}
	d, err = sample(*gets)
	if err != nil {
		return err
	}
	fmt.Printf("GET /messages after the writes: %s\n", summary(d))

	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	st := procStatus()
	fmt.Printf("memory: RSS %s (anon %s, file %s), peak %s; Go heap in use %.0f MiB, Go sys %.0f MiB\n",
		st["VmRSS"], st["RssAnon"], st["RssFile"], st["VmHWM"], float64(mem.HeapInuse)/(1<<20), float64(mem.Sys)/(1<<20))
	if err := e.Close(); err != nil {
		return err
	}
	size, _ := engines.DiskSize(*dir)
	fmt.Printf("disk: %.0f MB after the run and close\n", float64(size)/1e6)
	return nil
}

func procStatus() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok {
			out[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return out
}

func main() {
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "-dir is required (outside the repository)")
		os.Exit(2)
	}
	var err error
	switch *phase {
	case "load":
		err = load()
	case "run":
		if *cpuProfile != "" {
			f, ferr := os.Create(*cpuProfile)
			if ferr == nil {
				_ = pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
		}
		err = run()
	case "all":
		fmt.Printf("engine %s, cache %d MiB, %s, %d CPUs\n", *engineName, *cacheMiB, runtime.Version(), runtime.NumCPU())
		self, _ := os.Executable()
		args := append(slices.Clone(os.Args[1:]), "-phase", "load")
		cmd := exec.Command(self, args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err = cmd.Run(); err == nil {
			err = run()
		}
	default:
		err = fmt.Errorf("unknown phase %q", *phase)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(1)
	}
}
