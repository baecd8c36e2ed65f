// A file's change time and size from stat(2).
#include "io/fs/file_stamp.hpp"

#include <sys/stat.h>

namespace br::fs {

file_stamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return file_stamp{};
  return file_stamp{static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                    static_cast<long long>(st.st_size)};
}

std::vector<file_stamp> stamps_of(const std::vector<std::string>& paths) {
  std::vector<file_stamp> out;
  out.reserve(paths.size());
  for (const auto& p : paths) out.push_back(stamp_of(p));
  return out;
}

}  // namespace br::fs
