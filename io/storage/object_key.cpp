// Object keys: relative, '/'-separated, never reaching outside the store's root.
#include "io/storage/object_store.hpp"

namespace br::storage {

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > 1024 || key.front() == '/') return false;
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    auto seg = key.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    for (char c : seg)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return false;
    start = end + 1;
  }
  return true;
}

}  // namespace br::storage
