package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	logrecord "github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/wal"
)

// The engine's newest log (its write-ahead log) after a crash ends in whatever the crash left:
// zeros (space the engine set aside), another log's old records (a recycled file), or a write
// cut short. The engine replays up to the first record it cannot read and drops the rest. It
// tells damage from a cut-short write only when a record read after it says the log was synced
// past it (each chunk of the log records how far the log was synced when it was written), and
// looks for that only from the next 32 KiB block on. checkLogTail looks from the damaged record
// itself:
//   - a later record of this log says the log was synced past the unreadable one: acknowledged
//     writes would be dropped, so the store refuses to start, naming the file and offset;
//   - the unreadable record is this log's own and nothing proves it was synced: a crash cut it
//     short (never acknowledged) or it is the last acknowledged write, damaged. Nothing can tell
//     these apart; the store starts and warns, naming the file and offset.
// A log cut exactly at a record boundary reads as a log that ends there: no check sees it.
// After a clean stop the log holds nothing (the store flushes it into tables as it stops).

const (
	logBlockSize     = 32 << 10
	syncChunkHeader  = 19 // checksum 4, length 2, type 1, log number 4, synced offset 8
	syncChunkFirst   = 9  // the chunk types that carry a synced offset: 9 to 12
	syncChunkLast    = 12
	recyclableFirst  = 5 // chunk types that carry a log number: 5 to 12
	engineCRCMaskAdd = 0xa282ead8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checkLogTail answers an error when the newest log is damaged where acknowledged writes were,
// and a warning (or "") for an unreadable last record.
func checkLogTail(dir string) (warning string, err error) {
	logs, err := wal.Scan(wal.Dir{FS: vfs.Default, Dirname: dir})
	if err != nil || len(logs) == 0 {
		return "", err
	}
	newest := logs[len(logs)-1]
	_, path := newest.SegmentLocation(newest.NumSegments() - 1)
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	stop, err := readLogRecords(raw, uint64(newest.Num), func([]byte) error { return nil })
	if err == nil || stop >= int64(len(raw)) || allZero(raw[stop:]) {
		return "", nil
	}
	num := uint32(newest.Num)
	if synced, ok := syncedPast(raw, stop, num); ok {
		return "", fmt.Errorf("%s: damaged record at offset %d, and a later record says the log was synced to offset %d: acknowledged writes after the damage would be lost", path, stop, synced)
	}
	tail := raw[stop:]
	if len(tail) < 11 || (tail[6] >= recyclableFirst && tail[6] <= syncChunkLast && binary.LittleEndian.Uint32(tail[7:11]) == num) {
		return fmt.Sprintf("%s: the engine's log ends in a record cut short or damaged at offset %d (%d bytes follow): a write the stop cut short, never acknowledged, or damage to the last write; everything before it is kept", path, stop, len(tail)), nil
	}
	return "", nil // another log's old records, in a recycled file
}

// readLogRecords reads a log's records in raw (which starts on a block boundary), passing each
// to each, until the first it cannot read or each refuses: it answers that record's offset in
// raw and why (nil at a clean end).
func readLogRecords(raw []byte, num uint64, each func(repr []byte) error) (int64, error) {
	rr := newLogReader(bytes.NewReader(raw), num, logrecord.NewReader)
	for {
		at := rr.Offset()
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		var repr []byte
		if err == nil {
			repr, err = io.ReadAll(rec)
		}
		if err == nil {
			err = each(repr)
		}
		if err != nil {
			return at, err
		}
	}
}

// newLogReader makes a log reader; generic only to name the engine's file number type.
func newLogReader[N ~uint64](f io.Reader, num uint64, mk func(io.Reader, N) *logrecord.Reader) *logrecord.Reader {
	return mk(f, N(num))
}

// syncedPast finds, after offset stop, a whole chunk of log num whose synced offset is past stop.
func syncedPast(raw []byte, stop int64, num uint32) (uint64, bool) {
	for p := int(stop) + 1; p+syncChunkHeader <= len(raw); p++ {
		kind := raw[p+6]
		if kind < syncChunkFirst || kind > syncChunkLast || binary.LittleEndian.Uint32(raw[p+7:p+11]) != num {
			continue
		}
		end := p + syncChunkHeader + int(binary.LittleEndian.Uint16(raw[p+4:p+6]))
		if end > len(raw) || end > (p/logBlockSize+1)*logBlockSize {
			continue
		}
		if engineChecksum(raw[p+6:end]) != binary.LittleEndian.Uint32(raw[p:p+4]) {
			continue
		}
		if synced := binary.LittleEndian.Uint64(raw[p+11 : p+19]); synced > uint64(stop) {
			return synced, true
		}
	}
	return 0, false
}

// engineChecksum is the engine's masked CRC-32C of a log chunk.
func engineChecksum(b []byte) uint32 {
	c := crc32.Update(0, castagnoli, b)
	return (c>>15 | c<<17) + engineCRCMaskAdd
}
