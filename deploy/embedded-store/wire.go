package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
)

// MongoDB's wire protocol: OP_MSG for every command, and the legacy OP_QUERY that drivers still
// use for their first handshake, answered with OP_REPLY.

const (
	opReply = 1
	opQuery = 2004
	opMsg   = 2013

	flagChecksum   = 1 << 0
	flagMoreToCome = 1 << 1
)

func (s *Server) serve(conn net.Conn, log *slog.Logger) {
	s.conns.Add(1)
	defer s.conns.Add(-1)
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 64*1024)
	w := bufio.NewWriterSize(conn, 64*1024)
	for {
		var header [16]byte
		if _, err := io.ReadFull(r, header[:]); err != nil {
			return
		}
		length := int(int32(binary.LittleEndian.Uint32(header[0:])))
		requestID := int32(binary.LittleEndian.Uint32(header[4:]))
		opCode := int32(binary.LittleEndian.Uint32(header[12:]))
		if length < 16 || length > maxMessageSize {
			log.Warn("wire: bad message length", "length", length)
			return
		}
		body := make([]byte, length-16)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var reply []byte
		var err error
		switch opCode {
		case opMsg:
			reply, err = s.handleMsg(requestID, body)
		case opQuery:
			reply, err = s.handleQuery(requestID, body)
		default:
			err = fmt.Errorf("unsupported opcode %d", opCode)
		}
		if err != nil {
			log.Warn("wire: closing connection", "error", err)
			return
		}
		if reply == nil {
			continue
		}
		if _, err := w.Write(reply); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// handleMsg reads an OP_MSG: its body document, with any document sequences (kind 1 sections,
// as drivers send insert documents and update statements) folded in as arrays.
func (s *Server) handleMsg(requestID int32, body []byte) ([]byte, error) {
	if len(body) < 5 {
		return nil, errors.New("short OP_MSG")
	}
	flags := binary.LittleEndian.Uint32(body)
	rest := body[4:]
	if flags&flagChecksum != 0 {
		if len(rest) < 4 {
			return nil, errors.New("short OP_MSG checksum")
		}
		rest = rest[:len(rest)-4]
	}
	var cmd bson.D
	var sequences bson.D
	for len(rest) > 0 {
		kind := rest[0]
		rest = rest[1:]
		switch kind {
		case 0:
			doc, n, err := readDoc(rest)
			if err != nil {
				return nil, err
			}
			cmd = doc
			rest = rest[n:]
		case 1:
			if len(rest) < 4 {
				return nil, errors.New("short document sequence")
			}
			size := int(binary.LittleEndian.Uint32(rest))
			if size < 5 || size > len(rest) {
				return nil, errors.New("bad document sequence size")
			}
			section := rest[4:size]
			rest = rest[size:]
			end := bytes.IndexByte(section, 0)
			if end < 0 {
				return nil, errors.New("bad document sequence identifier")
			}
			id := string(section[:end])
			section = section[end+1:]
			docs := bson.A{}
			for len(section) > 0 {
				doc, n, err := readDoc(section)
				if err != nil {
					return nil, err
				}
				docs = append(docs, doc)
				section = section[n:]
			}
			sequences = append(sequences, bson.E{Key: id, Value: docs})
		default:
			return nil, fmt.Errorf("unknown OP_MSG section kind %d", kind)
		}
	}
	if cmd == nil {
		return nil, errors.New("OP_MSG without a body")
	}
	cmd = append(cmd, sequences...)
	db, _ := field(cmd, "$db").(string)
	res := s.run(db, cmd)
	if flags&flagMoreToCome != 0 {
		return nil, nil // an unacknowledged write: no reply
	}
	raw, err := encodeReply(res)
	if err != nil {
		raw, _ = bson.Marshal(cmdError(8, "UnknownError", "cannot encode the reply: "+err.Error()).reply())
	}
	out := make([]byte, 16, 16+4+1+len(raw))
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = append(out, 0)
	out = append(out, raw...)
	putHeader(out, requestID, opMsg)
	return out, nil
}

// handleQuery answers a legacy OP_QUERY on <db>.$cmd (the handshake); nothing else uses it now.
func (s *Server) handleQuery(requestID int32, body []byte) ([]byte, error) {
	if len(body) < 4 {
		return nil, errors.New("short OP_QUERY")
	}
	rest := body[4:]
	end := bytes.IndexByte(rest, 0)
	if end < 0 {
		return nil, errors.New("bad OP_QUERY collection name")
	}
	ns := string(rest[:end])
	rest = rest[end+1:]
	if len(rest) < 8 {
		return nil, errors.New("short OP_QUERY")
	}
	doc, _, err := readDoc(rest[8:])
	if err != nil {
		return nil, err
	}
	if inner, isDoc := field(doc, "$query").(bson.D); isDoc {
		doc = inner
	}
	var res bson.D
	if db, isCmd := strings.CutSuffix(ns, ".$cmd"); isCmd {
		res = s.run(db, doc)
	} else {
		res = cmdError(352, "UnsupportedOpQueryCommand", "legacy OP_QUERY is only supported for commands").reply()
	}
	raw, err := bson.Marshal(res)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 16, 16+20+len(raw))
	out = binary.LittleEndian.AppendUint32(out, 0) // responseFlags
	out = binary.LittleEndian.AppendUint64(out, 0) // cursorID
	out = binary.LittleEndian.AppendUint32(out, 0) // startingFrom
	out = binary.LittleEndian.AppendUint32(out, 1) // numberReturned
	out = append(out, raw...)
	putHeader(out, requestID, opReply)
	return out, nil
}

var nextResponseID int32

func putHeader(msg []byte, responseTo int32, opCode int32) {
	nextResponseID++
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[4:], uint32(nextResponseID))
	binary.LittleEndian.PutUint32(msg[8:], uint32(responseTo))
	binary.LittleEndian.PutUint32(msg[12:], uint32(opCode))
}

func readDoc(b []byte) (bson.D, int, error) {
	if len(b) < 5 {
		return nil, 0, errors.New("short BSON document")
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n < 5 || n > len(b) {
		return nil, 0, errors.New("bad BSON document length")
	}
	doc, err := decodeDoc(b[:n])
	if err != nil {
		return nil, 0, err
	}
	return doc, n, nil
}
