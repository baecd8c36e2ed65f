// The one definition of "a session that holds what SET GLOBAL super_read_only=ON waits for",
// shared by the dialect's blocker list and the dead man's switch event body.
#pragma once

#include <string_view>

namespace br::mysql {

/// FROM ... WHERE over performance_schema, alias `t` for the threads row: sessions (other than
/// the current one) holding a granted intention-exclusive lock on the global read lock or the
/// commit lock. That is every session in LOCK TABLES ... WRITE, every running write statement
/// and every commit in flight. An idle transaction with uncommitted writes holds neither lock
/// (MySQL 9.7): it does not block the fence, and its COMMIT fails once the server is fenced.
/// Needs the metadata-lock instrument (on by default); with it off the list is empty.
inline constexpr std::string_view lock_holders_from_where =
    " FROM performance_schema.metadata_locks l"
    " JOIN performance_schema.threads t ON t.THREAD_ID = l.OWNER_THREAD_ID"
    " WHERE l.OBJECT_TYPE IN ('GLOBAL', 'COMMIT') AND l.LOCK_TYPE = 'INTENTION_EXCLUSIVE'"
    " AND l.LOCK_STATUS = 'GRANTED' AND t.PROCESSLIST_ID IS NOT NULL"
    " AND t.PROCESSLIST_ID <> CONNECTION_ID()";

}  // namespace br::mysql
