// Durable file replacement: write (or copy) into "<path>.tmp", fsync, rename over the target,
// fsync the directory. A crash leaves the old file or the new one, never a torn one.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace br::fs {

/// Replaces `path` with `content`. "" on success, else what failed ("write <tmp>: <errno text>").
std::string write_file_atomic(const std::string& path, const std::string& content, mode_t mode = 0644);

/// Replaces `to` with the first `size` bytes of `from`; gives up (removing the temp file) once
/// `until` has passed. "" on success.
std::string copy_file_atomic(const std::string& from, const std::string& to, uint64_t size,
                             std::chrono::steady_clock::time_point until, mode_t mode = 0640);

}  // namespace br::fs
