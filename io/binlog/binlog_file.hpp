// MySQL binary log files: what the PITR archiver needs from one file, read from the file itself
// (event headers and the Previous_gtids event; no server round trip, no event bodies otherwise),
// and for a replace's replay the GTIDs of transactions by their first statement's head.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "messages/gtid_set.hpp"

namespace br::binlog {

/// Event type codes (MySQL binlog v4) the reader looks at.
enum event_type : uint8_t {
  query_event = 2,
  stop_event = 3,
  rotate_event = 4,
  format_description_event = 15,
  gtid_event = 33,
  previous_gtids_event = 35,
  gtid_tagged_event = 42,
};

struct binlog_summary {
  int64_t first_event_time = 0;  ///< unix seconds of the first event (the Format_description)
  int64_t last_event_time = 0;   ///< latest event timestamp in the file
  gtid_set previous_gtids;       ///< every transaction committed before this file
  uint64_t size = 0;             ///< bytes, up to the end of the last whole event
  uint64_t events = 0;
  uint64_t transactions = 0;     ///< GTID events (tagged or not) in the file
  bool ends_with_rotate = false; ///< the last event is a Rotate (a cleanly sealed file)
};

struct binlog_read_result {
  std::optional<binlog_summary> summary;
  std::string error;  ///< set when summary is empty: names the byte offset and the problem
};

/// Decodes the body of a Previous_gtids event (Gtid_set::encode): an 8-byte little-endian header
/// (bits 56-63 the format: 0 untagged with n_sids in the low 56 bits, 1 tagged with n_sids in
/// bits 8-55), then per stream the 16-byte uuid, in the tagged format a variable-length tag
/// length and the tag, the interval count (8 bytes) and [start, end) pairs (8 + 8 bytes).
/// nullopt (with `error`) for a malformed body.
std::optional<gtid_set> decode_previous_gtids(std::string_view body, std::string* error = nullptr);

/// Summarises a whole binlog file held in memory (tests, small files).
binlog_read_result summarize_binlog(std::string_view bytes);

/// Summarises the file at `path`, reading event headers and seeking over bodies; a truncated
/// event, a bad magic number, an encrypted file or a missing Previous_gtids event is an error.
/// `header_only` stops after the Previous_gtids event (the file the server is still writing:
/// its header is complete, its tail may not be); size, events and times then cover the header.
binlog_read_result summarize_binlog_file(const std::string& path, bool header_only = false);

/// The GTIDs of the transactions of the file at `path` whose first statement (the first Query
/// event after the GTID event: the whole of a DDL such as CREATE USER; "BEGIN" for row events)
/// `pick` accepts. `pick` sees at most the first 256 bytes of the statement. A picked statement
/// under a tagged GTID is an error (its event is not decoded). nullopt with `error` for a file
/// that cannot be read as summarize_binlog_file would refuse it.
std::optional<gtid_set> gtids_of_statements(const std::string& path, const std::function<bool(std::string_view)>& pick,
                                            std::string& error);
/// The same over a whole file held in memory (tests).
std::optional<gtid_set> gtids_of_statements_in(std::string_view bytes, const std::function<bool(std::string_view)>& pick,
                                               std::string& error);

}  // namespace br::binlog
