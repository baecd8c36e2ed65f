// A file's change time and size: cheap change detection for files replaced in place (a mounted
// Secret, a rotated certificate) without reading them.
#pragma once

#include <string>
#include <vector>

namespace br::fs {

struct file_stamp {
  long long mtime_ns = 0;
  long long size = -1;  ///< -1: missing or unreadable
  bool missing() const { return size < 0; }
  bool operator==(const file_stamp&) const = default;
};

/// stat(2) of `path` (following symlinks, as a Secret volume's ..data links need).
file_stamp stamp_of(const std::string& path);

/// stamp_of for each path, in order.
std::vector<file_stamp> stamps_of(const std::vector<std::string>& paths);

}  // namespace br::fs
